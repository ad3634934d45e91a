//===- Unzip.cpp - f.jvp -> f.fwd + %f.tape + f.lin -----------------------===//
//
// Unzipping splits f.jvp, whose instructions are marked linear (tangent
// code) or not (primal code), into f.fwd, which runs the primal code and
// fills a tape, and f.lin, which runs the tangent code on what the tape
// holds. Transposing f.lin then gives f.rev, which reads the same tape.
//
// The algorithm:
//
// 1. Plan the tape (TapePlan.cpp). A residual is a non-linear value that
//    linear code, or a branch or switch f.lin must follow, reads. Each is
//    either taped (f.fwd stores it, f.lin loads it) or recomputed in f.lin:
//    from iteration counters, when it is affine in the counters of the
//    counted loops around its reader (addresses and indices), or from its
//    operands, when it is cheap arithmetic on values that are taped or free
//    anyway. Loads, calls and PHIs other than induction variables are
//    always taped.
//
// 2. The tape has three kinds of storage:
//    a. the static %f.tape struct, which the caller allocates: residuals
//       computed outside every loop, shadows of locals, the tapes of callees
//       called outside loops (up to MaxEmbeddedTapeBytes);
//    b. one array per counted loop (trip count known at its preheader,
//       single latch that is its only exit): f.fwd pushes it before the
//       loop, one element per iteration, and f.lin indexes it with an
//       iteration counter instead of taping the loop's branches;
//    c. one record per execution of any other loop block, pushed on the
//       runtime tape at the block's end: the residuals, the index of the
//       predecessor a merge block came from, pushed callee tapes.
//
// 3. Build f.lin (LinBuilder), first, since f.fwd may take f.jvp's body:
//    a block per f.jvp block, in reverse post-order; each reads its record
//    (or array element), loop arrays and predecessor index on entry, then
//    copies (or moves) f.jvp's linear instructions, their non-linear
//    operands loaded from the tape or recomputed once per block; g.jvp
//    calls become g.lin calls on g's tape; array latches count iterations.
//
// 4. Build f.fwd (FwdBuilder): f.jvp's body, taken over or cloned, stores
//    static residuals where they are defined, moves local shadows into the
//    tape, records predecessor indices, turns g.jvp calls into g.fwd calls,
//    pushes loop arrays and counts their iterations, stores every record at
//    the end of its block, returns the primal result only, and drops the
//    linear code and what only it used.
//
//===----------------------------------------------------------------------===//
#include "unzip/Unzip.h"
#include "UnzipImpl.h"
#include "driver/DerivedFunctions.h"
#include "ir/Linearity.h"
#include "ir/ShadowMemory.h"
#include "linearize/Linearize.h"
#include "unzip/TapeRuntime.h"

#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/Support/Debug.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/Local.h"

#define DEBUG_TYPE "ad-unzip"

using namespace llvm;

STATISTIC(NumUnzipped, "Number of JVP functions unzipped");

