//===- UnwindingRequests.cpp - requests whose function throws -------------===//
#include "driver/UnwindingRequests.h"
#include "ir/ExplicitUnwinding.h"
#include "ir/ShadowMemory.h"
#include "unzip/TapeRuntime.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/Local.h"

using namespace llvm;

namespace ad {

Function *guardedForward(Function &Fwd, Function &Rev,
                         const UnwindCleanup &Cleanup) {
  Module &M = *Fwd.getParent();
  LLVMContext &Ctx = M.getContext();
  SmallVector<Type *, 8> Params(Fwd.getFunctionType()->params());
  Type *IntPtr = M.getDataLayout().getIntPtrType(Ctx);
  if (Cleanup.EndFrees)
    Params.push_back(IntPtr);
  Function *G = Function::Create(
      FunctionType::get(Type::getVoidTy(Ctx), Params, false),
      GlobalValue::InternalLinkage, Fwd.getName() + ".guarded", M);
  G->setPersonalityFn(personalityFor(Fwd));
  BasicBlock *Entry = BasicBlock::Create(Ctx, "", G);
  BasicBlock *Done = BasicBlock::Create(Ctx, "done", G);
  BasicBlock *Unwound = BasicBlock::Create(Ctx, "unwound", G);
  IRBuilder<> B(Entry);
  SmallVector<Value *, 8> Args;
  for (unsigned K = 0; K < Fwd.arg_size(); ++K)
    Args.push_back(G->getArg(K));
  B.CreateInvoke(&Fwd, Done, Unwound, Args);
  B.SetInsertPoint(Done);
  B.CreateRetVoid();

  B.SetInsertPoint(Unwound);
  LandingPadInst *LP = B.CreateLandingPad(
      StructType::get(B.getPtrTy(), B.getInt32Ty()), 0, "exn");
  LP->setCleanup(true);
  Value *Tape = G->getArg(Fwd.arg_size() - 1); // f.fwd's last: the tape
  SmallVector<Value *, 2> RevArgs{Tape};
  if (Rev.arg_size() > 1)
    RevArgs.push_back(Constant::getNullValue(Rev.getArg(1)->getType()));
  B.CreateCall(&Rev, RevArgs);
  if (Cleanup.FreeTape)
    B.CreateCall(M.getOrInsertFunction("free", B.getVoidTy(), B.getPtrTy()),
                 {Tape});
  if (Cleanup.EndFrees)
    emitShadowFreesEnd(B, G->getArg(Fwd.arg_size()));
  if (Cleanup.TrimTape)
    emitTapeTrim(B);
  B.CreateResume(LP);
  return G;
}

CallBase *callInsteadOfInvoke(CallBase &Marker, BasicBlock *&UnwindDest) {
  auto *II = dyn_cast<InvokeInst>(&Marker);
  UnwindDest = nullptr;
  if (!II)
    return &Marker;
  UnwindDest = II->getUnwindDest();
  IRBuilder<> B(II);
  SmallVector<OperandBundleDef, 1> Bundles;
  II->getOperandBundlesAsDefs(Bundles);
  SmallVector<Value *, 8> Args(II->args());
  CallInst *Call = B.CreateCall(II->getFunctionType(), II->getCalledOperand(),
                                Args, Bundles);
  Call->takeName(II);
  Call->setAttributes(II->getAttributes());
  Call->setCallingConv(II->getCallingConv());
  Call->setDebugLoc(II->getDebugLoc());
  SmallVector<std::pair<unsigned, MDNode *>, 4> MDs;
  II->getAllMetadata(MDs);
  for (auto [Kind, MD] : MDs)
    if (Kind != LLVMContext::MD_prof)
      Call->setMetadata(Kind, MD);
  B.CreateBr(II->getNormalDest());
  II->replaceAllUsesWith(Call);
  II->eraseFromParent();
  return Call;
}

void unwindToHandler(CallInst *MayUnwind, BasicBlock *UnwindDest,
                     BasicBlock *MarkerBlock) {
  if (!UnwindDest)
    return;
  if (!MayUnwind) {
    UnwindDest->removePredecessor(MarkerBlock);
    return;
  }
  // The handler's phis take from the invoke's block what they took from
  // the marker's: values from before the marker, which dominate it.
  for (PHINode &Phi : UnwindDest->phis())
    Phi.replaceIncomingBlockWith(MarkerBlock, MayUnwind->getParent());
  changeToInvokeAndSplitBasicBlock(MayUnwind, UnwindDest);
}

} // namespace ad
