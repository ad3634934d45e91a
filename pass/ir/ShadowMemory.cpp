//===- ShadowMemory.cpp - allocating and copying shadow memory ------------===//
#include "ir/ShadowMemory.h"

#include "llvm/IR/Module.h"

using namespace llvm;

namespace ad {

static constexpr StringLiteral ShadowLiveFn = "__ad_shadow_live";
static constexpr StringLiteral ElemMD = "ad.elem";

static Type *intPtrTy(IRBuilderBase &B) {
  Module &M = *B.GetInsertBlock()->getModule();
  return M.getDataLayout().getIntPtrType(M.getContext());
}

Value *allocationSize(IRBuilderBase &B, CallBase &CB) {
  StringRef Name = CB.getCalledFunction()->getName();
  Type *SizeTy = intPtrTy(B);
  if (Name == "calloc")
    return B.CreateMul(B.CreateZExtOrTrunc(CB.getArgOperand(0), SizeTy),
                       B.CreateZExtOrTrunc(CB.getArgOperand(1), SizeTy));
  if (Name == "aligned_alloc" || Name == "memalign")
    return B.CreateZExtOrTrunc(CB.getArgOperand(1), SizeTy);
  if (Name == "posix_memalign")
    return B.CreateZExtOrTrunc(CB.getArgOperand(2), SizeTy);
  if (Name == "malloc" || Name.starts_with("_Znwm") ||
      Name.starts_with("_Znam"))
    return B.CreateZExtOrTrunc(CB.getArgOperand(0), SizeTy);
  return nullptr;
}

bool knowsAllocationSize(const CallBase &CB) {
  const Function *F = CB.getCalledFunction();
  if (!F)
    return false;
  StringRef Name = F->getName();
  return Name == "calloc" || Name == "aligned_alloc" || Name == "memalign" ||
         Name == "malloc" || Name.starts_with("_Znwm") ||
         Name.starts_with("_Znam");
}

Value *allocationAlignment(IRBuilderBase &B, CallBase &CB) {
  StringRef Name = CB.getCalledFunction()->getName();
  if (Name == "aligned_alloc" || Name == "memalign")
    return B.CreateZExtOrTrunc(CB.getArgOperand(0), intPtrTy(B));
  if (Name == "posix_memalign")
    return B.CreateZExtOrTrunc(CB.getArgOperand(1), intPtrTy(B));
  return nullptr;
}

Value *emitShadowAllocation(IRBuilderBase &B, Value *Size, Value *Align) {
  Module &M = *B.GetInsertBlock()->getModule();
  Type *SizeTy = intPtrTy(B);
  Type *Ptr = PointerType::getUnqual(M.getContext());
  if (!Align) {
    FunctionCallee Calloc =
        M.getOrInsertFunction("calloc", Ptr, SizeTy, SizeTy);
    return B.CreateCall(Calloc, {ConstantInt::get(SizeTy, 1), Size});
  }
  // Code may rely on the alignment the primal block was promised (aligned
  // vector accesses), and the shadow's accesses copy the primal's. C11's
  // aligned_alloc wants a size that is a multiple of the alignment.
  Value *Mask = B.CreateSub(Align, ConstantInt::get(SizeTy, 1));
  Value *Rounded = B.CreateAnd(B.CreateAdd(Size, Mask), B.CreateNot(Mask));
  FunctionCallee AlignedAlloc =
      M.getOrInsertFunction("aligned_alloc", Ptr, SizeTy, SizeTy);
  Value *Shadow = B.CreateCall(AlignedAlloc, {Align, Rounded});
  B.CreateMemSet(Shadow, B.getInt8(0), Rounded, MaybeAlign());
  return Shadow;
}

static CallInst *callOnShadow(IRBuilderBase &B, StringRef Name, Value *Shadow) {
  Module &M = *B.GetInsertBlock()->getModule();
  FunctionCallee Fn =
      M.getOrInsertFunction(Name, Type::getVoidTy(M.getContext()),
                            PointerType::getUnqual(M.getContext()));
  return B.CreateCall(Fn, {Shadow});
}

CallInst *emitShadowLive(IRBuilderBase &B, Value *Shadow) {
  return callOnShadow(B, ShadowLiveFn, Shadow);
}

static bool calls(const Instruction &I, StringRef Name) {
  auto *CI = dyn_cast<CallInst>(&I);
  const Function *F = CI ? CI->getCalledFunction() : nullptr;
  return F && F->getName() == Name;
}

bool isShadowLive(const Instruction &I) { return calls(I, ShadowLiveFn); }

static constexpr StringLiteral SnapshotLiveFn = "__ad_snapshot_live";

CallInst *emitSnapshotLive(IRBuilderBase &B, Value *Copy) {
  return callOnShadow(B, SnapshotLiveFn, Copy);
}

bool isSnapshotLive(const Instruction &I) { return calls(I, SnapshotLiveFn); }

CallInst *emitSnapshotFree(IRBuilderBase &B, Value *Copy) {
  return callOnShadow(B, "__ad_free", Copy);
}

CallInst *emitShadowFree(IRBuilderBase &B, Value *Shadow) {
  return callOnShadow(B, "free", Shadow);
}

bool isShadowFree(const Instruction &I) { return calls(I, "free"); }

static constexpr StringLiteral ShadowFreedFn = "__ad_shadow_freed";

CallInst *emitShadowFreed(IRBuilderBase &B, Value *Shadow) {
  return callOnShadow(B, ShadowFreedFn, Shadow);
}

CallInst *emitShadowRelease(IRBuilderBase &B, Value *Shadow) {
  return callOnShadow(B, "__ad_shadow_release", Shadow);
}

Value *emitShadowFreesBegin(IRBuilderBase &B) {
  Module &M = *B.GetInsertBlock()->getModule();
  Function *NotesFrees = M.getFunction(ShadowFreedFn);
  if (!NotesFrees || NotesFrees->use_empty())
    return nullptr;
  return B.CreateCall(
      M.getOrInsertFunction("__ad_shadow_frees_begin", intPtrTy(B)));
}

void emitShadowFreesEnd(IRBuilderBase &B, Value *Mark) {
  Module &M = *B.GetInsertBlock()->getModule();
  B.CreateCall(M.getOrInsertFunction("__ad_shadow_frees_end", B.getVoidTy(),
                                     Mark->getType()),
               {Mark});
}

void tagShadowElementType(Instruction &Copy, Type *Elem) {
  Copy.setMetadata(
      ElemMD, MDNode::get(Copy.getContext(),
                          {ConstantAsMetadata::get(PoisonValue::get(Elem))}));
}

CallInst *emitCopyTranspose(IRBuilderBase &B, const MemTransferInst &Copy,
                            Value *Dst, Value *Src, Value *Len) {
  MDNode *MD = Copy.getMetadata(ElemMD);
  assert(MD && "linear copy without element type");
  Type *Elem = cast<ConstantAsMetadata>(MD->getOperand(0))->getType();
  std::string Name = (isa<MemMoveInst>(Copy) ? "__ad_memmove_adjoint_"
                                             : "__ad_memcpy_adjoint_");
  Name += Elem->isFloatTy() ? "f32" : Elem->isX86_FP80Ty() ? "f80" : "f64";
  Module &M = *B.GetInsertBlock()->getModule();
  Type *Ptr = PointerType::getUnqual(M.getContext());
  Type *SizeTy = intPtrTy(B);
  FunctionCallee Fn = M.getOrInsertFunction(
      Name, Type::getVoidTy(M.getContext()), Ptr, Ptr, SizeTy);
  return B.CreateCall(Fn, {Dst, Src, B.CreateZExtOrTrunc(Len, SizeTy)});
}

static constexpr StringLiteral HandleRebaseFn = "__ad_linear_rebase";

CallInst *emitHandleRebase(IRBuilderBase &B, Value *Addr) {
  Module &M = *B.GetInsertBlock()->getModule();
  Function *Rebase = M.getFunction(HandleRebaseFn);
  if (!Rebase) {
    Rebase =
        Function::Create(FunctionType::get(B.getPtrTy(), {B.getPtrTy()}, false),
                         GlobalValue::ExternalLinkage, HandleRebaseFn, M);
    // It reads the runtime's per-thread shadows only: calls with the same
    // address may be merged and hoisted.
    Rebase->setMemoryEffects(
        MemoryEffects::inaccessibleMemOnly(ModRefInfo::Ref));
    Rebase->setDoesNotThrow();
    Rebase->addFnAttr(Attribute::WillReturn);
    Rebase->addFnAttr(Attribute::NoSync);
  }
  return B.CreateCall(Rebase, {Addr}, Addr->getName() + ".shadow");
}

bool isHandleRebase(const Instruction &I) { return calls(I, HandleRebaseFn); }

static constexpr StringLiteral HandleShadowLoadFn = "__ad_linear_shadow_load";

CallInst *emitHandleShadowLoad(IRBuilderBase &B, Value *Addr) {
  Module &M = *B.GetInsertBlock()->getModule();
  FunctionCallee Fn =
      M.getOrInsertFunction(HandleShadowLoadFn, B.getPtrTy(), B.getPtrTy());
  return B.CreateCall(Fn, {Addr});
}

bool isHandleShadowLoad(const Instruction &I) {
  return calls(I, HandleShadowLoadFn);
}

} // namespace ad