namespace ad {

SmallVector<BasicBlock *, 4> predecessorsInLayoutOrder(BasicBlock &BB) {
  SmallPtrSet<BasicBlock *, 4> Preds(pred_begin(&BB), pred_end(&BB));
  SmallVector<BasicBlock *, 4> Ordered;
  for (BasicBlock &Candidate : *BB.getParent())
    if (Preds.count(&Candidate))
      Ordered.push_back(&Candidate);
  return Ordered;
}

Type *predIndexType(LLVMContext &Ctx, unsigned NumPreds) {
  return NumPreds <= 256 ? Type::getInt8Ty(Ctx) : Type::getInt32Ty(Ctx);
}

/// Splits the arguments of a call of g.jvp: g's own arguments and the
/// shadows (for g.fwd), or the tangents (for g.lin).
SmallVector<Value *, 8> calleeArgs(CallBase &JvpCall, bool Tangents) {
  auto Info = getDerivedInfo(*JvpCall.getCalledFunction());
  unsigned N = Info->Primal->arg_size();
  SmallVector<Value *, 8> Out;
  if (!Tangents)
    Out.append(JvpCall.arg_begin(), JvpCall.arg_begin() + N);
  SmallVector<unsigned, 8> Owners = Info->Act.extraOwners();
  for (unsigned K = 0; K < Owners.size(); ++K)
    if (Info->Act.isActive(Owners[K]) == Tangents)
      Out.push_back(JvpCall.getArgOperand(N + K));
  return Out;
}

/// f.lin has no debug info. Of the instructions it copies, only stores,
/// memory intrinsics and allocas can carry a DIAssignID; clearing it on
/// the others costs two lookups in the context's metadata table each.
static void dropAssignmentID(Instruction &C) {
  if (isa<StoreInst>(C) || isa<MemIntrinsic>(C) || isa<AllocaInst>(C))
    C.setMetadata(LLVMContext::MD_DIAssignID, nullptr);
}

Value *Unzipper::staticField(IRBuilderBase &B, Value *TapePtr, unsigned Field) {
  return B.CreateStructGEP(TapeTy, TapePtr, Field);
}

Value *Unzipper::slotAddress(IRBuilderBase &B, TapeSlot S, Value *TapePtr,
                             Value *Record) {
  if (!S.Record)
    return staticField(B, TapePtr, S.Field);
  return B.CreateStructGEP(Layout.Records[S.Record].Ty, Record, S.Field);
}

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
  void storeRecords();
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
    for (const RecordStore &S : R.Stores)
      B.CreateStore(storedValue(S), B.CreateStructGEP(R.Ty, Rec, S.Field));
  }
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

/// f.lin's signature: the tape, then the tangents of the active parameters.
Function *Unzipper::declareLin() {
  Function &Primal = *Info.Primal;
  LLVMContext &Ctx = Jvp.getContext();
  SmallVector<Type *, 8> Params{PointerType::getUnqual(Ctx)};
  for (Argument &A : Primal.args())
    if (Info.Act.isActive(A.getArgNo()))
      Params.push_back(A.getType());
  Type *RetTy = isDifferentiableType(Primal.getReturnType())
                    ? Primal.getReturnType()
                    : Type::getVoidTy(Ctx);
  Function *Lin = Function::Create(
      FunctionType::get(RetTy, Params, false), GlobalValue::InternalLinkage,
      derivedName(Primal, "lin", Info.Act), Jvp.getParent());
  copyCodegenAttributes(*Lin, Primal);
  tagDerived(*Lin, DerivedKind::Lin, Primal, Info.Act);
  return Lin;
}

/// Builds f.lin from f.jvp's linear instructions, block by block in
/// reverse post-order, reading the non-linear values they use from the tape
/// (or recomputing them).
class LinBuilder {
public:
  LinBuilder(Unzipper &U, Function &Lin)
      : U(U), Layout(U.Layout), Jvp(U.Jvp), Lin(Lin), Ctx(Jvp.getContext()),
        I64(Type::getInt64Ty(Ctx)), Ptr(PointerType::getUnqual(Ctx)),
        TapePtr(Lin.getArg(0)), MoveLinear(U.D.jvpsDisposable()) {}
  void build();

private:
  void mapTangentArgs();
  void buildBlock(BasicBlock *BB);
  void createLinearPhis(IRBuilder<> &B);
  void startIterationCounter(IRBuilder<> &B);
  void readRecord(IRBuilder<> &B);
  void readLoopEntries(IRBuilder<> &B);
  void readPredIndex(IRBuilder<> &B);
  bool callCalleeLin(IRBuilder<> &B, Instruction &I);
  void moveOrCopyLinear(IRBuilder<> &B, Instruction &I);
  void emitTerminator(IRBuilder<> &B, Instruction &I);
  void countArrayIteration(IRBuilder<> &B);
  void completeLinearPhis();

