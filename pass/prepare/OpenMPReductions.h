//===- OpenMPReductions.h - reductions combined by atomic adds --*- C++ -*-===//
//
// A `reduction(+:s)` ends with `__kmpc_reduce_nowait`, whose result picks
// the combine: 1, under a lock (or in the runtime's tree, through the
// reduction function); 2, by atomic adds. In the copy that is
// differentiated, the choice is 2, always: the combine is then
// `atomicrmw fadd s, private` in the region's own code, whose tangent is an
// atomic add into the shadow of s and whose transpose reads it, and no
// reduction function runs behind the derivative's back. The user's
// function keeps the runtime's choice.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_OPENMPREDUCTIONS_H
#define ADPASS_OPENMPREDUCTIONS_H

#include "llvm/IR/Function.h"

namespace ad {

class Diagnostics;

/// Makes every `__kmpc_reduce_nowait` of \p F choose the atomic combine.
/// False after reporting a reduction that has none.
bool combineReductionsAtomically(llvm::Function &F, Diagnostics &Diags);

} // namespace ad

#endif
