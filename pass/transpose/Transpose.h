//===- Transpose.h - f.lin -> f.rev -----------------------------*- C++ -*-===//
//
// Stage 3 of YOLO (§7): f.rev(ptr %tape, ct_y) -> ct_x runs f.lin backwards.
// Each block of f.lin becomes a block of f.rev holding the transposes of its
// linear instructions in reverse order; edges are reversed, a merge block
// branches on the predecessor index f.fwd recorded, and linear PHIs turn
// into accumulations on the reversed edges. Cotangents live in stack slots
// during construction and are promoted to SSA (PromoteMemToReg) at the end.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_TRANSPOSE_H
#define ADPASS_TRANSPOSE_H

#include "llvm/IR/Function.h"

namespace ad {

class Differentiator;

/// Builds f.rev from \p Lin; null after reporting an error.
llvm::Function *transpose(llvm::Function &Lin, Differentiator &D);

} // namespace ad

#endif
