//===- Reallocations.cpp - realloc as malloc, copy and free ---------------===//
#include "prepare/Reallocations.h"
#include "prepare/Activity.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;

namespace ad {

/// realloc(ptr, size_t) or reallocarray(ptr, size_t, size_t) -> ptr.
static bool hasReallocationPrototype(const CallBase &CB) {
  const Function *F = CB.getCalledFunction();
  if (!F || !F->isDeclaration() || !isReallocationCall(&CB))
    return false;
  FunctionType *FT = F->getFunctionType();
  unsigned NumSizes = F->getName() == "realloc" ? 1 : 2;
  if (!FT->getReturnType()->isPointerTy() ||
      FT->getNumParams() != 1 + NumSizes || !FT->getParamType(0)->isPointerTy())
    return false;
  for (unsigned K = 1; K <= NumSizes; ++K)
    if (!FT->getParamType(K)->isIntegerTy())
      return false;
  return true;
}

/// The bytes realloc is asked for; reallocarray's product, or -1 (which
/// malloc refuses) when it overflows.
static Value *requestedBytes(IRBuilderBase &B, CallBase &CB) {
  Value *N = CB.getArgOperand(1);
  if (CB.arg_size() == 2)
    return N;
  Value *Product = B.CreateBinaryIntrinsic(Intrinsic::umul_with_overflow, N,
                                           CB.getArgOperand(2));
  return B.CreateSelect(B.CreateExtractValue(Product, 1),
                        Constant::getAllOnesValue(N->getType()),
                        B.CreateExtractValue(Product, 0));
}

static void rewriteReallocation(CallBase &CB) {
  Module &M = *CB.getModule();
  LLVMContext &Ctx = M.getContext();
  Type *Ptr = PointerType::getUnqual(Ctx);
  IRBuilder<> B(&CB);
  Value *Old = CB.getArgOperand(0);
  Value *Bytes = requestedBytes(B, CB);
  Type *SizeTy = Bytes->getType();
  FunctionCallee Malloc = M.getOrInsertFunction("malloc", Ptr, SizeTy);
  FunctionCallee Usable =
      M.getOrInsertFunction("malloc_usable_size", SizeTy, Ptr);
  FunctionCallee Free = M.getOrInsertFunction("free", B.getVoidTy(), Ptr);
  if (auto *F = dyn_cast<Function>(Usable.getCallee())) {
    // It reads the allocator's bookkeeping only: primal code, no derivative.
    F->setOnlyReadsMemory();
    F->setDoesNotThrow();
    F->setWillReturn();
  }
  CallInst *New = B.CreateCall(Malloc, {Bytes}, CB.getName() + ".new");
  New->setDebugLoc(CB.getDebugLoc());
  Value *Got = B.CreateIsNotNull(New);
  BasicBlock *Head = New->getParent();
  Instruction *Then = SplitBlockAndInsertIfThen(Got, &CB, false);
  B.SetInsertPoint(Then);
  Value *Kept = B.CreateBinaryIntrinsic(Intrinsic::umin,
                                        B.CreateCall(Usable, {Old}), Bytes);
  B.CreateMemCpy(New, MaybeAlign(1), Old, MaybeAlign(1), Kept)
      ->setDebugLoc(CB.getDebugLoc());
  B.CreateCall(Free, {Old})->setDebugLoc(CB.getDebugLoc());
  B.SetInsertPoint(&CB);
  PHINode *Result = B.CreatePHI(Ptr, 2, CB.getName());
  Result->addIncoming(New, Then->getParent());
  Result->addIncoming(Constant::getNullValue(Ptr), Head);
  CB.replaceAllUsesWith(Result);
  CB.eraseFromParent();
}

void rewriteReallocations(Function &F) {
  SmallVector<CallBase *, 4> Calls;
  for (Instruction &I : instructions(F))
    if (auto *CB = dyn_cast<CallInst>(&I); CB && hasReallocationPrototype(*CB))
      Calls.push_back(CB);
  for (CallBase *CB : Calls)
    rewriteReallocation(*CB);
}

} // namespace ad
