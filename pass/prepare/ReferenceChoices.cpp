//===- ReferenceChoices.cpp - std::max of references, inlined -------------===//
#include "prepare/ReferenceChoices.h"

#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Transforms/Utils/Cloning.h"

using namespace llvm;

namespace ad {

/// The parameters \p V may be, through choices and, at -O0, the locals the
/// parameters and the result are kept in; false if it may be anything
/// else.
static bool collectChosenParameters(const Value *V,
                                    SmallPtrSetImpl<const Value *> &Seen,
                                    SmallPtrSetImpl<const Argument *> &Params) {
  if (!Seen.insert(V).second)
    return true;
  if (auto *A = dyn_cast<Argument>(V)) {
    Params.insert(A);
    return true;
  }
  if (auto *Phi = dyn_cast<PHINode>(V))
    return llvm::all_of(Phi->incoming_values(), [&](const Value *In) {
      return collectChosenParameters(In, Seen, Params);
    });
  if (auto *Sel = dyn_cast<SelectInst>(V))
    return collectChosenParameters(Sel->getTrueValue(), Seen, Params) &&
           collectChosenParameters(Sel->getFalseValue(), Seen, Params);
  auto *LI = dyn_cast<LoadInst>(V);
  auto *Slot = LI ? dyn_cast<AllocaInst>(LI->getPointerOperand()) : nullptr;
  if (!Slot)
    return false;
  return llvm::all_of(Slot->users(), [&](const User *U) {
    if (isa<LoadInst>(U))
      return true;
    auto *SI = dyn_cast<StoreInst>(U);
    return SI && SI->getPointerOperand() == Slot &&
           collectChosenParameters(SI->getValueOperand(), Seen, Params);
  });
}

/// Whether \p F writes only its own locals and calls nothing but
/// intrinsics that mark lifetimes or debug information.
static bool touchesOnlyItsLocals(const Function &F) {
  for (const Instruction &I : instructions(F)) {
    if (auto *SI = dyn_cast<StoreInst>(&I)) {
      if (!isa<AllocaInst>(SI->getPointerOperand()))
        return false;
    } else if (auto *CB = dyn_cast<CallBase>(&I)) {
      auto *II = dyn_cast<IntrinsicInst>(CB);
      if (!II || !(II->isLifetimeStartOrEnd() || isa<DbgInfoIntrinsic>(II)))
        return false;
    } else if (I.mayWriteToMemory()) {
      return false;
    }
  }
  return true;
}

static bool choosesAParameter(const Function &F) {
  if (F.isDeclaration() || !F.getReturnType()->isPointerTy() || F.isVarArg() ||
      F.getInstructionCount() > 64 || !touchesOnlyItsLocals(F))
    return false;
  SmallPtrSet<const Value *, 16> Seen;
  SmallPtrSet<const Argument *, 4> Params;
  for (const Instruction &I : instructions(F))
    if (auto *Ret = dyn_cast<ReturnInst>(&I))
      if (!collectChosenParameters(Ret->getReturnValue(), Seen, Params))
        return false;
  return Params.size() >= 2;
}

void inlineReferenceChoices(Function &F) {
  SmallVector<CallInst *, 4> Calls;
  for (Instruction &I : instructions(F))
    if (auto *CI = dyn_cast<CallInst>(&I))
      if (Function *Callee = CI->getCalledFunction();
          Callee && Callee != &F && choosesAParameter(*Callee))
        Calls.push_back(CI);
  for (CallInst *CI : Calls) {
    InlineFunctionInfo IFI;
    InlineFunction(*CI, IFI);
  }
}

} // namespace ad
