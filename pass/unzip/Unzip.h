//===- Unzip.h - f.jvp -> f.fwd + %f.tape + f.lin ---------------*- C++ -*-===//
//
// Stage 2 of YOLO (§6): partial evaluation of f.jvp with respect to its
// non-linear inputs.
//  * f.fwd(x..., ptr %tape) -> y runs every non-linear instruction and stores
//    the residuals (non-linear values that linear code reads, branch
//    conditions, which predecessor each merge block was entered from, and
//    the tapes of callees) into %f.tape.
//  * f.lin(ptr %tape, dx...) -> dy keeps f's CFG but only the linear
//    instructions; each block reads what it needs from the tape itself, so
//    Transpose can walk blocks in any order.
// A call of g.jvp becomes g.fwd in f.fwd and g.lin in f.lin; g's tape is a
// field of f's tape.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_UNZIP_H
#define ADPASS_UNZIP_H

#include "driver/Differentiator.h"

namespace ad {

std::optional<Unzipped> unzip(llvm::Function &Jvp, Differentiator &D);

/// Unique predecessors of \p BB in function layout order: the numbering of
/// the predecessor index that f.fwd records and f.rev branches on. Both
/// sides compute it on a copy of the same CFG, so it must not depend on use
/// lists.
llvm::SmallVector<llvm::BasicBlock *, 4>
predecessorsInLayoutOrder(llvm::BasicBlock &BB);

} // namespace ad

#endif
