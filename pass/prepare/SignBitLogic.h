//===- SignBitLogic.h - sign-bit masks of floats as fabs and fneg -*- C++ -*-//
//
// SIMD code changes signs with integer logic on the bits of floats: Eigen's
// SSE packets negate with a xor by the sign mask and take absolute values
// with an and by its complement (pnegate, pabs), on a packet reinterpreted
// as <2 x i64>, or loaded as one at -O2. Integer logic has no derivative.
// In the prepared copy, such logic on bits that come from a float or from
// memory is rewritten into what it computes, bit for bit:
//   xor X, sign mask       ->  bitcast (fneg (bitcast X to float type))
//   and X, ~sign mask      ->  bitcast (fabs (bitcast X to float type))
// for 32- and 64-bit lanes (float and double), every lane's mask exactly
// that. fneg and fabs only touch the sign bit, so the bits are the same
// whatever X holds; the simplifications that follow fold the casts away.
// Any other mask stays integer logic, an error where it changes floats.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_SIGNBITLOGIC_H
#define ADPASS_SIGNBITLOGIC_H

#include "llvm/IR/Function.h"
#include "llvm/IR/PassManager.h"

namespace ad {

/// Rewrites the sign-bit logic above in \p F; true if it changed any.
bool rewriteSignBitLogic(llvm::Function &F);

/// The same, in a pipeline: after mem2reg, before the simplifications.
struct SignBitLogicPass : llvm::PassInfoMixin<SignBitLogicPass> {
  llvm::PreservedAnalyses run(llvm::Function &F,
                              llvm::FunctionAnalysisManager &) {
    return rewriteSignBitLogic(F) ? llvm::PreservedAnalyses::none()
                                  : llvm::PreservedAnalyses::all();
  }
};

} // namespace ad

#endif
