//===- OpenMPRegionSource.cpp - the copy of a parallel region -------------===//
#include "prepare/OpenMPRegionSource.h"
#include "driver/Diagnostics.h"
#include "ir/LLVMCompat.h"
#include "linearize/JvpRules.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

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

/// The first call after \p From in its block, or null.
static CallInst *nextCall(Instruction *From) {
  for (Instruction *I = From->getNextNode(); I; I = I->getNextNode())
    if (auto *CI = dyn_cast<CallInst>(I); CI && !isa<DbgInfoIntrinsic>(CI))
      return CI;
  return nullptr;
}

static bool calls(const CallInst *CI, StringRef Name) {
  const Function *F = CI ? CI->getCalledFunction() : nullptr;
  return F && F->getName() == Name;
}

/// `fork(loc, n, Body's callee, Body's arguments but the thread ids)` on a
/// team of one thread, before \p Start.
static void forkOnOneThread(CallInst &Start, CallInst &Body) {
  Module &M = *Start.getModule();
  LLVMContext &C = M.getContext();
  Type *Ptr = PointerType::getUnqual(C), *I32 = Type::getInt32Ty(C);
  IRBuilder<> B(&Start);
  Value *Loc = Start.getArgOperand(0), *Gtid = Start.getArgOperand(1);
  B.CreateCall(M.getOrInsertFunction("__kmpc_push_num_threads",
                                     Type::getVoidTy(C), Ptr, I32, I32),
               {Loc, Gtid, B.getInt32(1)});
  SmallVector<Value *, 8> Args{Loc, B.getInt32(Body.arg_size() - 2),
                               Body.getCalledOperand()};
  Args.append(Body.arg_begin() + 2, Body.arg_end());
  CallInst *Fork = B.CreateCall(
      M.getOrInsertFunction(
          "__kmpc_fork_call",
          FunctionType::get(Type::getVoidTy(C), {Ptr, I32, Ptr}, true)),
      Args);
  Fork->setDebugLoc(Body.getDebugLoc());
}

bool forkSerializedRegions(Function &F, Diagnostics &Diags) {
  SmallVector<CallInst *, 2> Starts;
  for (Instruction &I : instructions(F))
    if (auto *CI = dyn_cast<CallInst>(&I);
        CI && calls(CI, "__kmpc_serialized_parallel"))
      Starts.push_back(CI);
  for (CallInst *Start : Starts) {
    // The body's call is the next call; the end of the serialized region
    // the one after it (clang stores the thread ids in between).
    CallInst *Body = nextCall(Start);
    CallInst *End = Body ? nextCall(Body) : nullptr;
    Function *Region = Body ? Body->getCalledFunction() : nullptr;
    if (!Region || Region->isDeclaration() || Body->arg_size() < 2 ||
        !calls(End, "__kmpc_end_serialized_parallel")) {
      Diags.errorAt(*Start, "cannot differentiate this OpenMP parallel "
                            "region run without a team (its 'if' clause): "
                            "not supported in this form");
      return false;
    }
    forkOnOneThread(*Start, *Body);
    End->eraseFromParent();
    Body->eraseFromParent();
    Start->eraseFromParent();
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
        addNoCaptureParamAttr(*CB, K);
  }
}

void markMathCallsPure(Function &F, const TargetLibraryInfo &TLI) {
  for (Instruction &I : instructions(F))
    if (isScalarMathCall(I, &TLI))
      cast<CallBase>(I).setDoesNotAccessMemory();
}

} // namespace ad
