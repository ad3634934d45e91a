//===- TapeRuntime.cpp - calls of libADRuntime that generated code makes --===//
#include "TapeRuntime.h"
#include "Linearity.h"

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
    F->addRetAttr(Attribute::getWithAlignment(Ctx, Align(16)));
    // Never noalias: a pushed record looks like an allocation nobody reads,
    // and DSE would delete the stores that f.rev reads back through pop.
  }
  return FC;
}

CallInst *emitTapeCall(IRBuilderBase &B, TapeOp Op, Type *RecordTy) {
  Module &M = *B.GetInsertBlock()->getModule();
  uint64_t Size = M.getDataLayout().getTypeAllocSize(RecordTy);
  Type *SizeTy = M.getDataLayout().getIntPtrType(M.getContext());
  return B.CreateCall(tapeFunction(M, Op), {ConstantInt::get(SizeTy, Size)},
                      "record");
}

bool isTapeCall(const Value *V, TapeOp Op) {
  auto *CI = dyn_cast<CallInst>(V);
  const Function *F = CI ? CI->getCalledFunction() : nullptr;
  return F && F->getName() == tapeFunctionName(Op);
}

void markCalleeTapeOnStack(Instruction *LinCall, Type *TapeTy) {
  Module &M = *LinCall->getModule();
  uint64_t Size = M.getDataLayout().getTypeAllocSize(TapeTy);
  Type *I64 = Type::getInt64Ty(M.getContext());
  LinCall->setMetadata(CalleeTapeOnStackMD,
                       MDNode::get(M.getContext(),
                                   {ConstantAsMetadata::get(ConstantInt::get(I64, Size))}));
}

std::optional<uint64_t> calleeTapeOnStackSize(const Instruction &LinCall) {
  MDNode *MD = LinCall.getMetadata(CalleeTapeOnStackMD);
  if (!MD)
    return std::nullopt;
  return mdconst::extract<ConstantInt>(MD->getOperand(0))->getZExtValue();
}

CallInst *emitPopOfSize(IRBuilderBase &B, uint64_t Size) {
  Module &M = *B.GetInsertBlock()->getModule();
  Type *SizeTy = M.getDataLayout().getIntPtrType(M.getContext());
  return B.CreateCall(tapeFunction(M, TapeOp::Pop), {ConstantInt::get(SizeTy, Size)});
}

CallInst *emitPopFor(IRBuilderBase &B, const CallInst &Read) {
  Module &M = *B.GetInsertBlock()->getModule();
  return B.CreateCall(tapeFunction(M, TapeOp::Pop), {Read.getArgOperand(0)},
                      "record");
}

} // namespace ad
