//===- UnzipLin.cpp - f.jvp -> f.lin --------------------------------------===//
//
// Step 3 of unzipping (Unzip.cpp): f.lin, the linear code of f.jvp on
// what the tape holds, with non-linear operands read from the tape or
// recomputed.
//
//===----------------------------------------------------------------------===//
#include "UnzipImpl.h"
#include "driver/DerivedFunctions.h"
#include "ir/Linearity.h"
#include "ir/ShadowMemory.h"
#include "linearize/JvpRules.h"
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

/// f.lin has no debug info. Of the instructions it copies, only stores,
/// memory intrinsics and allocas can carry a DIAssignID; clearing it on
/// the others costs two lookups in the context's metadata table each.
static void dropAssignmentID(Instruction &C) {
  if (isa<StoreInst>(C) || isa<MemIntrinsic>(C) || isa<AllocaInst>(C))
    C.setMetadata(LLVMContext::MD_DIAssignID, nullptr);
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
  Value *forwardedValue(IRBuilder<> &B, Value &V, const ForwardedLoad &F);
  Value *readTaped(IRBuilder<> &B, Value *V);
  Value *readSnapshot(IRBuilder<> &B, LoadInst &L, const SnapshotRead &R);
  void noteSnapshotsLive(IRBuilder<> &B);

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
  noteSnapshotsLive(B);
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
    const LoopEntry &E = It->second;
    Instruction *Base = nullptr, *Count = nullptr;
    if (E.Base)
      Base = B.CreateLoad(Ptr, U.slotAddress(B, *E.Base, TapePtr, Record),
                          "array");
    if (E.Count)
      Count = B.CreateLoad(I64, U.slotAddress(B, *E.Count, TapePtr, Record),
                           "iterations");
    else
      Count = U.emitRecomputedCount(B, AL, TapePtr, {ArrayOf, CounterOf});
    markLoopEntry(Base, Count, AL.Id, IsExit);
    if (L->getLoopPreheader() == JvpBB)
      ArrayOf[&AL] = {
          Base ? static_cast<Value *>(Base)
               : ConstantPointerNull::get(PointerType::getUnqual(Ctx)),
          Count};
  }
}

/// Read (or recomputed) for f.rev, which branches back to the predecessor
/// it names.
void LinBuilder::readPredIndex(IRBuilder<> &B) {
  if (Layout.RecomputedPredIndex.count(JvpBB)) {
    U.emitPredIndex(B, *JvpBB, TapePtr, {ArrayOf, CounterOf});
    return;
  }
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
      Read = U.emitRecomputed(B, R->second, TapePtr, {ArrayOf, CounterOf});
    return Read;
  }
  if (Layout.Rematerialized.count({JvpBB, V}))
    return rematerialize(B, V);
  if (auto F = Layout.Forwarded.find({JvpBB, V}); F != Layout.Forwarded.end()) {
    if (Value *Done = LocalReads.lookup({JvpBB, V}))
      return Done;
    Value *Stored =
        forwardedValue(B, *F->second.Store->getValueOperand(), F->second);
    return LocalReads[{JvpBB, V}] = Stored;
  }
  if (auto S = Layout.SnapshotReads.find({JvpBB, V});
      S != Layout.SnapshotReads.end()) {
    Value *&Read = LocalReads[{JvpBB, V}];
    if (!Read)
      Read = readSnapshot(B, *cast<LoadInst>(V), S->second);
    return Read;
  }
  return readTaped(B, V);
}

/// \p L's value in the copy f.fwd made before its nest: at the copy's
/// address plus L's, recomputed, less the start of the range copied.
Value *LinBuilder::readSnapshot(IRBuilder<> &B, LoadInst &L,
                                const SnapshotRead &R) {
  const Snapshot &S = Layout.Snapshots[R.Index];
  Value *Address =
      U.emitRecomputed(B, R.Address, TapePtr, {ArrayOf, CounterOf});
  auto *Start = B.CreateLoad(Ptr, U.staticField(B, TapePtr, S.StartField),
                             "snapshot.start");
  markWith(Start, StaticReadMD);
  auto *Block =
      B.CreateLoad(Ptr, U.staticField(B, TapePtr, S.BlockField), "snapshot");
  markWith(Block, StaticReadMD);
  Type *IntPtr = Lin.getDataLayout().getIntPtrType(Ptr);
  Value *Offset = B.CreateSub(B.CreatePtrToInt(Address, IntPtr),
                              B.CreatePtrToInt(Start, IntPtr));
  // The start copied may be the object's (clamped), whose alignment need
  // not be L's.
  return B.CreateAlignedLoad(L.getType(),
                             B.CreateGEP(B.getInt8Ty(), Block, Offset),
                             Align(1), L.getName());
}

