//===- Unzip.cpp - f.jvp -> f.fwd + %f.tape + f.lin -----------------------===//
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

void Unzipper::buildFwd(Function *Fwd) {
  Function &Primal = *Info.Primal;
  SmallVector<Argument *, 4> JvpShadows;
  for (unsigned K = Primal.arg_size(); K < Jvp.arg_size(); ++K)
    if (!isTangentArg(*Jvp.getArg(K)))
      JvpShadows.push_back(Jvp.getArg(K));
  Argument *TapePtr = Fwd->getArg(Fwd->arg_size() - 1);
  TapePtr->setName("tape");

  ValueToValueMapTy VMap;
  for (Argument &A : Jvp.args())
    VMap[&A] = A.getArgNo() < Primal.arg_size()
                   ? static_cast<Value *>(Fwd->getArg(A.getArgNo()))
                   : PoisonValue::get(A.getType());
  for (unsigned K = 0; K < JvpShadows.size(); ++K)
    VMap[JvpShadows[K]] = Fwd->getArg(Primal.arg_size() + K);
  for (Argument &A : Jvp.args())
    if (Value *M = VMap.lookup(&A); M && isa<Argument>(M))
      M->setName(A.getName());
  DenseMap<Value *, WeakTrackingVH> Tracked; // when f.jvp's body moves
  // Plain copies: the map follows a key through RAUW.
  SmallVector<Value *, 8> ArgInFwd;
  for (Argument &A : Jvp.args())
    ArgInFwd.push_back(VMap.lookup(&A));
  SmallVector<ReturnInst *, 4> Returns;
  // When nothing else will read f.jvp (Differentiator::jvpsDisposable), its
  // body, DISubprogram included, moves here: no copy of twice the primal's
  // code to make and then half of it to delete. Otherwise it is cloned.
  const bool Moved = D.jvpsDisposable();
  if (Moved) {
    takeBody(*Fwd, Jvp, ArgInFwd);
    // The values the tape plan names, followed through the replacements
    // below (a call's primal result becomes the f.fwd call, a local shadow
    // a tape field), as a clone's value map would.
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
    for (BasicBlock &BB : *Fwd)
      if (auto *Ret = dyn_cast<ReturnInst>(BB.getTerminator()))
        Returns.push_back(Ret);
  } else {
    CloneFunctionInto(Fwd, &Jvp, VMap, CloneFunctionChangeType::GlobalChanges,
                      Returns);
  }
  copyPrimalAttributes(*Fwd, Primal, Primal.arg_size(), /*WritesTape=*/true);
  // The tape is f.fwd's own: the caller allocates it for this call and
  // touches it only after f.fwd returns, and every pointer into it that
  // f.fwd uses (local shadows, callee tapes) is derived from TapePtr. Saying
  // so lets alias analysis move primal loads and stores across tape stores.
  Fwd->addParamAttr(TapePtr->getArgNo(), Attribute::NoAlias);
  Fwd->setLinkage(GlobalValue::InternalLinkage);
  tagDerived(*Fwd, DerivedKind::Fwd, Primal, Info.Act);
  // f.jvp's blocks and values in f.fwd (themselves, when moved).
  auto FwdBlock = [&](BasicBlock *BB) {
    return Moved ? BB : cast<BasicBlock>(VMap.lookup(BB));
  };
  auto FwdValue = [&](Value *V) -> Value * {
    if (auto *A = dyn_cast<Argument>(V))
      return ArgInFwd[A->getArgNo()];
    if (!Moved)
      return VMap.lookup(V);
    auto It = Tracked.find(V);
    return It == Tracked.end() ? V : static_cast<Value *>(It->second);
  };
  LLVMContext &Ctx = Fwd->getContext();
  Type *I64 = Type::getInt64Ty(Ctx);

  // Static residuals are stored right where they become available.
  for (auto [V, Field] : Layout.StaticResiduals) {
    Value *Mapped = FwdValue(V);
    IRBuilder<> B(Ctx);
    if (isa<Argument>(V))
      B.SetInsertPoint(&*Fwd->getEntryBlock().getFirstInsertionPt());
    else if (isa<PHINode>(Mapped))
      B.SetInsertPoint(
          &*cast<Instruction>(Mapped)->getParent()->getFirstInsertionPt());
    else
      B.SetInsertPoint(cast<Instruction>(Mapped)->getNextNode());
    B.CreateStore(Mapped, staticField(B, TapePtr, Field));
  }
  for (auto [AI, Field] : Layout.ShadowAllocas) {
    auto *FwdAI = cast<AllocaInst>(FwdValue(AI));
    IRBuilder<> B(FwdAI);
    Value *InTape = staticField(B, TapePtr, Field);
    if (isAlignedBeyondTape(*AI)) {
      // Rounded up to the local's alignment within its field (TapePlan).
      uint64_t A = AI->getAlign().value();
      Type *IntPtr = Fwd->getDataLayout().getIntPtrType(InTape->getType());
      Value *Past = B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), InTape, A - 1);
      InTape =
          B.CreateIntrinsic(Intrinsic::ptrmask, {InTape->getType(), IntPtr},
                            {Past, ConstantInt::get(IntPtr, -A)});
    }
    InTape->takeName(FwdAI);
    FwdAI->replaceAllUsesWith(InTape);
    eraseJvpInstruction(FwdAI);
  }
  // Which predecessor each merge block was entered from.
  DenseMap<BasicBlock *, Value *> PredIdx; // Jvp block -> Fwd phi
  for (auto &[BB, Slot] : Layout.PredIndex) {
    BasicBlock *FwdBB = FwdBlock(BB);
    SmallVector<BasicBlock *, 4> Preds = predecessorsInLayoutOrder(*FwdBB);
    Type *IdxTy = predIndexType(Ctx, Preds.size());
    auto *Idx = PHINode::Create(IdxTy, Preds.size(), "pred.idx");
    Idx->insertBefore(FwdBB->getFirstNonPHIIt());
    for (BasicBlock *P : predecessors(FwdBB))
      Idx->addIncoming(
          ConstantInt::get(IdxTy, llvm::find(Preds, P) - Preds.begin()), P);
    PredIdx[BB] = Idx; // stored with the block's other record stores
  }
  // g.jvp(x, dx) becomes g.fwd(x, tape of g): a field of the static tape,
  // or, inside a loop, a tape pushed for this call.
  // Keyed by f.jvp's calls as plain pointers: when f.fwd is f.jvp moved,
  // those calls are erased below before the record stores look them up.
  DenseMap<const Value *, Value *> PushedCalleeTape;
  for (auto [JvpCall, Slot] : Layout.CalleeTapes) {
    auto *Call = cast<CallBase>(FwdValue(JvpCall));
    const Unzipped &U = Layout.Callees[JvpCall];
    IRBuilder<> B(Call);
    SmallVector<Value *, 8> Args = calleeArgs(*Call, /*Tangents=*/false);
    Value *CalleeTape;
    if (Layout.PushedCallees.count(JvpCall))
      PushedCalleeTape[JvpCall] = CalleeTape =
          emitTapeCall(B, TapeOp::Push, U.Tape);
    else
      CalleeTape = staticField(B, TapePtr, Slot.Field);
    Args.push_back(CalleeTape);
    CallInst *FwdCall = B.CreateCall(U.Fwd, Args);
    FwdCall->setDebugLoc(Call->getDebugLoc());
    if (Call->getType() == FwdCall->getType()) {
      // No tangent result (void or integer): the result is the primal one.
      Call->replaceAllUsesWith(FwdCall);
    } else {
      for (User *Usr : make_early_inc_range(Call->users()))
        if (auto *EV = dyn_cast<ExtractValueInst>(Usr);
            EV && EV->getIndices()[0] == 0) {
          EV->replaceAllUsesWith(FwdCall);
          eraseJvpInstruction(EV);
        }
      Call->replaceAllUsesWith(PoisonValue::get(Call->getType()));
    }
    eraseJvpInstruction(Call);
  }
  // Array loops: the preheader pushes one record per iteration (after the
  // records its own callees pushed), the header counts iterations.
  DenseMap<const ArrayLoop *, std::pair<Value *, Value *>>
      ArrayOf; // base, count
  DenseMap<const ArrayLoop *, PHINode *> CounterOf;
  for (auto &[L, AL] : Layout.ArrayLoops) {
    BasicBlock *PH = FwdBlock(L->getLoopPreheader());
    IRBuilder<> B(PH->getTerminator());
    // A constant trip count expands to a constant, which VMap does not map.
    Value *Backedges = isa<Constant>(AL.BackedgeCount)
                           ? AL.BackedgeCount
                           : FwdValue(AL.BackedgeCount);
    Value *Count =
        B.CreateAdd(Backedges, ConstantInt::get(I64, 1), "iterations");
    BasicBlock *Key = L->getHeader();
    auto RecIt = Layout.Records.find(Key);
    Value *Base = ConstantPointerNull::get(PointerType::getUnqual(Ctx));
    if (RecIt != Layout.Records.end() && !RecIt->second.Fields.empty())
      Base = emitTapeArrayPush(B, RecIt->second.Ty, Count);
    ArrayOf[&AL] = {Base, Count};
    BasicBlock *H = FwdBlock(L->getHeader());
    auto *K = PHINode::Create(I64, 2, "iteration");
    K->insertBefore(H->getFirstNonPHIIt());
    BasicBlock *Latch = FwdBlock(L->getLoopLatch());
    IRBuilder<> LB(Latch->getTerminator());
    Value *Next = LB.CreateAdd(K, ConstantInt::get(I64, 1), "iteration.next");
    K->addIncoming(ConstantInt::get(I64, 0), PH);
    K->addIncoming(Next, Latch);
    CounterOf[&AL] = K;
  }
  // Each block stores what its record holds when it is done: after the
  // records its callees pushed, so that f.rev pops it first.
  auto StoredValue = [&](const RecordStore &S) -> Value * {
    switch (S.K) {
    case RecordStore::Residual:
      return FwdValue(S.V);
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
  };
  for (const RecordStore &S : Layout.StaticStores) {
    IRBuilder<> B(FwdBlock(S.Block)->getTerminator());
    B.CreateStore(StoredValue(S), staticField(B, TapePtr, S.Field));
  }
  for (auto &[Key, R] : Layout.Records) {
    if (R.Array) {
      for (const RecordStore &S : R.Stores) {
        IRBuilder<> B(FwdBlock(S.Block)->getTerminator());
        Value *Rec =
            arrayElement(B, ArrayOf[R.Array].first, R.Ty, CounterOf[R.Array]);
        B.CreateStore(StoredValue(S), B.CreateStructGEP(R.Ty, Rec, S.Field));
      }
      continue;
    }
    IRBuilder<> B(FwdBlock(Key)->getTerminator());
    Value *Rec = emitTapeCall(B, TapeOp::Push, R.Ty);
    for (const RecordStore &S : R.Stores)
      B.CreateStore(StoredValue(S), B.CreateStructGEP(R.Ty, Rec, S.Field));
  }
  // The map is done with; clearing it first spares every RAUW and erase
  // below a value-handle update (half of f.fwd's instructions go).
  VMap.clear();
  Tracked.clear();
  // Return the primal result only; then drop every linear instruction.
  for (ReturnInst *Ret : Returns) {
    auto [Y, DY] = unpackJvpReturn(*Ret);
    if (!DY)
      continue;
    auto *Packed = cast<Instruction>(Ret->getReturnValue());
    ReturnInst::Create(Ctx, Y, Ret->getIterator());
    eraseJvpInstruction(Ret);
    Instruction *WithPrimal = cast<Instruction>(Packed->getOperand(0));
    eraseJvpInstruction(Packed);
    eraseJvpInstruction(WithPrimal);
  }
  // f.fwd's copies of f.jvp's instructions carry the marks; f.jvp's own,
  // when moved, are in the set.
  auto IsLinearInFwd = [&](const Instruction *I) {
    return Moved ? isLinear(I) : ad::isLinear(I);
  };
  SmallVector<Instruction *, 32> Linear;
  for (BasicBlock &BB : *Fwd)
    for (Instruction &I : BB)
      if (IsLinearInFwd(&I))
        Linear.push_back(&I);
  // What only linear code used goes too: shadow addresses above all, which
  // f.lin recomputes from the taped base pointer. Nothing else removes them
  // at -O0 (one per distinct address: a loop's dv + i, each dv + k).
  SmallPtrSet<Instruction *, 32> Seen;
  SmallVector<WeakTrackingVH, 32> MaybeDead;
  for (Instruction *I : Linear)
    for (Value *Op : I->operands())
      if (auto *OpI = dyn_cast<Instruction>(Op);
          OpI && !IsLinearInFwd(OpI) && Seen.insert(OpI).second)
        MaybeDead.push_back(OpI);
  for (Instruction *I : Linear)
    I->replaceAllUsesWith(PoisonValue::get(I->getType()));
  for (Instruction *I : Linear)
    D.eraseAfterRequest(*I);
  MaybeDead.append(UnusedInJvp.begin(), UnusedInJvp.end());
  UnusedInJvp.clear();
  RecursivelyDeleteTriviallyDeadInstructionsPermissive(MaybeDead);
  // Only now: the tape layout holds f.jvp's loops, owned by its LoopInfo.
  if (Moved)
    D.forgetAnalyses(Jvp);
}

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

