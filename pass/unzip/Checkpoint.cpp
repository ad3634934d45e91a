//===- Checkpoint.cpp - AD_CHECKPOINT: recompute a call instead of taping -===//
#include "unzip/Checkpoint.h"
#include "driver/DerivedFunctions.h"
#include "ir/Linearity.h"
#include "linearize/JvpRules.h"
#include "prepare/Activity.h"
#include "unzip/TapeRuntime.h"

#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

#define DEBUG_TYPE "ad-unzip"

using namespace llvm;

STATISTIC(NumCheckpointed, "Number of checkpointed calls");

namespace ad {

Function *buildCheckpointJvp(Function &G, const Activity &A, Differentiator &D,
                             const Instruction *CallSite) {
  Function *Plain = D.getJvp(G, A.withCheckpoint(false), CallSite);
  if (!Plain)
    return nullptr;
  Module &M = *G.getParent();
  Function *JvpK =
      Function::Create(Plain->getFunctionType(), GlobalValue::InternalLinkage,
                       derivedName(G, "jvp", A), M);
  JvpK->copyAttributesFrom(Plain);
  tagDerived(*JvpK, DerivedKind::Jvp, G, A);
  IRBuilder<> B(BasicBlock::Create(M.getContext(), "entry", JvpK));
  SmallVector<Value *, 8> Args;
  for (Argument &Arg : JvpK->args())
    Args.push_back(&Arg);
  CallInst *Call = B.CreateCall(Plain, Args);
  Call->setAttributes(Plain->getAttributes());
  if (JvpK->getReturnType()->isVoidTy())
    B.CreateRetVoid();
  else
    B.CreateRet(Call);
  D.noteGenerated(JvpK);
  return JvpK;
}

//===----------------------------------------------------------------------===//
// What g may touch
//===----------------------------------------------------------------------===//

namespace {

/// Walks g.fwd (and the derived functions it calls) to check that running
/// it again changes nothing but memory of its own, and collects the
/// globals it reads, which must be unchanged too.
class EffectsCheck {
public:
  explicit EffectsCheck(const TargetLibraryInfo *TLI) : TLI(TLI) {}
  std::string Problem;
  const Instruction *Where = nullptr;
  SmallPtrSet<const GlobalVariable *, 4> GlobalsRead;

  /// \p Writable: the parameters of \p Fwd that point into memory of the
  /// checkpointed call's own.
  bool check(Function &Fwd, const SmallBitVector &Writable, unsigned Depth) {
    if (Depth > 32)
      return fail(nullptr, "its calls nest too deeply to be checked");
    for (Instruction &I : instructions(Fwd))
      if (!checkInstruction(I, Writable, Depth))
        return false;
    return true;
  }

private:
  const TargetLibraryInfo *TLI;

  bool fail(const Instruction *I, const Twine &Why) {
    Where = I;
    Problem = Why.str();
    return false;
  }

  /// Memory of the call's own: a local, a heap block or tape storage it
  /// allocates, its tape, a by-value copy, or what \p Writable says.
  static bool isOwn(const Value *Obj, const SmallBitVector &Writable) {
    if (isa<AllocaInst>(Obj) || isAllocationCall(Obj) ||
        isOutParamAllocationCall(Obj))
      return true;
    if (auto *CB = dyn_cast<CallBase>(Obj))
      if (const Function *F = CB->getCalledFunction())
        return F->getName().starts_with("__ad_");
    if (auto *A = dyn_cast<Argument>(Obj))
      return A->hasPassPointeeByValueCopyAttr() ||
             A->getArgNo() + 1 == A->getParent()->arg_size() || // the tape
             Writable.test(A->getArgNo());
    return false;
  }

  bool checkWrite(const Instruction &I, const Value *Ptr,
                  const SmallBitVector &Writable) {
    SmallVector<const Value *, 4> Objs;
    getUnderlyingObjects(Ptr, Objs);
    for (const Value *Obj : Objs)
      if (!isOwn(Obj, Writable))
        return fail(&I, "it writes memory that is not its own (results of a "
                        "checkpointed function must come back by value)");
    return true;
  }

