//===- StableCallArgs.cpp - callee arguments the reverse pass may read again
//===//
#include "unzip/StableCallArgs.h"
#include "driver/DerivedFunctions.h"
#include "driver/Differentiator.h"
#include "unzip/RereadableLoads.h"

#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstrTypes.h"

#define DEBUG_TYPE "ad-unzip"

using namespace llvm;

STATISTIC(NumStableCallArgs,
          "Number of callee pointer arguments proven stable at a call");

namespace ad {

/// Whether \p Callee (a JVP) is one whose activity a call site may refine:
/// differentiated from the body of its primal, not checkpointed (the call's
/// own check covers it), not for a handle, and not the caller itself.
static bool mayRefine(const DerivedInfo &Info, const Function &Caller,
                      Differentiator &D) {
  const Function &Primal = *Info.Primal;
  return !Info.Act.checkpoint() && !Info.Act.forHandle() &&
         !Info.Act.stableArgs().any() && !Primal.isDeclaration() &&
         !D.rules().customJvp(Primal) && &Primal != &Caller;
}

/// The pointer parameters of \p Primal whose arguments at \p CB keep their
/// memory until the reverse pass.
static SmallBitVector stableArgsAt(CallBase &CB, const Function &Primal,
                                   RereadableLoads &Reread) {
  SmallBitVector Stable(Primal.arg_size());
  for (const Argument &A : Primal.args()) {
    if (!A.getType()->isPointerTy() || A.hasPassPointeeByValueCopyAttr())
      continue;
    if (!Reread.whyChangedAfterCall(CB, A.getArgNo(), Primal.arg_size())) {
      Stable.set(A.getArgNo());
      ++NumStableCallArgs;
    }
  }
  return Stable;
}

Function *retargetToStableArgs(CallBase &CB, Function &Callee,
                               RereadableLoads &Reread, Differentiator &D) {
  std::optional<DerivedInfo> Info = getDerivedInfo(Callee);
  if (!Reread.enabled() || !Info || !Info->Primal)
    return &Callee;
  std::optional<DerivedInfo> CallerInfo = getDerivedInfo(*CB.getFunction());
  if (!CallerInfo || !mayRefine(*Info, *CallerInfo->Primal, D))
    return &Callee;
  SmallBitVector Stable = stableArgsAt(CB, *Info->Primal, Reread);
  if (Stable.none())
    return &Callee;
  Function *Refined =
      D.getJvp(*Info->Primal, Info->Act.withStableArgs(Stable), &CB);
  if (!Refined)
    return nullptr;
  // The same roles give the same signature; anything else keeps the call.
  if (Refined->getFunctionType() != Callee.getFunctionType())
    return &Callee;
  CB.setCalledFunction(Refined);
  return Refined;
}

} // namespace ad