  /// What linear code in the current block reads for \p V: its f.lin
  /// value, or a non-linear value recomputed or read from the tape (once
  /// per block).
  Value *operand(IRBuilder<> &B, Value *V);
  Value *rematerialize(IRBuilder<> &B, Value *V);
  Value *readTaped(IRBuilder<> &B, Value *V);

  Unzipper &U;
  TapeLayout &Layout;
  Function &Jvp, &Lin;
  LLVMContext &Ctx;
  Type *I64, *Ptr;
  Argument *TapePtr;
  /// f.fwd will take f.jvp's body and drop its linear half (buildFwd).
  const bool MoveLinear;
  DenseMap<Value *, Value *> Map; // Jvp linear value -> Lin value
  DenseMap<BasicBlock *, BasicBlock *> BlockMap;
  // Array loops: counted in f.lin; base and count are read where the
  // preheader and the exit block keep them.
  DenseMap<const ArrayLoop *, std::pair<Value *, Value *>> ArrayOf;
  DenseMap<const ArrayLoop *, PHINode *> CounterOf;
  // Each block reads its residuals from the tape itself (once per block).
  DenseMap<std::pair<BasicBlock *, Value *>, Value *> LocalReads;
  Value *Record = nullptr; // of the block being built
  BasicBlock *JvpBB = nullptr;
  SmallVector<std::pair<PHINode *, PHINode *>, 8> Phis;
};

void LinBuilder::build() {
  TapePtr->setName("tape");
  mapTangentArgs();
  for (BasicBlock &BB : Jvp)
    BlockMap[&BB] = BasicBlock::Create(Ctx, BB.getName(), &Lin);
  ReversePostOrderTraversal<Function *> RPO(&Jvp);
  for (BasicBlock *BB : RPO)
    buildBlock(BB);
  completeLinearPhis();
  // Blocks unreachable in f.jvp got no terminator.
  for (BasicBlock &BB : Lin)
    if (!BB.getTerminator())
      new UnreachableInst(Ctx, &BB);
}

void LinBuilder::mapTangentArgs() {
  unsigned NextLinArg = 1;
  for (unsigned K = U.Info.Primal->arg_size(); K < Jvp.arg_size(); ++K)
    if (U.isTangentArg(*Jvp.getArg(K))) {
      Argument *A = Lin.getArg(NextLinArg++);
      A->setName(Jvp.getArg(K)->getName());
      Map[Jvp.getArg(K)] = A;
    }
}

/// The block's entry reads (counter, record, loop arrays, predecessor
/// index), then its linear instructions and its terminator.
void LinBuilder::buildBlock(BasicBlock *BB) {
  JvpBB = BB;
  IRBuilder<> B(BlockMap[BB]);
  createLinearPhis(B);
  if (U.isArrayHeader(BB))
    startIterationCounter(B);
  readRecord(B);
  readLoopEntries(B);
  readPredIndex(B);
  for (Instruction &I : make_early_inc_range(*BB)) {
    if (isa<PHINode>(I) || U.ReturnPacking.count(&I))
      continue;
    if (callCalleeLin(B, I))
      continue;
    if (U.isLinear(&I))
      moveOrCopyLinear(B, I);
    else
      emitTerminator(B, I);
  }
}

/// Their incoming values come once every block is built.
void LinBuilder::createLinearPhis(IRBuilder<> &B) {
  for (PHINode &Phi : JvpBB->phis())
    if (U.isLinear(&Phi)) {
      PHINode *LP =
          B.CreatePHI(Phi.getType(), Phi.getNumIncomingValues(), Phi.getName());
      markLinear(LP);
      Map[&Phi] = LP;
      Phis.push_back({&Phi, LP});
    }
}

