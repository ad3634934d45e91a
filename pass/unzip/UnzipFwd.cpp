//===- UnzipFwd.cpp - f.jvp -> f.fwd --------------------------------------===//
//
// Step 4 of unzipping (Unzip.cpp): f.fwd, the primal code of f.jvp that
// fills the tape the plan (TapePlan.cpp) laid out.
//
//===----------------------------------------------------------------------===//
#include "UnzipImpl.h"
#include "driver/DerivedFunctions.h"
#include "ir/Linearity.h"
#include "ir/ShadowMemory.h"
#include "linearize/Linearize.h"
#include "unzip/TapeRuntime.h"
#include "unzip/Unzip.h"

#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/Support/Debug.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/Local.h"

#define DEBUG_TYPE "ad-unzip"

using namespace llvm;

namespace ad {

/// f.fwd's signature: f's parameters, the shadows of its AD_DUP pointers
/// (shadow addresses are computed there and taped), then the tape.
Function *Unzipper::declareFwd() {
  Function &Primal = *Info.Primal;
  SmallVector<Type *, 8> Params(Primal.getFunctionType()->params());
  for (unsigned K = Primal.arg_size(); K < Jvp.arg_size(); ++K)
    if (!isTangentArg(*Jvp.getArg(K)))
      Params.push_back(Jvp.getArg(K)->getType());
  Params.push_back(PointerType::getUnqual(Jvp.getContext()));
  // A returned pointer (or struct of pointers) comes with its shadow, as
  // from f.jvp.
  Type *RetTy = isPointerLike(Primal.getReturnType()) ? Jvp.getReturnType()
                                                      : Primal.getReturnType();
  auto *FT = FunctionType::get(RetTy, Params, false);
  return Function::Create(FT, GlobalValue::InternalLinkage,
                          derivedName(Primal, "fwd", Info.Act),
                          Jvp.getParent());
}

/// Builds f.fwd from f.jvp: f.jvp's body, taken over or cloned, plus the
/// stores the tape plan asks for, minus the linear code.
class FwdBuilder {
public:
  FwdBuilder(Unzipper &U, Function &Fwd)
      : U(U), Layout(U.Layout), Jvp(U.Jvp), Primal(*U.Info.Primal), Fwd(Fwd),
        Ctx(Fwd.getContext()), I64(Type::getInt64Ty(Ctx)),
        TapePtr(Fwd.getArg(Fwd.arg_size() - 1)), Moved(U.D.jvpsDisposable()) {}
  void build();

private:
  void takeOrCloneBody();
  void trackPlannedValues();
  void declareTapeOwnership();
  void storeStaticResiduals();
  void moveShadowsIntoTape();
  void recordPredecessors();
  void callCalleesFwd();
  void pushLoopArrays();
  void takeSnapshots();
  void storeRecords();
  void noteRecordOrder(BasicBlock &BB, IRBuilder<> &B, Value *Rec);
  Value *storedValue(const RecordStore &S);
  void returnPrimalResult();
  void dropLinearCode();

  /// f.jvp's blocks and values in f.fwd (themselves, when moved).
  BasicBlock *fwdBlock(BasicBlock *BB) const {
    return Moved ? BB : cast<BasicBlock>(VMap.lookup(BB));
  }
  Value *fwdValue(Value *V) const {
    if (auto *A = dyn_cast<Argument>(V))
      return ArgInFwd[A->getArgNo()];
    if (!Moved)
      return VMap.lookup(V);
    auto It = Tracked.find(V);
    return It == Tracked.end() ? V : static_cast<Value *>(It->second);
  }
  /// f.fwd's copies of f.jvp's instructions carry the marks; f.jvp's own,
  /// when moved, are in the set.
  bool isLinearInFwd(const Instruction *I) const {
    return Moved ? U.isLinear(I) : ad::isLinear(I);
  }