  bool checkRead(const Instruction &I, const Value *Ptr,
                 const SmallBitVector &Writable) {
    SmallVector<const Value *, 4> Objs;
    getUnderlyingObjects(Ptr, Objs);
    for (const Value *Obj : Objs) {
      if (isOwn(Obj, Writable) || isa<Argument>(Obj))
        continue;
      if (auto *GV = dyn_cast<GlobalVariable>(Obj)) {
        if (!GV->isConstant())
          GlobalsRead.insert(GV);
        continue;
      }
      return fail(&I, "it reads through a pointer loaded from memory, which "
                      "may lead to memory that changes before the reverse "
                      "pass");
    }
    return true;
  }

  bool checkCall(CallBase &CB, const SmallBitVector &Writable, unsigned Depth) {
    Function *Callee = CB.getCalledFunction();
    if (Callee && Callee->getName().starts_with("__ad_"))
      return true; // the runtime: tape and shadow storage of ours
    if (isAllocationCall(&CB) || writesOnlyMathLibraryState(CB, TLI))
      return true;
    if (isDeallocationCall(&CB) || isOutParamAllocationCall(&CB))
      return checkWrite(CB, CB.getArgOperand(0), Writable);
    auto Info = Callee ? getDerivedInfo(*Callee) : std::nullopt;
    if (!Info || Info->Kind != DerivedKind::Fwd || Callee->isDeclaration())
      return fail(&CB, "it calls " +
                           (Callee ? "'" + displayName(*Callee) + "'"
                                   : std::string("a function through a "
                                                 "pointer")) +
                           ", whose effects cannot be repeated safely");
    SmallBitVector CalleeWritable(Callee->arg_size());
    for (unsigned K = 0; K < CB.arg_size(); ++K) {
      Value *Arg = CB.getArgOperand(K);
      if (!Arg->getType()->isPointerTy())
        continue;
      if (!checkRead(CB, Arg, Writable))
        return false;
      SmallVector<const Value *, 4> Objs;
      getUnderlyingObjects(Arg, Objs);
      CalleeWritable[K] = llvm::all_of(
          Objs, [&](const Value *O) { return isOwn(O, Writable); });
    }
    return check(*Callee, CalleeWritable, Depth + 1);
  }

