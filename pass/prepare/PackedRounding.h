//===- PackedRounding.h - SSE4.1 and AVX rounding intrinsics ----*- C++ -*-===//
//
// _mm_floor_pd and kin (Eigen's pfloor, pceil, pround with SSE4.1 or AVX)
// are llvm.x86.sse41.round.* and llvm.x86.avx.round.* with an immediate
// that picks the rounding: to nearest even, down, up, toward zero, or the
// current mode (bit 2). The prepared copy calls the generic intrinsic that
// rounds the same way (llvm.roundeven, floor, ceil, trunc, rint), whose
// rule is derivative 0. Immediates with other bits, and the scalar forms
// (round.sd, round.ss, which keep the other lanes of their first operand),
// are left alone: a call without a rule, an error.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_PACKEDROUNDING_H
#define ADPASS_PACKEDROUNDING_H

#include "llvm/IR/Function.h"

namespace ad {

/// Rewrites those calls in \p F.
void rewritePackedRounding(llvm::Function &F);

} // namespace ad

#endif