  Unzipper &U;
  TapeLayout &Layout;
  Function &Jvp, &Primal, &Fwd;
  LLVMContext &Ctx;
  Type *I64;
  Argument *TapePtr;
  /// When nothing else will read f.jvp (Differentiator::jvpsDisposable),
  /// its body, DISubprogram included, moves here: no copy of twice the
  /// primal's code to make and then half of it to delete.
  const bool Moved;
  ValueToValueMapTy VMap;
  DenseMap<Value *, WeakTrackingVH> Tracked; // when f.jvp's body moves
  // Plain copies: the map follows a key through RAUW.
  SmallVector<Value *, 8> ArgInFwd;
  SmallVector<ReturnInst *, 4> Returns;
  DenseMap<BasicBlock *, Value *> PredIdx; // Jvp block -> Fwd phi
  // Keyed by f.jvp's calls as plain pointers: when f.fwd is f.jvp moved,
  // those calls are erased before the record stores look them up.
  DenseMap<const Value *, Value *> PushedCalleeTape;
  DenseMap<const ArrayLoop *, std::pair<Value *, Value *>>
      ArrayOf; // base, count
  DenseMap<const ArrayLoop *, PHINode *> CounterOf;
};

void FwdBuilder::build() {
  takeOrCloneBody();
  declareTapeOwnership();
  storeStaticResiduals();
  moveShadowsIntoTape();
  recordPredecessors();
  callCalleesFwd();
  pushLoopArrays();
  takeSnapshots();
  storeRecords();
  // The map is done with; clearing it first spares every RAUW and erase
  // below a value-handle update (half of f.fwd's instructions go).
  VMap.clear();
  Tracked.clear();
  returnPrimalResult();
  dropLinearCode();
  // Only now: the tape layout holds f.jvp's loops, owned by its LoopInfo.
  if (Moved)
    U.D.forgetAnalyses(Jvp);
}

/// f.jvp's parameters map to f.fwd's (tangents to poison); then its body
/// moves here or is cloned.
void FwdBuilder::takeOrCloneBody() {
  SmallVector<Argument *, 4> JvpShadows;
  for (unsigned K = Primal.arg_size(); K < Jvp.arg_size(); ++K)
    if (!U.isTangentArg(*Jvp.getArg(K)))
      JvpShadows.push_back(Jvp.getArg(K));
  TapePtr->setName("tape");
  for (Argument &A : Jvp.args())
    VMap[&A] = A.getArgNo() < Primal.arg_size()
                   ? static_cast<Value *>(Fwd.getArg(A.getArgNo()))
                   : PoisonValue::get(A.getType());
  for (unsigned K = 0; K < JvpShadows.size(); ++K)
    VMap[JvpShadows[K]] = Fwd.getArg(Primal.arg_size() + K);
  for (Argument &A : Jvp.args())
    if (Value *M = VMap.lookup(&A); M && isa<Argument>(M))
      M->setName(A.getName());
  for (Argument &A : Jvp.args())
    ArgInFwd.push_back(VMap.lookup(&A));
  LLVM_DEBUG(
      dbgs() << "ad-unzip: " << Fwd.getName()
             << (Moved ? " takes f.jvp's body\n" : " clones f.jvp's body\n"));
  if (!Moved) {
    CloneFunctionInto(&Fwd, &Jvp, VMap, CloneFunctionChangeType::GlobalChanges,
                      Returns);
    return;
  }
  takeBody(Fwd, Jvp, ArgInFwd);
  trackPlannedValues();
  for (BasicBlock &BB : Fwd)
    if (auto *Ret = dyn_cast<ReturnInst>(BB.getTerminator()))
      Returns.push_back(Ret);
}

/// The values the tape plan names, followed through the replacements below
/// (a call's primal result becomes the f.fwd call, a local shadow a tape
/// field), as a clone's value map would.
void FwdBuilder::trackPlannedValues() {
  auto Track = [&](Value *V) {
    if (V && isa<Instruction>(V))
      Tracked.try_emplace(V, V);
  };
  for (auto &[V, Field] : Layout.StaticResiduals)
    Track(V);
  for (const RecordStore &S : Layout.StaticStores)
    Track(S.V);
  for (auto &[Key, R] : Layout.Records)
    for (const RecordStore &S : R.Stores)
      Track(S.V);
  for (auto &[L, AL] : Layout.ArrayLoops)
    Track(AL.BackedgeCount);
  for (const Snapshot &S : Layout.Snapshots) {
    Track(S.Start);
    Track(S.End);
    Track(S.Object);
  }
  for (auto &[AI, Field] : Layout.ShadowAllocas)
    Track(AI);
  for (auto &[Call, Slot] : Layout.CalleeTapes)
    Track(Call);
}

void FwdBuilder::declareTapeOwnership() {
  copyPrimalAttributes(Fwd, Primal, Primal.arg_size(), /*WritesTape=*/true);
  // The tape is f.fwd's own: the caller allocates it for this call and
  // touches it only after f.fwd returns, and every pointer into it that
  // f.fwd uses (local shadows, callee tapes) is derived from TapePtr. Saying
  // so lets alias analysis move primal loads and stores across tape stores.
  Fwd.addParamAttr(TapePtr->getArgNo(), Attribute::NoAlias);
  Fwd.setLinkage(GlobalValue::InternalLinkage);
  tagDerived(Fwd, DerivedKind::Fwd, Primal, U.Info.Act);
}

/// Static residuals are stored right where they become available.
void FwdBuilder::storeStaticResiduals() {
  for (auto [V, Field] : Layout.StaticResiduals) {
    Value *Mapped = fwdValue(V);
    IRBuilder<> B(Ctx);
    if (isa<Argument>(V))
      B.SetInsertPoint(&*Fwd.getEntryBlock().getFirstInsertionPt());
    else if (isa<PHINode>(Mapped))
      B.SetInsertPoint(
          &*cast<Instruction>(Mapped)->getParent()->getFirstInsertionPt());
    else
      B.SetInsertPoint(cast<Instruction>(Mapped)->getNextNode());
    B.CreateStore(Mapped, U.staticField(B, TapePtr, Field));
  }
}

/// Shadows of locals live in the tape, which outlives f.fwd.
void FwdBuilder::moveShadowsIntoTape() {
  for (auto [AI, Field] : Layout.ShadowAllocas) {
    auto *FwdAI = cast<AllocaInst>(fwdValue(AI));
    IRBuilder<> B(FwdAI);
    Value *InTape = U.staticField(B, TapePtr, Field);
    if (isAlignedBeyondTape(*AI)) {
      // Rounded up to the local's alignment within its field (TapePlan).
      uint64_t A = AI->getAlign().value();
      Type *IntPtr = Fwd.getDataLayout().getIntPtrType(InTape->getType());
      Value *Past = B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), InTape, A - 1);
      InTape =
          B.CreateIntrinsic(Intrinsic::ptrmask, {InTape->getType(), IntPtr},
                            {Past, ConstantInt::get(IntPtr, -A)});
    }
    InTape->takeName(FwdAI);
    FwdAI->replaceAllUsesWith(InTape);
    U.eraseJvpInstruction(FwdAI);
  }
}

