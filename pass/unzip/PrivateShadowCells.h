//===- PrivateShadowCells.h - shadow cells one iteration touches -*- C++ -*-=//
//
// In the reverse pass of a parallel region, a linear load's transpose adds
// into a shadow cell that other threads may add into too (a stencil's
// neighbours, a scalar every iteration reads), so the addition is atomic.
// Where the cell's address is Base + Scale * iv, with iv the induction
// variable of the region's worksharing loop, Base the same for the whole
// team and no other access that may reach the cell at another address,
// different iterations touch different cells; the OpenMP runtime gives
// each iteration to one thread (static and dynamic schedules alike), so
// the addition needs no atomic. This marks such loads in the region's
// f.jvp; unzipping keeps the mark in f.lin and the transpose reads it.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_PRIVATESHADOWCELLS_H
#define ADPASS_PRIVATESHADOWCELLS_H

#include "llvm/IR/Function.h"

namespace llvm {
class TargetLibraryInfo;
}

namespace ad {

/// Marks the linear loads of \p Jvp, f.jvp of a parallel region's body,
/// whose shadow cell one worksharing-loop iteration alone touches.
void markPrivateShadowCells(llvm::Function &Jvp, llvm::TargetLibraryInfo &TLI);

/// Whether \p I, a linear load, was marked so.
bool isPrivateShadowCell(const llvm::Instruction &I);

} // namespace ad

#endif