void LinBuilder::startIterationCounter(IRBuilder<> &B) {
  const ArrayLoop *AL = U.arrayLoopOf(JvpBB);
  PHINode *K = B.CreatePHI(I64, 2, "iteration");
  markCounter(K, AL->Id,
              Layout.Records.count(JvpBB) ? Layout.Records[JvpBB].Ty
                                          : StructType::get(Ctx));
  CounterOf[AL] = K;
}

/// The record the block reads its residuals from: popped from the runtime
/// tape, or the element of its loop's array for this iteration.
void LinBuilder::readRecord(IRBuilder<> &B) {
  Record = nullptr;
  auto It = Layout.Records.find(U.recordKey(JvpBB));
  if (It == Layout.Records.end())
    return;
  BlockRecord &R = It->second;
  if (R.Array)
    Record = arrayElement(B, ArrayOf[R.Array].first, R.Ty, CounterOf[R.Array]);
  else
    Record = emitTapeCall(B, TapeOp::Read, R.Ty);
}

/// Base and count of the array loops the block enters or leaves.
void LinBuilder::readLoopEntries(IRBuilder<> &B) {
  for (auto &[L, AL] : Layout.ArrayLoops) {
    auto It = Layout.LoopEntries.find({JvpBB, &AL});
    if (It == Layout.LoopEntries.end())
      continue;
    bool IsExit = L->getExitBlock() == JvpBB;
    auto *Base = B.CreateLoad(
        Ptr, U.slotAddress(B, It->second.first, TapePtr, Record), "array");
    auto *Count =
        B.CreateLoad(I64, U.slotAddress(B, It->second.second, TapePtr, Record),
                     "iterations");
    markLoopEntry(Base, Count, AL.Id, IsExit);
    if (L->getLoopPreheader() == JvpBB)
      ArrayOf[&AL] = {Base, Count};
  }
}

/// Read for f.rev, which branches back to the predecessor it names.
void LinBuilder::readPredIndex(IRBuilder<> &B) {
  auto It = Layout.PredIndex.find(JvpBB);
  if (It == Layout.PredIndex.end())
    return;
  auto *Idx =
      B.CreateLoad(predIndexType(Ctx, predecessorsInLayoutOrder(*JvpBB).size()),
                   U.slotAddress(B, It->second, TapePtr, Record), "pred.idx");
  markWith(Idx, PredIndexMD);
}

/// g.jvp(x, dx) becomes g.lin(tape of g, dx); false if \p I is no such call.
bool LinBuilder::callCalleeLin(IRBuilder<> &B, Instruction &I) {
  auto *Call = dyn_cast<CallBase>(&I);
  auto CT = Call ? Layout.CalleeTapes.find(Call) : Layout.CalleeTapes.end();
  if (CT == Layout.CalleeTapes.end())
    return false;
  const Unzipped &G = Layout.Callees[Call];
  bool Pushed = Layout.PushedCallees.count(Call);
  Value *CalleeTape = U.slotAddress(B, CT->second, TapePtr, Record);
  if (Pushed)
    CalleeTape = B.CreateLoad(Ptr, CalleeTape);
  SmallVector<Value *, 8> Args{CalleeTape};
  for (Value *T : calleeArgs(*Call, /*Tangents=*/true))
    Args.push_back(operand(B, T));
  CallInst *LinCall = B.CreateCall(G.Lin, Args);
  markLinear(LinCall);
  if (Pushed)
    markCalleeTapeOnStack(LinCall, G.Tape);
  for (User *Usr : Call->users())
    if (auto *EV = dyn_cast<ExtractValueInst>(Usr);
        EV && EV->getIndices()[0] == 1 && U.isLinear(EV))
      Map[EV] = LinCall;
  return true;
}

