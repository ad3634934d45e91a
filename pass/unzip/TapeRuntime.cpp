//===- TapeRuntime.cpp - calls of libADRuntime that generated code makes --===//
#include "unzip/TapeRuntime.h"
#include "ir/Linearity.h"

#include "llvm/IR/Module.h"

using namespace llvm;

namespace ad {

static StringRef tapeFunctionName(TapeOp Op) {
  switch (Op) {
  case TapeOp::Push:
    return "__ad_tape_push";
  case TapeOp::Read:
    return "__ad_tape_read";
  case TapeOp::Pop:
    return "__ad_tape_pop";
  }
  llvm_unreachable("unknown tape operation");
}

static FunctionCallee tapeFunction(Module &M, TapeOp Op) {
  LLVMContext &Ctx = M.getContext();
  Type *SizeTy = M.getDataLayout().getIntPtrType(Ctx);
  FunctionCallee FC = M.getOrInsertFunction(
      tapeFunctionName(Op),
      FunctionType::get(PointerType::getUnqual(Ctx), {SizeTy}, false));
  if (auto *F = dyn_cast<Function>(FC.getCallee())) {
    // Not willreturn: they abort (with a message) when memory runs out.
    F->setDoesNotThrow();
    F->addRetAttr(Attribute::getWithAlignment(Ctx, Align(TapeAlignment)));
    // Never noalias: a pushed record looks like an allocation nobody reads,
    // and DSE would delete the stores that f.rev reads back through pop.
  }
  return FC;
}

/// The size of a tape or record type. A tape still being laid out (that of
/// a function whose unzipping is in progress: mutual recursion) is opaque;
/// its size is read from a constant global set once its layout is known.
static Value *sizeOf(IRBuilderBase &B, Type *T) {
  Module &M = *B.GetInsertBlock()->getModule();
  Type *SizeTy = M.getDataLayout().getIntPtrType(M.getContext());
  if (T->isSized())
    return ConstantInt::get(SizeTy, M.getDataLayout().getTypeAllocSize(T));
  auto *ST = cast<StructType>(T);
  std::string Name = (ST->getName() + ".size").str();
  GlobalVariable *G = M.getNamedGlobal(Name);
  if (!G)
    G = new GlobalVariable(M, SizeTy, /*isConstant=*/true,
                           GlobalValue::InternalLinkage,
                           ConstantInt::get(SizeTy, 0), Name);
  return B.CreateLoad(SizeTy, G, Name);
}

void publishTapeSize(Module &M, StructType *TapeTy) {
  if (GlobalVariable *G = M.getNamedGlobal((TapeTy->getName() + ".size").str()))
    G->setInitializer(ConstantInt::get(
        G->getValueType(), M.getDataLayout().getTypeAllocSize(TapeTy)));
}

CallInst *emitTapeCall(IRBuilderBase &B, TapeOp Op, Type *RecordTy) {
  Module &M = *B.GetInsertBlock()->getModule();
  return B.CreateCall(tapeFunction(M, Op), {sizeOf(B, RecordTy)}, "record");
}

bool isTapeCall(const Value *V, TapeOp Op) {
  auto *CI = dyn_cast<CallInst>(V);
  const Function *F = CI ? CI->getCalledFunction() : nullptr;
  return F && F->getName() == tapeFunctionName(Op);
}

bool declaresTapeFunction(const Module &M, TapeOp Op) {
  return M.getFunction(tapeFunctionName(Op));
}

CallInst *emitTapeTrim(IRBuilderBase &B) {
  Module &M = *B.GetInsertBlock()->getModule();
  FunctionCallee FC = M.getOrInsertFunction("__ad_tape_trim", B.getVoidTy());
  if (auto *F = dyn_cast<Function>(FC.getCallee()))
    F->setDoesNotThrow();
  return B.CreateCall(FC);
}

bool callsTapeRuntime(const Value *V) {
  auto *CB = dyn_cast<CallBase>(V);
  const Function *F = CB ? CB->getCalledFunction() : nullptr;
  return F && F->getName().starts_with("__ad_tape_");
}

// The type, not its size: a recursive callee's tape may still be opaque
// here; its layout is known by the time f.rev is built.
void markCalleeTapeOnStack(Instruction *LinCall, Type *TapeTy) {
  LinCall->setMetadata(
      CalleeTapeOnStackMD,
      MDNode::get(LinCall->getContext(),
                  {ConstantAsMetadata::get(PoisonValue::get(TapeTy))}));
}

std::optional<uint64_t> calleeTapeOnStackSize(const Instruction &LinCall) {
  MDNode *MD = LinCall.getMetadata(CalleeTapeOnStackMD);
  if (!MD)
    return std::nullopt;
  Type *T = cast<ConstantAsMetadata>(MD->getOperand(0))->getType();
  return LinCall.getModule()->getDataLayout().getTypeAllocSize(T);
}

CallInst *emitPopOfSize(IRBuilderBase &B, uint64_t Size) {
  Module &M = *B.GetInsertBlock()->getModule();
  Type *SizeTy = M.getDataLayout().getIntPtrType(M.getContext());
  return B.CreateCall(tapeFunction(M, TapeOp::Pop),
                      {ConstantInt::get(SizeTy, Size)});
}

static Value *arrayBytes(IRBuilderBase &B, uint64_t RecordSize, Value *Count) {
  Module &M = *B.GetInsertBlock()->getModule();
  Type *SizeTy = M.getDataLayout().getIntPtrType(M.getContext());
  return B.CreateMul(B.CreateZExtOrTrunc(Count, SizeTy),
                     ConstantInt::get(SizeTy, RecordSize), "array.bytes");
}

CallInst *emitTapeArrayPush(IRBuilderBase &B, Type *RecordTy, Value *Count) {
  Module &M = *B.GetInsertBlock()->getModule();
  uint64_t Size = M.getDataLayout().getTypeAllocSize(RecordTy);
  return B.CreateCall(tapeFunction(M, TapeOp::Push),
                      {arrayBytes(B, Size, Count)}, "array");
}

CallInst *emitTapeArrayPop(IRBuilderBase &B, uint64_t RecordSize,
                           Value *Count) {
  Module &M = *B.GetInsertBlock()->getModule();
  return B.CreateCall(tapeFunction(M, TapeOp::Pop),
                      {arrayBytes(B, RecordSize, Count)});
}

Value *arrayElement(IRBuilderBase &B, Value *Array, Type *RecordTy, Value *K) {
  return B.CreateGEP(RecordTy, Array, K, "record");
}

static constexpr const char *CounterMD = "ad.counter";
static constexpr const char *LoopBaseMD = "ad.loop.base";
static constexpr const char *LoopCountMD = "ad.loop.count";

static ConstantAsMetadata *mdInt(LLVMContext &Ctx, unsigned Bits, uint64_t V) {
  return ConstantAsMetadata::get(
      ConstantInt::get(IntegerType::get(Ctx, Bits), V));
}

static uint64_t mdIntAt(const MDNode *MD, unsigned K) {
  return mdconst::extract<ConstantInt>(MD->getOperand(K))->getZExtValue();
}

void markCounter(PHINode *Counter, unsigned Id, Type *RecordTy) {
  LLVMContext &Ctx = Counter->getContext();
  uint64_t Size =
      Counter->getModule()->getDataLayout().getTypeAllocSize(RecordTy);
  Counter->setMetadata(
      CounterMD, MDNode::get(Ctx, {mdInt(Ctx, 32, Id), mdInt(Ctx, 64, Size)}));
}

std::optional<CounterInfo> counterInfo(const Instruction &I) {
  MDNode *MD = isa<PHINode>(I) ? I.getMetadata(CounterMD) : nullptr;
  if (!MD)
    return std::nullopt;
  return CounterInfo{unsigned(mdIntAt(MD, 0)), mdIntAt(MD, 1)};
}

void markLoopEntry(Instruction *Base, Instruction *Count, unsigned Id,
                   bool IsExit) {
  LLVMContext &Ctx = Count->getContext();
  MDNode *MD = MDNode::get(Ctx, {mdInt(Ctx, 32, Id), mdInt(Ctx, 1, IsExit)});
  if (Base)
    Base->setMetadata(LoopBaseMD, MD);
  Count->setMetadata(LoopCountMD, MD);
}

std::optional<LoopEntryInfo> loopEntryInfo(const Instruction &I) {
  if (!isa<LoadInst>(I) && !isa<BinaryOperator>(I))
    return std::nullopt;
  MDNode *MD = I.getMetadata(LoopBaseMD);
  bool IsBase = MD;
  if (!IsBase)
    MD = I.getMetadata(LoopCountMD);
  if (!MD)
    return std::nullopt;
  return LoopEntryInfo{unsigned(mdIntAt(MD, 0)), mdIntAt(MD, 1) != 0, IsBase};
}

CallInst *emitPopFor(IRBuilderBase &B, const CallInst &Read) {
  Module &M = *B.GetInsertBlock()->getModule();
  return B.CreateCall(tapeFunction(M, TapeOp::Pop), {Read.getArgOperand(0)},
                      "record");
}

} // namespace ad