/// Which predecessor each merge block was entered from: a phi, stored with
/// the block's other record stores.
void FwdBuilder::recordPredecessors() {
  for (auto &[BB, Slot] : Layout.PredIndex) {
    BasicBlock *FwdBB = fwdBlock(BB);
    SmallVector<BasicBlock *, 4> Preds = predecessorsInLayoutOrder(*FwdBB);
    Type *IdxTy = predIndexType(Ctx, Preds.size());
    auto *Idx = PHINode::Create(IdxTy, Preds.size(), "pred.idx");
    Idx->insertBefore(FwdBB->getFirstNonPHIIt());
    for (BasicBlock *P : predecessors(FwdBB))
      Idx->addIncoming(
          ConstantInt::get(IdxTy, llvm::find(Preds, P) - Preds.begin()), P);
    PredIdx[BB] = Idx;
  }
}

/// g.jvp(x, dx) becomes g.fwd(x, tape of g): a field of the static tape,
/// or, inside a loop, a tape pushed for this call.
void FwdBuilder::callCalleesFwd() {
  for (auto [JvpCall, Slot] : Layout.CalleeTapes) {
    auto *Call = cast<CallBase>(fwdValue(JvpCall));
    const Unzipped &G = Layout.Callees[JvpCall];
    IRBuilder<> B(Call);
    SmallVector<Value *, 8> Args = calleeArgs(*Call, /*Tangents=*/false);
    Value *CalleeTape;
    if (Layout.PushedCallees.count(JvpCall))
      PushedCalleeTape[JvpCall] = CalleeTape =
          emitTapeCall(B, TapeOp::Push, G.Tape);
    else
      CalleeTape = U.staticField(B, TapePtr, Slot.Field);
    Args.push_back(CalleeTape);
    CallInst *FwdCall = B.CreateCall(G.Fwd, Args);
    FwdCall->setDebugLoc(Call->getDebugLoc());
    if (Call->getType() == FwdCall->getType()) {
      // No tangent result (void or integer): the result is the primal one.
      Call->replaceAllUsesWith(FwdCall);
    } else {
      for (User *Usr : make_early_inc_range(Call->users()))
        if (auto *EV = dyn_cast<ExtractValueInst>(Usr);
            EV && EV->getIndices()[0] == 0) {
          EV->replaceAllUsesWith(FwdCall);
          U.eraseJvpInstruction(EV);
        }
      Call->replaceAllUsesWith(PoisonValue::get(Call->getType()));
    }
    U.eraseJvpInstruction(Call);
  }
}