/// At a nest's preheader, the copies made for it: f.rev frees them where
/// it leaves the nest backwards.
void LinBuilder::noteSnapshotsLive(IRBuilder<> &B) {
  for (const Snapshot &S : Layout.Snapshots) {
    if (S.Nest->getLoopPreheader() != JvpBB)
      continue;
    auto *Block =
        B.CreateLoad(Ptr, U.staticField(B, TapePtr, S.BlockField), "snapshot");
    markWith(Block, StaticReadMD);
    markLinear(emitSnapshotLive(B, Block));
  }
}

/// \p V, a value of F's store loop, for the iteration F names: what the
/// store wrote to the cell the forwarded load reads.
Value *LinBuilder::forwardedValue(IRBuilder<> &B, Value &V,
                                  const ForwardedLoad &F) {
  if (isa<Constant>(V))
    return &V;
  if (U.SE->isSCEVable(V.getType()))
    return U.emitRecomputed(B, U.atStoreIteration(U.SE->getSCEV(&V), F),
                            TapePtr, {ArrayOf, CounterOf});
  auto *I = dyn_cast<Instruction>(&V);
  if (!I || !F.StoreLoop->contains(I))
    return operand(B, &V);
  Instruction *C = I->clone();
  for (Use &Op : C->operands())
    Op.set(forwardedValue(B, *Op.get(), F));
  C->setDebugLoc(DebugLoc());
  dropAssignmentID(*C);
  return B.Insert(C, V.getName());
}

/// A copy of the instruction that computes \p V, on its operands. A libm
/// call computed again is its llvm.* intrinsic where there is one, and
/// otherwise marked as touching no memory: the copy need not set errno
/// again, and the optimiser may then merge it with the coefficients the
/// JVP rules compute with intrinsics (cos x with the slope of sin x).
Value *LinBuilder::rematerialize(IRBuilder<> &B, Value *V) {
  if (Value *Done = LocalReads.lookup({JvpBB, V}))
    return Done;
  auto *I = cast<Instruction>(V);
  Instruction *C;
  if (Intrinsic::ID IID = intrinsicOfLibmCall(*I, &U.D.tli(U.Jvp))) {
    SmallVector<Value *, 2> Args;
    for (Use &Arg : cast<CallInst>(I)->args())
      Args.push_back(operand(B, Arg.get()));
    C = B.CreateIntrinsic(IID, {I->getType()}, Args, I, V->getName());
  } else {
    C = I->clone();
    for (Use &Op : C->operands())
      Op.set(operand(B, Op.get()));
    if (auto *Call = dyn_cast<CallInst>(C);
        Call && isScalarMathCall(*I, &U.D.tli(U.Jvp)))
      Call->setDoesNotAccessMemory();
    C->setDebugLoc(DebugLoc());
    dropAssignmentID(*C);
    B.Insert(C, V->getName());
  }
  LocalReads[{JvpBB, V}] = C;
  return C;
}

Value *LinBuilder::readTaped(IRBuilder<> &B, Value *V) {
  auto It = Layout.Reads.find({JvpBB, V});
  assert(It != Layout.Reads.end() && "non-linear value not taped");
  Value *&Read = LocalReads[{JvpBB, V}];
  if (!Read) {
    // A value an enclosing counted loop keeps once per iteration lives in
    // that loop's record, at its current iteration.
    BasicBlock *Key = It->second.Record;
    Value *Rec = Key && Key != U.recordKey(JvpBB)
                     ? U.currentRecordOf(B, *Key, {ArrayOf, CounterOf})
                     : Record;
    auto *Load = B.CreateLoad(
        V->getType(), U.slotAddress(B, It->second, TapePtr, Rec), V->getName());
    if (!It->second.Record)
      markWith(Load, StaticReadMD);
    Read = U.rebaseForHandle(B, Load);
  }
  return Read;
}

void Unzipper::buildLin(Function *Lin) { LinBuilder(*this, *Lin).build(); }

} // namespace ad
