//===- SignBitLogic.cpp - sign-bit masks of floats as fabs and fneg -------===//
#include "prepare/SignBitLogic.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/PatternMatch.h"

using namespace llvm;
using namespace llvm::PatternMatch;

namespace ad {

/// The float type whose bits an integer (vector) type of 32- or 64-bit
/// lanes holds: float or double lanes of the same count.
static Type *floatTypeOfBits(Type *T) {
  unsigned Width = T->getScalarSizeInBits();
  if (Width != 32 && Width != 64)
    return nullptr;
  Type *Elem = Width == 32 ? Type::getFloatTy(T->getContext())
                           : Type::getDoubleTy(T->getContext());
  if (auto *VT = dyn_cast<VectorType>(T))
    return VectorType::get(Elem, VT->getElementCount());
  return Elem;
}

/// Bits that may be a float's: a float reinterpreted, or integers loaded
/// from memory (where the optimiser loads packets of doubles as <2 x i64>).
static bool mayHoldFloatBits(const Value *V) {
  if (auto *BC = dyn_cast<BitCastInst>(V))
    return BC->getSrcTy()->isFPOrFPVectorTy();
  return isa<LoadInst>(V);
}

/// The fabs or fneg that \p I computes on the bits of its other operand,
/// built before \p I, or null.
static Value *signBitOperation(BinaryOperator &I) {
  Type *FT = floatTypeOfBits(I.getType());
  Value *X;
  const APInt *Mask;
  if (!FT || !match(&I, m_c_BinOp(m_Value(X), m_APInt(Mask))) ||
      !mayHoldFloatBits(X))
    return nullptr;
  bool Negates = I.getOpcode() == Instruction::Xor && Mask->isSignMask();
  bool ClearsSign =
      I.getOpcode() == Instruction::And && Mask->isMaxSignedValue();
  if (!Negates && !ClearsSign)
    return nullptr;
  IRBuilder<> B(&I);
  Value *F = B.CreateBitCast(X, FT, X->getName() + ".float");
  Value *R =
      Negates ? B.CreateFNeg(F) : B.CreateUnaryIntrinsic(Intrinsic::fabs, F);
  return B.CreateBitCast(R, I.getType(), I.getName());
}

bool rewriteSignBitLogic(Function &F) {
  SmallVector<BinaryOperator *, 8> Logic;
  for (Instruction &I : instructions(F))
    if (auto *BO = dyn_cast<BinaryOperator>(&I);
        BO && (BO->getOpcode() == Instruction::Xor ||
               BO->getOpcode() == Instruction::And))
      Logic.push_back(BO);
  bool Changed = false;
  for (BinaryOperator *BO : Logic)
    if (Value *Same = signBitOperation(*BO)) {
      Same->takeName(BO);
      BO->replaceAllUsesWith(Same);
      BO->eraseFromParent();
      Changed = true;
    }
  return Changed;
}

} // namespace ad