void LinBuilder::moveOrCopyLinear(IRBuilder<> &B, Instruction &I) {
  if (Map.count(&I)) // extractvalue of a mixed call, done above
    return;
  // When f.fwd takes f.jvp's body, which then drops its linear code, the
  // instruction itself moves here: a copy would double the linear half
  // only to delete one of the two.
  Instruction *C = MoveLinear ? &I : I.clone();
  if (MoveLinear)
    I.removeFromParent();
  for (Use &Op : C->operands()) {
    Value *Old = Op.get();
    Op.set(operand(B, Old));
    // An address only linear code used is dead in f.fwd now.
    if (auto *OldI = dyn_cast<Instruction>(Old);
        MoveLinear && OldI && OldI->use_empty())
      U.UnusedInJvp.push_back(OldI);
  }
  C->setDebugLoc(DebugLoc()); // f.lin has no debug info
  dropAssignmentID(*C);
  if (MoveLinear)
    C->insertInto(B.GetInsertBlock(), B.GetInsertPoint());
  else
    B.Insert(C, I.getName());
  Map[&I] = C;
}

/// f.lin follows f.jvp's control flow, on taped conditions, except that it
/// leaves an array loop by counting.
void LinBuilder::emitTerminator(IRBuilder<> &B, Instruction &I) {
  if (auto *Ret = dyn_cast<ReturnInst>(&I)) {
    auto [Y, DY] = unpackJvpReturn(*Ret);
    if (Lin.getReturnType()->isVoidTy())
      B.CreateRetVoid();
    else
      B.CreateRet(operand(B, DY));
  } else if (auto *Br = dyn_cast<BranchInst>(&I)) {
    if (U.isArrayLatch(JvpBB)) {
      countArrayIteration(B);
    } else if (Br->isConditional()) {
      B.CreateCondBr(operand(B, Br->getCondition()),
                     BlockMap[Br->getSuccessor(0)],
                     BlockMap[Br->getSuccessor(1)]);
    } else {
      B.CreateBr(BlockMap[Br->getSuccessor(0)]);
    }
  } else if (auto *Sw = dyn_cast<SwitchInst>(&I)) {
    SwitchInst *LS =
        B.CreateSwitch(operand(B, Sw->getCondition()),
                       BlockMap[Sw->getDefaultDest()], Sw->getNumCases());
    for (auto &Case : Sw->cases())
      LS->addCase(Case.getCaseValue(), BlockMap[Case.getCaseSuccessor()]);
  } else if (isa<UnreachableInst>(I)) {
    B.CreateUnreachable();
  }
}

/// The latch of an array loop: the last iteration is the count-th.
void LinBuilder::countArrayIteration(IRBuilder<> &B) {
  const ArrayLoop *AL = U.arrayLoopOf(JvpBB);
  PHINode *K = CounterOf[AL];
  Value *Next = B.CreateAdd(K, ConstantInt::get(I64, 1), "iteration.next");
  K->addIncoming(ConstantInt::get(I64, 0), BlockMap[AL->L->getLoopPreheader()]);
  K->addIncoming(Next, BlockMap[JvpBB]);
  Value *Done = B.CreateICmpEQ(Next, ArrayOf[AL].second, "done");
  B.CreateCondBr(Done, BlockMap[AL->L->getExitBlock()],
                 BlockMap[AL->L->getHeader()]);
}

void LinBuilder::completeLinearPhis() {
  for (auto [Phi, LP] : Phis)
    for (unsigned K = 0; K < Phi->getNumIncomingValues(); ++K) {
      Value *In = Phi->getIncomingValue(K);
      Value *LIn = isa<Constant>(In) ? In : Map.lookup(In);
      LP->addIncoming(LIn ? LIn : Constant::getNullValue(LP->getType()),
                      BlockMap[Phi->getIncomingBlock(K)]);
    }
}

Value *LinBuilder::operand(IRBuilder<> &B, Value *V) {
  if (isa<Constant>(V))
    return V;
  if (Value *L = Map.lookup(V))
    return L;
  if (auto R = Layout.Recomputed.find({JvpBB, V});
      R != Layout.Recomputed.end()) {
    Value *&Read = LocalReads[{JvpBB, V}];
    if (!Read)
      Read = U.emitRecomputed(B, R->second, TapePtr, CounterOf);
    return Read;
  }
  if (Layout.Rematerialized.count({JvpBB, V}))
    return rematerialize(B, V);
  return readTaped(B, V);
}