/// Array loops: the preheader pushes one record per iteration (after the
/// records its own callees pushed), the header counts iterations.
void FwdBuilder::pushLoopArrays() {
  for (auto &[L, AL] : Layout.ArrayLoops) {
    BasicBlock *PH = fwdBlock(L->getLoopPreheader());
    IRBuilder<> B(PH->getTerminator());
    // A constant trip count expands to a constant, which VMap does not map.
    Value *Backedges = isa<Constant>(AL.BackedgeCount)
                           ? AL.BackedgeCount
                           : fwdValue(AL.BackedgeCount);
    Value *Count =
        B.CreateAdd(Backedges, ConstantInt::get(I64, 1), "iterations");
    BasicBlock *Key = L->getHeader();
    auto RecIt = Layout.Records.find(Key);
    Value *Base = ConstantPointerNull::get(PointerType::getUnqual(Ctx));
    if (RecIt != Layout.Records.end() && !RecIt->second.Fields.empty())
      Base = emitTapeArrayPush(B, RecIt->second.Ty, Count);
    ArrayOf[&AL] = {Base, Count};
    BasicBlock *H = fwdBlock(L->getHeader());
    auto *K = PHINode::Create(I64, 2, "iteration");
    K->insertBefore(H->getFirstNonPHIIt());
    BasicBlock *Latch = fwdBlock(L->getLoopLatch());
    IRBuilder<> LB(Latch->getTerminator());
    Value *Next = LB.CreateAdd(K, ConstantInt::get(I64, 1), "iteration.next");
    K->addIncoming(ConstantInt::get(I64, 0), PH);
    K->addIncoming(Next, Latch);
    CounterOf[&AL] = K;
  }
}

/// Before each nest that reads memory it does not write, a copy of the
/// bytes it reads (LoadSnapshots.cpp), which f.rev frees: the range
/// ScalarEvolution bounds, within the object.
void FwdBuilder::takeSnapshots() {
  for (const Snapshot &S : Layout.Snapshots) {
    IRBuilder<> B(fwdBlock(S.Nest->getLoopPreheader())->getTerminator());
    auto Mapped = [&](Value *V) { return isa<Constant>(V) ? V : fwdValue(V); };
    auto *Object = cast<Instruction>(fwdValue(S.Object));
    Type *IntPtr = Fwd.getDataLayout().getIntPtrType(Object->getType());
    Value *Size;
    if (auto *AI = dyn_cast<AllocaInst>(Object))
      Size = ConstantInt::get(
          IntPtr, AI->getAllocationSize(Fwd.getDataLayout())->getFixedValue());
    else
      Size = allocationSize(B, *cast<CallBase>(Object));
    Value *ObjLo = B.CreatePtrToInt(Object, IntPtr);
    Value *ObjEnd = B.CreateAdd(ObjLo, B.CreateZExtOrTrunc(Size, IntPtr));
    Value *Lo = B.CreateBinaryIntrinsic(
        Intrinsic::umax, B.CreatePtrToInt(Mapped(S.Start), IntPtr), ObjLo);
    Value *End = B.CreateBinaryIntrinsic(
        Intrinsic::umin, B.CreatePtrToInt(Mapped(S.End), IntPtr), ObjEnd);
    Value *Bytes =
        B.CreateSelect(B.CreateICmpULT(Lo, End), B.CreateSub(End, Lo),
                       ConstantInt::get(IntPtr, 0), "snapshot.bytes");
    Value *Start = B.CreateGEP(B.getInt8Ty(), Object, B.CreateSub(Lo, ObjLo),
                               "snapshot.start");
    FunctionCallee Alloc = Fwd.getParent()->getOrInsertFunction(
        "__ad_alloc", Object->getType(), IntPtr);
    Value *Block = B.CreateCall(Alloc, {Bytes}, "snapshot");
    B.CreateMemCpy(Block, MaybeAlign(), Start, MaybeAlign(), Bytes);
    B.CreateStore(Start, U.staticField(B, TapePtr, S.StartField));
    B.CreateStore(Block, U.staticField(B, TapePtr, S.BlockField));
  }
}

Value *FwdBuilder::storedValue(const RecordStore &S) {
  switch (S.K) {
  case RecordStore::Residual:
    return fwdValue(S.V);
  case RecordStore::PredIndex:
    return PredIdx[S.Block];
  case RecordStore::CalleeTape:
    return PushedCalleeTape.lookup(S.V);
  case RecordStore::LoopBase:
    return ArrayOf[S.AL].first;
  case RecordStore::LoopCount:
    return ArrayOf[S.AL].second;
  }
  llvm_unreachable("unknown record store");
}

