//===- RoundingBarrier.cpp - rounding by adding 2^52 behind a barrier -----===//
#include "prepare/RoundingBarrier.h"
#include "ir/LLVMCompat.h"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/PatternMatch.h"

using namespace llvm;
using namespace llvm::PatternMatch;

namespace ad {

/// Whether \p C is 2^(p-1) for the precision p of its floating-point type
/// (or a splat of it): the smallest power of two with integer spacing.
static bool isIntegerSpacingPower(const Constant *C) {
  const APFloat *V;
  if (!match(C, m_APFloat(V)))
    return false;
  unsigned Precision = APFloat::semanticsPrecision(V->getSemantics());
  APFloat Power = scalbn(APFloat::getOne(V->getSemantics()), Precision - 1,
                         APFloat::rmNearestTiesToEven);
  return V->bitwiseIsEqual(Power);
}

/// The value an empty inline assembly statement pins, if \p CI is one: a
/// value tied to a memory or register output ("+g,x" of an lvalue, as
/// clang lowers it: "=*imr|x,0" through the lvalue's address, "=imr|x,0"
/// as a result).
static Value *pinnedValue(const CallInst &CI) {
  const auto *IA = dyn_cast<InlineAsm>(CI.getCalledOperand());
  if (!IA || !IA->getAsmString().empty())
    return nullptr;
  StringRef C = IA->getConstraintString();
  C.consume_back(",~{dirflag},~{fpsr},~{flags}");
  if (C == "=*imr|x,0" && CI.arg_size() == 2 && CI.getType()->isVoidTy())
    return CI.getArgOperand(1);
  if (C == "=imr|x,0" && CI.arg_size() == 1 &&
      CI.getType() == CI.getArgOperand(0)->getType())
    return CI.getArgOperand(0);
  return nullptr;
}

/// The addend A of \p Sum = A + 2^(p-1), when A cannot be less than zero.
static Value *roundedAddend(Value *Sum, const DataLayout &DL) {
  Value *A;
  Constant *Power;
  if (!match(Sum, m_c_FAdd(m_Value(A), m_Constant(Power))) ||
      !isIntegerSpacingPower(Power))
    return nullptr;
  auto *I = cast<Instruction>(Sum);
  return ad::cannotBeOrderedLessThanZero(A, SimplifyQuery(DL, I)) ? A : nullptr;
}

void rewriteRoundingBarriers(Function &F) {
  SmallVector<CallInst *, 4> Barriers;
  for (Instruction &I : instructions(F))
    if (auto *CI = dyn_cast<CallInst>(&I); CI && CI->isInlineAsm())
      Barriers.push_back(CI);
  const DataLayout &DL = F.getDataLayout();
  for (CallInst *CI : Barriers) {
    Value *Sum = pinnedValue(*CI);
    Value *A = Sum ? roundedAddend(Sum, DL) : nullptr;
    if (!A)
      continue;
    auto *Add = cast<Instruction>(Sum);
    IRBuilder<> B(Add);
    Value *Rounded = B.CreateUnaryIntrinsic(Intrinsic::rint, A);
    Value *Exact =
        B.CreateFAdd(Rounded, Add->getOperand(A == Add->getOperand(0)),
                     Add->getName() + ".rounded");
    // The same bits as the sum, with the derivative of rounding.
    Add->replaceAllUsesWith(Exact);
    B.SetInsertPoint(CI);
    if (CI->getType()->isVoidTy())
      B.CreateStore(Exact, CI->getArgOperand(0));
    else
      CI->replaceAllUsesWith(Exact);
    CI->eraseFromParent();
  }
}

} // namespace ad