/// A copy of the cheap instruction that computes \p V, on its operands.
Value *LinBuilder::rematerialize(IRBuilder<> &B, Value *V) {
  if (Value *Done = LocalReads.lookup({JvpBB, V}))
    return Done;
  Instruction *C = cast<Instruction>(V)->clone();
  for (Use &Op : C->operands())
    Op.set(operand(B, Op.get()));
  C->setDebugLoc(DebugLoc());
  dropAssignmentID(*C);
  B.Insert(C, V->getName());
  LocalReads[{JvpBB, V}] = C;
  return C;
}

Value *LinBuilder::readTaped(IRBuilder<> &B, Value *V) {
  auto It = Layout.Reads.find({JvpBB, V});
  assert(It != Layout.Reads.end() && "non-linear value not taped");
  Value *&Read = LocalReads[{JvpBB, V}];
  if (!Read) {
    auto *Load = B.CreateLoad(V->getType(),
                              U.slotAddress(B, It->second, TapePtr, Record),
                              V->getName());
    if (!It->second.Record)
      markWith(Load, StaticReadMD);
    Read = Load;
  }
  return Read;
}

void Unzipper::buildLin(Function *Lin) { LinBuilder(*this, *Lin).build(); }

std::optional<Unzipped> unzip(Function &Jvp, Differentiator &D) {
  auto Info = getDerivedInfo(Jvp);
  assert(Info && Info->Kind == DerivedKind::Jvp && "unzip expects f.jvp");
  Module &M = *Jvp.getParent();
  Function *Fwd = findDerived(M, *Info->Primal, DerivedKind::Fwd, Info->Act);
  Function *Lin = findDerived(M, *Info->Primal, DerivedKind::Lin, Info->Act);
  if (Fwd && Lin)
    return Unzipped{
        Fwd, Lin,
        StructType::getTypeByName(
            M.getContext(), derivedName(*Info->Primal, "tape", Info->Act))};
  Unzipper U(Jvp, D);
  return U.run();
}

std::optional<Unzipped> Unzipper::run() {
  Info = *getDerivedInfo(Jvp);
  // Declared before planning: a recursive call finds them (and the tape,
  // still opaque) and pushes a tape per call instead of embedding it.
  TapeTy = StructType::create(Jvp.getContext(),
                              derivedName(*Info.Primal, "tape", Info.Act));
  Function *Fwd = declareFwd();
  D.noteGenerated(Fwd);
  Function *Lin = declareLin();
  D.noteGenerated(Lin);
  if (!planTape())
    return std::nullopt;
  // Records of this derivative pushed between the inner derived code's
  // pushes and pops would take their place on the one LIFO runtime tape
  // (wrong second derivatives, or a hang, before this check).
  if (D.runtimeTapeInCode() &&
      (!Layout.Records.empty() || !Layout.PushedCallees.empty())) {
    D.diags().errorAtRequest(
        "cannot differentiate in reverse mode code that itself computes a "
        "gradient through a loop (a nested __ad_gradient whose function "
        "loops): not supported yet; take the outer derivative in forward "
        "mode (__ad_derivative of the function that calls __ad_gradient)");
    return std::nullopt;
  }
  // f.lin first: it reads f.jvp, whose body f.fwd may take over.
  buildLin(Lin);
  buildFwd(Fwd);
  if (!D.verifyLinearity(*Fwd) || !D.verifyLinearity(*Lin))
    return std::nullopt;
  ++NumUnzipped;
  D.setTapeSummary(*Fwd, std::move(Summary));
  return Unzipped{Fwd, Lin, TapeTy};
}

} // namespace ad