void Unzipper::buildLin(Function *Lin) {
  Function &Primal = *Info.Primal;
  LLVMContext &Ctx = Jvp.getContext();
  Type *I64 = Type::getInt64Ty(Ctx), *Ptr = PointerType::getUnqual(Ctx);
  Type *RetTy = Lin->getReturnType();
  Argument *TapePtr = Lin->getArg(0);
  TapePtr->setName("tape");
  // f.fwd will take f.jvp's body and drop its linear half (buildFwd).
  const bool MoveLinear = D.jvpsDisposable();

  DenseMap<Value *, Value *> Map; // Jvp linear value -> Lin value
  unsigned NextLinArg = 1;
  for (unsigned K = Primal.arg_size(); K < Jvp.arg_size(); ++K)
    if (isTangentArg(*Jvp.getArg(K))) {
      Argument *A = Lin->getArg(NextLinArg++);
      A->setName(Jvp.getArg(K)->getName());
      Map[Jvp.getArg(K)] = A;
    }
  DenseMap<BasicBlock *, BasicBlock *> BlockMap;
  for (BasicBlock &BB : Jvp)
    BlockMap[&BB] = BasicBlock::Create(Ctx, BB.getName(), Lin);

  // Array loops: counted in f.lin; base and count are read where the
  // preheader and the exit block keep them.
  DenseMap<const ArrayLoop *, std::pair<Value *, Value *>> ArrayOf;
  DenseMap<const ArrayLoop *, PHINode *> CounterOf;
  // Each block reads its residuals from the tape itself (once per block).
  DenseMap<std::pair<BasicBlock *, Value *>, Value *> LocalReads;
  Value *Record = nullptr; // of the block being built
  BasicBlock *JvpBB = nullptr;
  std::function<Value *(IRBuilder<> &, Value *)> Operand;
  auto &Self = Operand;
  Operand = [&](IRBuilder<> &B, Value *V) -> Value * {
    if (isa<Constant>(V))
      return V;
    if (Value *L = Map.lookup(V))
      return L;
    if (auto R = Layout.Recomputed.find({JvpBB, V});
        R != Layout.Recomputed.end()) {
      Value *&Read = LocalReads[{JvpBB, V}];
      if (!Read)
        Read = emitRecomputed(B, R->second, TapePtr, CounterOf);
      return Read;
    }
    if (Layout.Rematerialized.count({JvpBB, V})) {
      if (Value *Done = LocalReads.lookup({JvpBB, V}))
        return Done;
      Instruction *C = cast<Instruction>(V)->clone();
      for (Use &U : C->operands())
        U.set(Self(B, U.get()));
      C->setDebugLoc(DebugLoc());
      dropAssignmentID(*C);
      B.Insert(C, V->getName());
      LocalReads[{JvpBB, V}] = C;
      return C;
    }
    auto It = Layout.Reads.find({JvpBB, V});
    assert(It != Layout.Reads.end() && "non-linear value not taped");
    Value *&Read = LocalReads[{JvpBB, V}];
    if (!Read) {
      auto *Load = B.CreateLoad(V->getType(),
                                slotAddress(B, It->second, TapePtr, Record),
                                V->getName());
      if (!It->second.Record)
        markWith(Load, StaticReadMD);
      Read = Load;
    }
    return Read;
  };

  SmallVector<std::pair<PHINode *, PHINode *>, 8> Phis;
  ReversePostOrderTraversal<Function *> RPO(&Jvp);
  for (BasicBlock *BB : RPO) {
    JvpBB = BB;
    IRBuilder<> B(BlockMap[BB]);
    for (PHINode &Phi : BB->phis())
      if (isLinear(&Phi)) {
        PHINode *LP = B.CreatePHI(Phi.getType(), Phi.getNumIncomingValues(),
                                  Phi.getName());
        markLinear(LP);
        Map[&Phi] = LP;
        Phis.push_back({&Phi, LP});
      }
    if (isArrayHeader(BB)) {
      const ArrayLoop *AL = arrayLoopOf(BB);
      PHINode *K = B.CreatePHI(I64, 2, "iteration");
      markCounter(K, AL->Id,
                  Layout.Records.count(BB) ? Layout.Records[BB].Ty
                                           : StructType::get(Ctx));
      CounterOf[AL] = K;
    }
    Record = nullptr;
    if (auto It = Layout.Records.find(recordKey(BB));
        It != Layout.Records.end()) {
      BlockRecord &R = It->second;
      if (R.Array)
        Record =
            arrayElement(B, ArrayOf[R.Array].first, R.Ty, CounterOf[R.Array]);
      else
        Record = emitTapeCall(B, TapeOp::Read, R.Ty);
    }
    for (auto &[L, AL] : Layout.ArrayLoops) {
      auto It = Layout.LoopEntries.find({BB, &AL});
      if (It == Layout.LoopEntries.end())
        continue;
      bool IsExit = L->getExitBlock() == BB;
      auto *Base = B.CreateLoad(
          Ptr, slotAddress(B, It->second.first, TapePtr, Record), "array");
      auto *Count =
          B.CreateLoad(I64, slotAddress(B, It->second.second, TapePtr, Record),
                       "iterations");
      markLoopEntry(Base, Count, AL.Id, IsExit);
      if (L->getLoopPreheader() == BB)
        ArrayOf[&AL] = {Base, Count};
    }
    if (auto It = Layout.PredIndex.find(BB); It != Layout.PredIndex.end()) {
      auto *Idx = B.CreateLoad(
          predIndexType(Ctx, predecessorsInLayoutOrder(*BB).size()),
          slotAddress(B, It->second, TapePtr, Record), "pred.idx");
      markWith(Idx, PredIndexMD);
    }
    for (Instruction &I : make_early_inc_range(*BB)) {
      if (isa<PHINode>(I) || ReturnPacking.count(&I))
        continue;
      auto *Call = dyn_cast<CallBase>(&I);
      if (auto CT =
              Call ? Layout.CalleeTapes.find(Call) : Layout.CalleeTapes.end();
          CT != Layout.CalleeTapes.end()) {
        // g.jvp(x, dx) becomes g.lin(tape of g, dx).
        const Unzipped &U = Layout.Callees[Call];
        bool Pushed = Layout.PushedCallees.count(Call);
        Value *CalleeTape = slotAddress(B, CT->second, TapePtr, Record);
        if (Pushed)
          CalleeTape = B.CreateLoad(Ptr, CalleeTape);
        SmallVector<Value *, 8> Args{CalleeTape};
        for (Value *T : calleeArgs(*Call, /*Tangents=*/true))
          Args.push_back(Operand(B, T));
        CallInst *LinCall = B.CreateCall(U.Lin, Args);
        markLinear(LinCall);
        if (Pushed)
          markCalleeTapeOnStack(LinCall, U.Tape);
        for (User *Usr : Call->users())
          if (auto *EV = dyn_cast<ExtractValueInst>(Usr);
              EV && EV->getIndices()[0] == 1 && isLinear(EV))
            Map[EV] = LinCall;
        continue;
      }
      if (isLinear(&I)) {
        if (Map.count(&I)) // extractvalue of a mixed call, done above
          continue;
        // When f.fwd takes f.jvp's body, which then drops its linear code,
        // the instruction itself moves here: a copy would double the
        // linear half only to delete one of the two.
        Instruction *C = MoveLinear ? &I : I.clone();
        if (MoveLinear)
          I.removeFromParent();
        for (Use &U : C->operands()) {
          Value *Old = U.get();
          U.set(Operand(B, Old));
          // An address only linear code used is dead in f.fwd now.
          if (auto *OldI = dyn_cast<Instruction>(Old);
              MoveLinear && OldI && OldI->use_empty())
            UnusedInJvp.push_back(OldI);
        }
        C->setDebugLoc(DebugLoc()); // f.lin has no debug info
        dropAssignmentID(*C);
        if (MoveLinear)
          C->insertInto(B.GetInsertBlock(), B.GetInsertPoint());
        else
          B.Insert(C, I.getName());
        Map[&I] = C;
        continue;
      }
      if (auto *Ret = dyn_cast<ReturnInst>(&I)) {
        auto [Y, DY] = unpackJvpReturn(*Ret);
        if (RetTy->isVoidTy())
          B.CreateRetVoid();
        else
          B.CreateRet(Operand(B, DY));
      } else if (auto *Br = dyn_cast<BranchInst>(&I)) {
        if (isArrayLatch(BB)) {
          // The last iteration is the count-th.
          const ArrayLoop *AL = arrayLoopOf(BB);
          PHINode *K = CounterOf[AL];
          Value *Next =
              B.CreateAdd(K, ConstantInt::get(I64, 1), "iteration.next");
          K->addIncoming(ConstantInt::get(I64, 0),
                         BlockMap[AL->L->getLoopPreheader()]);
          K->addIncoming(Next, BlockMap[BB]);
          Value *Done = B.CreateICmpEQ(Next, ArrayOf[AL].second, "done");
          B.CreateCondBr(Done, BlockMap[AL->L->getExitBlock()],
                         BlockMap[AL->L->getHeader()]);
        } else if (Br->isConditional()) {
          B.CreateCondBr(Operand(B, Br->getCondition()),
                         BlockMap[Br->getSuccessor(0)],
                         BlockMap[Br->getSuccessor(1)]);
        } else {
          B.CreateBr(BlockMap[Br->getSuccessor(0)]);
        }
      } else if (auto *Sw = dyn_cast<SwitchInst>(&I)) {
        SwitchInst *LS =
            B.CreateSwitch(Operand(B, Sw->getCondition()),
                           BlockMap[Sw->getDefaultDest()], Sw->getNumCases());
        for (auto &Case : Sw->cases())
          LS->addCase(Case.getCaseValue(), BlockMap[Case.getCaseSuccessor()]);
      } else if (isa<UnreachableInst>(I)) {
        B.CreateUnreachable();
      }
    }
  }
  for (auto [Phi, LP] : Phis)
    for (unsigned K = 0; K < Phi->getNumIncomingValues(); ++K) {
      Value *In = Phi->getIncomingValue(K);
      Value *LIn = isa<Constant>(In) ? In : Map.lookup(In);
      LP->addIncoming(LIn ? LIn : Constant::getNullValue(LP->getType()),
                      BlockMap[Phi->getIncomingBlock(K)]);
    }
  // Blocks unreachable in f.jvp got no terminator.
  for (BasicBlock &BB : *Lin)
    if (!BB.getTerminator())
      new UnreachableInst(Ctx, &BB);
}

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
  return Unzipped{Fwd, Lin, TapeTy};
}

} // namespace ad
