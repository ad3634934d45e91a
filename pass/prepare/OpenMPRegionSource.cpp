//===- OpenMPRegionSource.cpp - the copy of a parallel region -------------===//
#include "prepare/OpenMPRegionSource.h"
#include "driver/Diagnostics.h"
#include "linearize/JvpRules.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace ad {

/// The runtime's value for "combine with atomic operations".
static constexpr unsigned AtomicCombine = 2;

/// Whether every use of \p Reduce is a switch with an atomic case.
static bool hasAtomicCombine(const CallBase &Reduce) {
  if (Reduce.use_empty())
    return false;
  return llvm::all_of(Reduce.users(), [](const User *U) {
    auto *SW = dyn_cast<SwitchInst>(U);
    if (!SW)
      return false;
    for (auto Case : SW->cases())
      if (Case.getCaseValue()->equalsInt(AtomicCombine))
        return true;
    return false;
  });
}

bool combineReductionsAtomically(Function &F, Diagnostics &Diags) {
  SmallVector<CallBase *, 2> Reductions;
  for (Instruction &I : instructions(F))
    if (auto *CB = dyn_cast<CallBase>(&I))
      if (Function *Callee = CB->getCalledFunction();
          Callee && Callee->getName() == "__kmpc_reduce_nowait")
        Reductions.push_back(CB);
  for (CallBase *CB : Reductions) {
    if (!hasAtomicCombine(*CB)) {
      Diags.errorAt(*CB, "cannot differentiate this OpenMP reduction: only "
                         "reductions that can combine with atomic additions "
                         "('reduction(+:s)' of float or double) are "
                         "supported");
      return false;
    }
    CB->replaceAllUsesWith(ConstantInt::get(CB->getType(), AtomicCombine));
    CB->eraseFromParent();
  }
  return true;
}

void markSchedulingOutParameters(Function &F) {
  for (Instruction &I : instructions(F)) {
    auto *CB = dyn_cast<CallBase>(&I);
    Function *Callee = CB ? CB->getCalledFunction() : nullptr;
    if (!Callee || !(Callee->getName().starts_with("__kmpc_for_static_init_") ||
                     Callee->getName().starts_with("__kmpc_dispatch_next_")))
      continue;
    for (unsigned K = 0; K < CB->arg_size(); ++K)
      if (CB->getArgOperand(K)->getType()->isPointerTy())
        CB->addParamAttr(K, Attribute::NoCapture);
  }
}

void markMathCallsPure(Function &F, const TargetLibraryInfo &TLI) {
  for (Instruction &I : instructions(F))
    if (isScalarMathCall(I, &TLI))
      cast<CallBase>(I).setDoesNotAccessMemory();
}

} // namespace ad
