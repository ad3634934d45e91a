//===- IndirectCalls.cpp - differentiating calls through pointers ---------===//
#include "driver/IndirectCalls.h"
#include "driver/CustomRules.h"
#include "driver/DerivedFunctions.h"
#include "driver/MarkerLowering.h"
#include "linearize/JvpRules.h"
#include "prepare/Activity.h"

#include "llvm/IR/IRBuilder.h"

using namespace llvm;

namespace ad {

static constexpr StringLiteral DispatcherAttr = "ad-dispatcher";

/// A use in ADPass's registrations (AD_CUSTOM_JVP, AD_INACTIVE) or an
/// llvm.used list, possibly through constant arrays and casts.
static bool isBookkeeping(const User *U) {
  if (auto *GV = dyn_cast<GlobalVariable>(U))
    return GV->getName().starts_with("llvm.") ||
           GV->getName().contains("__ad_custom_jvp_") ||
           GV->getName().contains("__ad_inactive_");
  if (auto *C = dyn_cast<Constant>(U))
    return !C->user_empty() && llvm::all_of(C->users(), isBookkeeping);
  return false;
}

/// Whether the program can call \p F through a pointer: its address is
/// used other than by direct calls, derivative requests (__ad_gradient(f,
/// ...)) and bookkeeping.
static bool isAddressTakenByUser(const Function &F) {
  for (const Use &U : F.uses()) {
    const User *Usr = U.getUser();
    if (auto *CB = dyn_cast<CallBase>(Usr)) {
      if (CB->isCallee(&U) || namesRequestedFunction(U))
        continue;
      return true;
    }
    if (!isBookkeeping(Usr))
      return true;
  }
  return false;
}

bool isDispatcher(const Function &F) {
  return F.hasFnAttribute(DispatcherAttr);
}

void emitUndifferentiableTarget(IRBuilderBase &B, const Function &Target) {
  Module &M = *B.GetInsertBlock()->getModule();
  LLVMContext &Ctx = M.getContext();
  FunctionCallee Abort =
      M.getOrInsertFunction("__ad_undifferentiable_target",
                            Type::getVoidTy(Ctx), PointerType::getUnqual(Ctx));
  if (auto *AF = dyn_cast<Function>(Abort.getCallee())) {
    AF->setDoesNotReturn();
    AF->setDoesNotThrow();
  }
  B.CreateCall(Abort, {B.CreateGlobalString(displayName(Target),
                                            "ad.undifferentiable")});
}

Function *getDispatcher(Module &M, FunctionType *FT, const CustomRules &Rules) {
  for (Function &F : M)
    if (F.hasFnAttribute(DispatcherAttr) &&
        F.getFunctionType()->getNumParams() == FT->getNumParams() + 1 &&
        F.getReturnType() == FT->getReturnType() &&
        F.getFunctionType()->params().drop_front() == FT->params())
      return &F;

  // Possible targets: functions whose address is taken (stored, passed,
  // in a vtable) with exactly this type, and whose derivatives can be built:
  // bodies, custom rules, libm functions (sin in a table of functions) and
  // allocation functions (malloc and free in an allocator table), which
  // the dispatcher calls directly.
  SmallVector<Function *, 8> Targets;
  for (Function &F : M)
    if (F.getFunctionType() == FT && isAddressTakenByUser(F) &&
        !getDerivedInfo(F) && !F.hasFnAttribute(DispatcherAttr) &&
        (!F.isDeclaration() || Rules.customJvp(F) ||
         findLibmJvpRule(F, nullptr) || isAllocatorFunction(F)))
      Targets.push_back(&F);
  if (Targets.empty())
    return nullptr;

  LLVMContext &Ctx = M.getContext();
  SmallVector<Type *, 8> Params{PointerType::getUnqual(Ctx)};
  Params.append(FT->param_begin(), FT->param_end());
  Function *D =
      Function::Create(FunctionType::get(FT->getReturnType(), Params, false),
                       GlobalValue::InternalLinkage, "__ad_dispatch", M);
  D->addFnAttr(DispatcherAttr);
  D->getArg(0)->setName("target");
  SmallVector<Value *, 8> Args;
  for (unsigned K = 1; K < D->arg_size(); ++K)
    Args.push_back(D->getArg(K));

  BasicBlock *Test = BasicBlock::Create(Ctx, "entry", D);
  for (Function *T : Targets) {
    BasicBlock *Call = BasicBlock::Create(Ctx, "call." + T->getName(), D);
    BasicBlock *Next = BasicBlock::Create(Ctx, "next", D);
    IRBuilder<> B(Test);
    B.CreateCondBr(B.CreateICmpEQ(D->getArg(0), T), Call, Next);
    IRBuilder<> CB(Call);
    CallInst *R = CB.CreateCall(T, Args);
    R->setCallingConv(T->getCallingConv());
    if (FT->getReturnType()->isVoidTy())
      CB.CreateRetVoid();
    else
      CB.CreateRet(R);
    Test = Next;
  }
  IRBuilder<> B(Test);
  FunctionCallee Unknown = M.getOrInsertFunction(
      "__ad_unknown_target", Type::getVoidTy(Ctx), PointerType::getUnqual(Ctx));
  if (auto *UF = dyn_cast<Function>(Unknown.getCallee())) {
    UF->setDoesNotReturn();
    UF->setDoesNotThrow();
  }
  B.CreateCall(Unknown, {D->getArg(0)});
  B.CreateUnreachable();
  return D;
}

} // namespace ad
