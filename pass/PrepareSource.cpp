//===- PrepareSource.cpp - a clean copy of a function to differentiate ----===//
#include "PrepareSource.h"
#include "Diagnostics.h"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Transforms/Scalar/EarlyCSE.h"
#include "llvm/Transforms/Scalar/SROA.h"
#include "llvm/Transforms/Scalar/SimplifyCFG.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/UnifyFunctionExitNodes.h"

using namespace llvm;

namespace ad {

/// Loads of read-only globals (tables of constants) are inactive data; every
/// other memory access needs shadow memory, which is not supported yet.
static bool isReadOfConstantMemory(const Instruction &I) {
  auto *LI = dyn_cast<LoadInst>(&I);
  if (!LI)
    return false;
  auto *GV = dyn_cast<GlobalVariable>(getUnderlyingObject(LI->getPointerOperand()));
  return GV && GV->isConstant();
}

/// Reports the first construct of \p F outside what ADPass handles today.
static bool checkSupported(Function &F, const Function &Orig,
                           Diagnostics &Diags) {
  for (Argument &A : F.args())
    if (A.getType()->isPointerTy() || A.getType()->isAggregateType()) {
      Diags.errorAt(*F.getEntryBlock().getFirstNonPHIOrDbg(),
                    "cannot differentiate '" + Orig.getName() +
                        "': parameter " + Twine(A.getArgNo() + 1) +
                        " is a pointer or aggregate, and memory is not "
                        "supported yet (scalar float/double/integer "
                        "parameters only)");
      return false;
    }
  for (Instruction &I : instructions(F)) {
    if (isa<DbgInfoIntrinsic>(I) || isa<LifetimeIntrinsic>(I))
      continue;
    if (isa<InvokeInst>(I) || isa<LandingPadInst>(I) || isa<ResumeInst>(I)) {
      Diags.errorAt(I, "cannot differentiate code with exception handling "
                       "(compile with -fno-exceptions)");
      return false;
    }
    if (I.mayReadOrWriteMemory() && !isa<CallBase>(I) &&
        !isReadOfConstantMemory(I)) {
      Diags.errorAt(I, "cannot differentiate a memory access (pointers, "
                       "arrays, structs in memory, mutable globals): not "
                       "supported yet");
      return false;
    }
    if (isa<MemIntrinsic>(I)) {
      Diags.errorAt(I, "cannot differentiate a memory copy or fill: memory "
                       "is not supported yet");
      return false;
    }
  }
  return true;
}

Function *prepareSource(Function &F, FunctionAnalysisManager &FAM,
                        Diagnostics &Diags) {
  ValueToValueMapTy VMap;
  Function *Src = CloneFunction(&F, VMap);
  Src->setName(F.getName() + ".ad.src");
  Src->setLinkage(GlobalValue::InternalLinkage);
  Src->removeFnAttr(Attribute::OptimizeNone);
  Src->removeFnAttr(Attribute::NoInline);

  FunctionPassManager FPM;
  FPM.addPass(SROAPass(SROAOptions::ModifyCFG));
  FPM.addPass(EarlyCSEPass());
  FPM.addPass(SimplifyCFGPass());
  FPM.addPass(UnifyFunctionExitNodesPass());
  FPM.run(*Src, FAM);
  FAM.clear(*Src, Src->getName());

  if (!checkSupported(*Src, F, Diags)) {
    Src->eraseFromParent();
    return nullptr;
  }
  return Src;
}

} // namespace ad
