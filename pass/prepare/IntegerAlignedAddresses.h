//===- IntegerAlignedAddresses.h - addresses rounded up as integers -*- C++
//-*-//
//
// Code that over-allocates a buffer and aligns its address by rounding it
// up as an integer, (uintptr_t(p) + A - 1) & ~(A - 1), makes a pointer from
// an integer (Eigen's aligned alloca, ei_declare_aligned_stack_constructed_
// variable, at -O0; from -O1 InstCombine folds it away). A pointer from an
// integer has no shadow. The prepared copy computes the same address as p
// advanced by the rounding's offset, so it is known to point into p's
// object, whose shadow it advances the same way.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_INTEGERALIGNEDADDRESSES_H
#define ADPASS_INTEGERALIGNEDADDRESSES_H

#include "llvm/IR/Function.h"

namespace ad {

/// Rewrites `inttoptr ((ptrtoint p + k) & -A)`, A a power of two and
/// 0 <= k < A (also with k as an addition and a subtraction), in \p F into
/// `getelementptr i8, p, that integer - ptrtoint p`.
void rewriteIntegerAlignedAddresses(llvm::Function &F);

} // namespace ad

#endif
