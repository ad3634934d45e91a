//===- RoundingBarrier.h - rounding by adding 2^52 behind a barrier -*- C++
//-*-//
//
// Eigen's vectorised exp, log and floor without SSE4.1 round a value A >= 0
// to an integer by computing A + 2^52 (2^23 in float), where the spacing of
// doubles is 1, and subtracting 2^52 again. An empty inline assembly
// statement that claims to change the sum (EIGEN_OPTIMIZATION_BARRIER)
// keeps fast-math from folding the two away. Differentiated as written,
// the sum would pass A's derivative on, where the rounded value has
// derivative 0, and the barrier is inline assembly, which is refused.
//
// For A >= 0 (or NaN), A + 2^52 rounds exactly as rint(A) + 2^52 does
// (ties to even both ways): the prepared copy computes the barrier's value
// so, which has derivative 0, and drops the barrier. Any other barrier, or
// a sum whose addend may be negative (where the two differ), is left as it
// is: an error.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_ROUNDINGBARRIER_H
#define ADPASS_ROUNDINGBARRIER_H

#include "llvm/IR/Function.h"

namespace ad {

/// Rewrites those barriers in \p F.
void rewriteRoundingBarriers(llvm::Function &F);

} // namespace ad

#endif