/// Each block stores what its record holds when it is done: after the
/// records its callees pushed, so that f.rev pops it first.
void FwdBuilder::storeRecords() {
  for (const RecordStore &S : Layout.StaticStores) {
    IRBuilder<> B(fwdBlock(S.Block)->getTerminator());
    B.CreateStore(storedValue(S), U.staticField(B, TapePtr, S.Field));
  }
  for (auto &[Key, R] : Layout.Records) {
    if (R.Array) {
      for (const RecordStore &S : R.Stores) {
        IRBuilder<> B(fwdBlock(S.Block)->getTerminator());
        Value *Rec =
            arrayElement(B, ArrayOf[R.Array].first, R.Ty, CounterOf[R.Array]);
        B.CreateStore(storedValue(S), B.CreateStructGEP(R.Ty, Rec, S.Field));
      }
      continue;
    }
    IRBuilder<> B(fwdBlock(Key)->getTerminator());
    Value *Rec = emitTapeCall(B, TapeOp::Push, R.Ty);
    if (U.Info.Act.forHandle())
      noteRecordOrder(*fwdBlock(Key), B, Rec);
    for (const RecordStore &S : R.Stores)
      B.CreateStore(storedValue(S), B.CreateStructGEP(R.Ty, Rec, S.Field));
  }
}

/// For a handle: f.lin reads a block's record when the block starts, f.rev
/// pops it when the reversed block starts, but the block pushes it when it
/// ends, above what its callees pushed. The runtime keeps the records in
/// the order the blocks started, for f.lin (runtime/Handle.cpp): \p BB
/// takes its place in that order on entry and fills it with \p Rec.
void FwdBuilder::noteRecordOrder(BasicBlock &BB, IRBuilder<> &B, Value *Rec) {
  Module &M = *Fwd.getParent();
  IRBuilder<> Entry(&*BB.getFirstInsertionPt());
  Value *Slot = Entry.CreateCall(
      M.getOrInsertFunction("__ad_linear_record_slot", I64), {}, "slot");
  B.CreateCall(M.getOrInsertFunction("__ad_linear_record_fill", B.getVoidTy(),
                                     I64, B.getPtrTy()),
               {Slot, Rec});
}

/// f.fwd returns the primal result only, not f.jvp's {y, dy}.
void FwdBuilder::returnPrimalResult() {
  for (ReturnInst *Ret : Returns) {
    auto [Y, DY] = unpackJvpReturn(*Ret);
    if (!DY)
      continue;
    auto *Packed = cast<Instruction>(Ret->getReturnValue());
    ReturnInst::Create(Ctx, Y, Ret->getIterator());
    U.eraseJvpInstruction(Ret);
    Instruction *WithPrimal = cast<Instruction>(Packed->getOperand(0));
    U.eraseJvpInstruction(Packed);
    U.eraseJvpInstruction(WithPrimal);
  }
}

/// Every linear instruction goes, and what only linear code used: shadow
/// addresses above all, which f.lin recomputes from the taped base pointer.
/// Nothing else removes them at -O0 (one per distinct address: a loop's
/// dv + i, each dv + k).
void FwdBuilder::dropLinearCode() {
  SmallVector<Instruction *, 32> Linear;
  for (BasicBlock &BB : Fwd)
    for (Instruction &I : BB)
      if (isLinearInFwd(&I))
        Linear.push_back(&I);
  SmallPtrSet<Instruction *, 32> Seen;
  SmallVector<WeakTrackingVH, 32> MaybeDead;
  for (Instruction *I : Linear)
    for (Value *Op : I->operands())
      if (auto *OpI = dyn_cast<Instruction>(Op);
          OpI && !isLinearInFwd(OpI) && Seen.insert(OpI).second)
        MaybeDead.push_back(OpI);
  for (Instruction *I : Linear)
    I->replaceAllUsesWith(PoisonValue::get(I->getType()));
  for (Instruction *I : Linear)
    U.D.eraseAfterRequest(*I);
  MaybeDead.append(U.UnusedInJvp.begin(), U.UnusedInJvp.end());
  U.UnusedInJvp.clear();
  RecursivelyDeleteTriviallyDeadInstructionsPermissive(MaybeDead);
}

void Unzipper::buildFwd(Function *Fwd) { FwdBuilder(*this, *Fwd).build(); }

} // namespace ad