  bool checkInstruction(Instruction &I, const SmallBitVector &Writable,
                        unsigned Depth) {
    if (auto *SI = dyn_cast<StoreInst>(&I))
      return checkWrite(I, SI->getPointerOperand(), Writable);
    if (auto *LI = dyn_cast<LoadInst>(&I))
      return checkRead(I, LI->getPointerOperand(), Writable);
    if (auto *MI = dyn_cast<AnyMemIntrinsic>(&I)) {
      if (auto *MT = dyn_cast<AnyMemTransferInst>(MI))
        if (!checkRead(I, MT->getRawSource(), Writable))
          return false;
      return checkWrite(I, MI->getRawDest(), Writable);
    }
    if (isa<IntrinsicInst>(I) || isa<DbgInfoIntrinsic>(I))
      return !I.mayWriteToMemory() ||
             fail(&I, "it calls an intrinsic that writes memory");
    if (auto *CB = dyn_cast<CallBase>(&I))
      return checkCall(*CB, Writable, Depth);
    if (I.mayWriteToMemory())
      return fail(&I, "it writes memory atomically");
    return true;
  }
};

} // namespace

static std::string lineOf(const Instruction *I) {
  if (I)
    if (const DebugLoc &DL = I->getDebugLoc(); DL && DL.getLine())
      return " (line " + std::to_string(DL.getLine()) + ")";
  return "";
}

bool checkCheckpointedCall(CallBase &Call, Differentiator &D,
                           RereadableLoads &Reread) {
  auto Info = getDerivedInfo(*Call.getCalledFunction());
  Function &G = *Info->Primal;
  Function *Fwd = findDerived(*G.getParent(), G, DerivedKind::Fwd,
                              Info->Act.withCheckpoint(false));
  std::string Head = "cannot checkpoint the call of '" + displayName(G) + "': ";
  EffectsCheck Effects(Fwd ? &D.tli(*Fwd) : nullptr);
  if (!Fwd || !Effects.check(*Fwd, SmallBitVector(Fwd->arg_size()), 0)) {
    D.diags().errorAt(Call, Head + Effects.Problem + lineOf(Effects.Where));
    return false;
  }
  // The memory g reads through its pointer arguments and the globals it
  // reads must still be as they are now when g runs again.
  auto IsCheckpointedCall = [](const Instruction &W) {
    auto *CB = dyn_cast<CallBase>(&W);
    Function *F = CB ? CB->getCalledFunction() : nullptr;
    auto WInfo = F ? getDerivedInfo(*F) : std::nullopt;
    return WInfo && WInfo->Act.checkpoint();
  };
  SmallVector<const Value *, 8> Read;
  for (unsigned K = 0; K < G.arg_size(); ++K)
    if (G.getArg(K)->getType()->isPointerTy() &&
        !G.getArg(K)->hasPassPointeeByValueCopyAttr())
      Read.push_back(Call.getArgOperand(K));
  Read.append(Effects.GlobalsRead.begin(), Effects.GlobalsRead.end());
  for (const Value *Ptr : Read)
    if (auto Why = Reread.whyChangedAfter(Ptr, Call, IsCheckpointedCall)) {
      D.diags().errorAt(Call, Head + "it reads " +
                                  (Why->Object.empty() ? std::string("memory")
                                                       : Why->Object) +
                                  ", " + Why->Reason);
      return false;
    }
  ++NumCheckpointed;
  return true;
}

//===----------------------------------------------------------------------===//
// g.fwd.k, g.lin.k and g.rev.k
//===----------------------------------------------------------------------===//

namespace {

class CheckpointBuilder {
public:
  CheckpointBuilder(Function &G, const Activity &A, const Unzipped &U,
                    Function &Rev)
      : G(G), A(A), U(U), Rev(Rev), M(*G.getParent()), Ctx(G.getContext()) {}

  Unzipped build() {
    layoutTape();
    Function *Fwd = buildFwd();
    Function *Lin = buildRerun(DerivedKind::Lin, U.Lin);
    buildRerun(DerivedKind::Rev, &Rev);
    return Unzipped{Fwd, Lin, TapeTy};
  }

private:
  Function &G;
  const Activity &A;
  const Unzipped &U;
  Function &Rev;
  Module &M;
  LLVMContext &Ctx;
  StructType *TapeTy = nullptr;

  /// g.fwd's parameters but the tape: what running g.fwd again needs.
  unsigned numSaved() const { return U.Fwd->arg_size() - 1; }
  Type *byValType(unsigned K) const { return U.Fwd->getParamByValType(K); }

  void layoutTape() {
    SmallVector<Type *, 8> Fields;
    for (unsigned K = 0; K < numSaved(); ++K)
      Fields.push_back(byValType(K) ? byValType(K)
                                    : U.Fwd->getArg(K)->getType());
    TapeTy = StructType::create(Ctx, Fields, derivedName(G, "tape", A));
  }

  Function *create(DerivedKind K, FunctionType *Ty, const Function &Like) {
    Function *F = Function::Create(Ty, GlobalValue::InternalLinkage,
                                   derivedName(G, kindName(K), A), M);
    F->setAttributes(Like.getAttributes());
    tagDerived(*F, K, G, A);
    return F;
  }

