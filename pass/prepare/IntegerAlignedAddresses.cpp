//===- IntegerAlignedAddresses.cpp - addresses rounded up as integers -----===//
#include "prepare/IntegerAlignedAddresses.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/PatternMatch.h"

using namespace llvm;
using namespace llvm::PatternMatch;

namespace ad {

/// \p V as `ptrtoint P + K` with a constant K (additions and subtractions
/// of constants, as -O0 spells A - 1): P's ptrtoint, or null.
static PtrToIntInst *offsetAddress(Value *V, int64_t &K) {
  K = 0;
  for (unsigned Steps = 0; Steps < 4; ++Steps) {
    if (auto *PI = dyn_cast<PtrToIntInst>(V))
      return PI;
    Value *X;
    const APInt *C;
    if (match(V, m_Add(m_Value(X), m_APInt(C))) && C->getSignificantBits() < 32)
      K += C->getSExtValue();
    else if (match(V, m_Sub(m_Value(X), m_APInt(C))) &&
             C->getSignificantBits() < 32)
      K -= C->getSExtValue();
    else
      return nullptr;
    V = X;
  }
  return nullptr;
}

/// The ptrtoint an address rounded up to a power of two \p I makes comes
/// from, if \p I is `(ptrtoint P + K) & -A` with 0 <= K < A.
static PtrToIntInst *roundedUpAddress(Value *I) {
  Value *Sum;
  const APInt *Mask;
  if (!match(I, m_And(m_Value(Sum), m_APInt(Mask))) || !(-*Mask).isPowerOf2())
    return nullptr;
  int64_t K;
  PtrToIntInst *PI = offsetAddress(Sum, K);
  uint64_t A = (-*Mask).getZExtValue();
  if (!PI || K < 0 || uint64_t(K) >= A || PI->getType() != I->getType())
    return nullptr;
  return PI;
}

void rewriteIntegerAlignedAddresses(Function &F) {
  SmallVector<IntToPtrInst *, 4> Found;
  for (Instruction &I : instructions(F))
    if (auto *IP = dyn_cast<IntToPtrInst>(&I))
      if (roundedUpAddress(IP->getOperand(0)))
        Found.push_back(IP);
  for (IntToPtrInst *IP : Found) {
    Value *Rounded = IP->getOperand(0);
    PtrToIntInst *PI = roundedUpAddress(Rounded);
    Value *P = PI->getPointerOperand();
    if (P->getType() != IP->getType())
      continue;
    IRBuilder<> B(IP);
    Value *Offset = B.CreateSub(Rounded, PI, "align.offset");
    Value *Aligned = B.CreateGEP(B.getInt8Ty(), P, Offset, IP->getName());
    IP->replaceAllUsesWith(Aligned);
    IP->eraseFromParent();
  }
}

} // namespace ad