  /// Saves g.fwd's arguments, then runs g itself: the primal result, none
  /// of g's residuals.
  Function *buildFwd() {
    Function *Fwd = create(DerivedKind::Fwd, U.Fwd->getFunctionType(), *U.Fwd);
    IRBuilder<> B(BasicBlock::Create(Ctx, "entry", Fwd));
    Argument *Tape = Fwd->getArg(numSaved());
    const DataLayout &DL = M.getDataLayout();
    for (unsigned K = 0; K < numSaved(); ++K) {
      Value *Field = B.CreateStructGEP(TapeTy, Tape, K);
      if (Type *T = byValType(K))
        B.CreateMemCpy(Field, MaybeAlign(), Fwd->getArg(K), MaybeAlign(),
                       DL.getTypeAllocSize(T));
      else
        B.CreateStore(Fwd->getArg(K), Field);
    }
    SmallVector<Value *, 8> Args;
    for (unsigned K = 0; K < G.arg_size(); ++K)
      Args.push_back(Fwd->getArg(K));
    CallInst *Y = B.CreateCall(&G, Args);
    Y->setAttributes(G.getAttributes());
    if (Fwd->getReturnType()->isVoidTy())
      B.CreateRetVoid();
    else
      B.CreateRet(Y);
    return Fwd;
  }

  /// g.fwd again, from the saved arguments, into a tape of this frame;
  /// then \p Then (g.lin or g.rev) on that tape with this function's other
  /// parameters. g.lin reads g.fwd's records forwards, so around it the
  /// read cursor moves to them and back, and they are dropped after.
  Function *buildRerun(DerivedKind K, Function *Then) {
    Function *F = create(K, Then->getFunctionType(), *Then);
    IRBuilder<> B(BasicBlock::Create(Ctx, "entry", F));
    Value *GTape = B.CreateAlloca(U.Tape, nullptr, "gtape");
    SmallVector<Value *, 8> Saved;
    for (unsigned J = 0; J < numSaved(); ++J) {
      Value *Field = B.CreateStructGEP(TapeTy, F->getArg(0), J);
      Saved.push_back(byValType(J)
                          ? Field
                          : B.CreateLoad(TapeTy->getElementType(J), Field));
    }
    Saved.push_back(GTape);
    bool ReadsForwards = K == DerivedKind::Lin;
    Value *Mark = nullptr, *ReadPos = nullptr;
    if (ReadsForwards) {
      Mark = emitTapeMark(B);
      ReadPos = emitTapeReadPosition(B);
    }
    CallInst *Again = B.CreateCall(U.Fwd, Saved);
    Again->setAttributes(U.Fwd->getAttributes());
    if (ReadsForwards)
      emitTapeSeek(B, Mark);
    SmallVector<Value *, 8> Args{GTape};
    for (unsigned J = 1; J < F->arg_size(); ++J)
      Args.push_back(F->getArg(J));
    CallInst *Result = B.CreateCall(Then, Args);
    if (ReadsForwards) {
      markLinear(Result);
      emitTapeSeek(B, ReadPos);
      emitTapePopTo(B, Mark);
    }
    if (F->getReturnType()->isVoidTy())
      B.CreateRetVoid();
    else
      B.CreateRet(Result);
    return F;
  }
};

} // namespace

std::optional<Unzipped> unzipCheckpointed(Function &JvpK, Differentiator &D) {
  auto Info = getDerivedInfo(JvpK);
  Function &G = *Info->Primal;
  Activity Plain = Info->Act.withCheckpoint(false);
  Function *Jvp = findDerived(*G.getParent(), G, DerivedKind::Jvp, Plain);
  std::optional<Unzipped> U = Jvp ? D.getUnzipped(*Jvp) : std::nullopt;
  if (!U)
    return std::nullopt;
  if (U->Fwd->getReturnType() != G.getReturnType() || U->Tape->isOpaque()) {
    D.diags().errorAtRequest(
        "cannot checkpoint '" + displayName(G) +
        "': it returns a pointer or is recursive; not supported yet");
    return std::nullopt;
  }
  Function *Rev = D.getRev(*U->Lin);
  if (!Rev)
    return std::nullopt;
  Unzipped K = CheckpointBuilder(G, Info->Act, *U, *Rev).build();
  for (Function *F :
       {K.Fwd, K.Lin,
        findDerived(*G.getParent(), G, DerivedKind::Rev, Info->Act)})
    D.noteGenerated(F);
  return K;
}

} // namespace ad
