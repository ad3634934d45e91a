//===- Unzip.cpp - f.jvp -> f.fwd + %f.tape + f.lin -----------------------===//
#include "Unzip.h"
#include "DerivedFunctions.h"
#include "Linearity.h"
#include "Linearize.h"
#include "ShadowMemory.h"
#include "TapeRuntime.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"

#define DEBUG_TYPE "ad-unzip"

using namespace llvm;

STATISTIC(NumUnzipped, "Number of JVP functions unzipped");
STATISTIC(NumResiduals, "Number of residuals saved on tapes");

namespace ad {

SmallVector<BasicBlock *, 4> predecessorsInLayoutOrder(BasicBlock &BB) {
  SmallPtrSet<BasicBlock *, 4> Preds(pred_begin(&BB), pred_end(&BB));
  SmallVector<BasicBlock *, 4> Ordered;
  for (BasicBlock &Candidate : *BB.getParent())
    if (Preds.count(&Candidate))
      Ordered.push_back(&Candidate);
  return Ordered;
}

/// Callee tapes up to this size are fields of the caller's tape; larger
/// ones are pushed on the runtime tape per call.
static constexpr uint64_t MaxEmbeddedTapeBytes = 4096;

static Type *predIndexType(LLVMContext &Ctx, unsigned NumPreds) {
  return NumPreds <= 256 ? Type::getInt8Ty(Ctx) : Type::getInt32Ty(Ctx);
}

/// A call of a generated JVP: it computes primal and tangent at once and is
/// split by unzipping.
static Function *mixedCallee(const Instruction &I) {
  auto *CB = dyn_cast<CallBase>(&I);
  Function *Callee = CB ? CB->getCalledFunction() : nullptr;
  if (!Callee)
    return nullptr;
  auto Info = getDerivedInfo(*Callee);
  return Info && Info->Kind == DerivedKind::Jvp ? Callee : nullptr;
}

namespace {

/// Where a residual, a predecessor index, a callee's tape or a loop's
/// array is kept: a field of the static %f.tape, or of a record.
struct TapeSlot {
  BasicBlock *Record = nullptr; ///< the record's key; null: the static tape
  unsigned Field = 0;
};

/// A loop whose trip count ScalarEvolution knows at its preheader (single
/// latch, which is its only exit). The records of its iterations form one
/// array pushed before the loop: no push per iteration, and neither the
/// header's predecessor nor the latch's exit condition is taped (f.lin and
/// f.rev count iterations instead).
struct ArrayLoop {
  unsigned Id = 0;
  Loop *L = nullptr;
  Value *BackedgeCount = nullptr; ///< i64, computed at the preheader (Jvp)
};

/// What a record field holds, and which block stores it (at its end).
struct RecordStore {
  enum Kind { Residual, PredIndex, CalleeTape, LoopBase, LoopCount } K;
  Value *V = nullptr; ///< the residual or the call (Jvp values)
  const ArrayLoop *AL = nullptr;
  BasicBlock *Block = nullptr;
  unsigned Field = 0;
};

/// Either the record one execution of a loop block pushes, or (Array set)
/// the element of a loop's array that one iteration fills.
struct BlockRecord {
  SmallVector<Type *, 8> Fields;
  SmallVector<RecordStore, 8> Stores;
  StructType *Ty = nullptr;
  const ArrayLoop *Array = nullptr;
  unsigned add(Type *T) {
    Fields.push_back(T);
    return Fields.size() - 1;
  }
};

struct TapeLayout {
  SmallVector<Type *, 16> StaticFields;
  MapVector<Value *, unsigned> StaticResiduals; ///< stored at definition
  SmallVector<RecordStore, 4> StaticStores;     ///< loop entries, at block end
  DenseMap<std::pair<BasicBlock *, Value *>, TapeSlot> Reads;
  /// Residuals f.lin and f.rev recompute from iteration counters and static
  /// values (addresses and indices of counted loops) instead of taping.
  DenseMap<std::pair<BasicBlock *, Value *>, const SCEV *> Recomputed;
  /// Residuals inside loops that are cheap arithmetic on other residuals:
  /// f.lin (and f.rev) recompute them from their operands (YOLO §6.1).
  DenseSet<std::pair<BasicBlock *, Value *>> Rematerialized;
  DenseMap<std::pair<BasicBlock *, Value *>, unsigned> RecordFieldOf;
  DenseMap<BasicBlock *, TapeSlot> PredIndex;
  DenseMap<CallBase *, TapeSlot> CalleeTapes;
  DenseMap<CallBase *, Unzipped> Callees;
  SmallPtrSet<CallBase *, 4> PushedCallees; ///< tape pushed per call
  MapVector<BasicBlock *, BlockRecord> Records;
  MapVector<AllocaInst *, unsigned> ShadowAllocas; ///< -> static field
  MapVector<Loop *, ArrayLoop> ArrayLoops;
  /// Where block X keeps (base, count) of the array loop it enters (as the
  /// preheader) or leaves (as the exit block).
  DenseMap<std::pair<BasicBlock *, const ArrayLoop *>,
           std::pair<TapeSlot, TapeSlot>>
      LoopEntries;

  unsigned addStatic(Type *T) {
    StaticFields.push_back(T);
    return StaticFields.size() - 1;
  }
};

class Unzipper {
public:
  Unzipper(Function &Jvp, Differentiator &D) : Jvp(Jvp), D(D) {}
  std::optional<Unzipped> run();

private:
  bool planTape();
  void findArrayLoops();
  /// The record block \p BB writes to: null (static tape), BB itself, or
  /// the header of the array loop it belongs to.
  BasicBlock *recordKey(BasicBlock *BB) const;
  TapeSlot addStored(BasicBlock &BB, RecordStore S, Type *T);
  void noteResidual(BasicBlock &BB, Value *V);
  void finalizeRecordResiduals();
  Function *declareFwd();
  Function *declareLin();
  void buildFwd(llvm::Function *Fwd);
  void buildLin(llvm::Function *Lin);
  Value *staticField(IRBuilderBase &B, Value *TapePtr, unsigned Field);
  Value *slotAddress(IRBuilderBase &B, TapeSlot S, Value *TapePtr,
                     Value *Record);
  /// A tangent parameter of f.jvp (linear); shadows are non-linear.
  bool isTangentArg(const Argument &A) const {
    unsigned N = Info.Primal->arg_size();
    return A.getArgNo() >= N &&
           Info.Act.isActive(Info.Act.extraOwners()[A.getArgNo() - N]);
  }
  const ArrayLoop *arrayLoopOf(BasicBlock *BB) const {
    Loop *L = LI->getLoopFor(BB);
    auto It = L ? Layout.ArrayLoops.find(L) : Layout.ArrayLoops.end();
    return It == Layout.ArrayLoops.end() ? nullptr : &It->second;
  }
  bool isArrayLatch(BasicBlock *BB) const {
    const ArrayLoop *AL = arrayLoopOf(BB);
    return AL && AL->L->getLoopLatch() == BB;
  }
  bool isArrayHeader(BasicBlock *BB) const {
    const ArrayLoop *AL = arrayLoopOf(BB);
    return AL && AL->L->getHeader() == BB;
  }

  Function &Jvp;
  Differentiator &D;
  DerivedInfo Info{};
  TapeLayout Layout;
  StructType *TapeTy = nullptr;
  SmallPtrSet<Instruction *, 2> ReturnPacking; // the {y, dy} insertvalues
  bool isRecomputable(const SCEV *S, BasicBlock &UseBB) const;
  void noteStaticLeaves(const SCEV *S);
  Value *emitRecomputed(IRBuilder<> &B, const SCEV *S, Value *TapePtr,
                        const DenseMap<const ArrayLoop *, PHINode *> &Counters);

  std::unique_ptr<DominatorTree> DT;
  std::unique_ptr<LoopInfo> LI;
  std::unique_ptr<AssumptionCache> AC;
  std::unique_ptr<ScalarEvolution> SE;
  /// (block, value) residuals asked of loop records, in order.
  SetVector<std::pair<BasicBlock *, Value *>> Requests;
};

} // namespace

/// Splits the arguments of a call of g.jvp: g's own arguments and the
/// shadows (for g.fwd), or the tangents (for g.lin).
static SmallVector<Value *, 8> calleeArgs(CallBase &JvpCall, bool Tangents) {
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

Value *Unzipper::staticField(IRBuilderBase &B, Value *TapePtr, unsigned Field) {
  return B.CreateStructGEP(TapeTy, TapePtr, Field);
}

Value *Unzipper::slotAddress(IRBuilderBase &B, TapeSlot S, Value *TapePtr,
                             Value *Record) {
  if (!S.Record)
    return staticField(B, TapePtr, S.Field);
  return B.CreateStructGEP(Layout.Records[S.Record].Ty, Record, S.Field);
}

BasicBlock *Unzipper::recordKey(BasicBlock *BB) const {
  if (const ArrayLoop *AL = arrayLoopOf(BB))
    return AL->L->getHeader();
  return LI->getLoopFor(BB) ? BB : nullptr;
}

TapeSlot Unzipper::addStored(BasicBlock &BB, RecordStore S, Type *T) {
  S.Block = &BB;
  BasicBlock *Key = recordKey(&BB);
  if (!Key) {
    S.Field = Layout.addStatic(T);
    Layout.StaticStores.push_back(S);
    return {nullptr, S.Field};
  }
  BlockRecord &R = Layout.Records[Key];
  S.Field = R.add(T);
  R.Stores.push_back(S);
  return {Key, S.Field};
}

/// Residual \p V is read by linear code (or the terminator) of \p BB. Values
/// computed outside every loop are taped once, in the static tape, even when
/// loops read them; values computed inside a loop go into the record that
/// \p BB writes (once per iteration of an array loop, whichever of its
/// blocks read it).
/// Arithmetic cheap enough that recomputing it in f.rev beats a store and
/// a load of the tape. Loads (memory may change), PHIs (loop-carried) and
/// calls of library functions are always taped.
static bool isCheapToRecompute(const Instruction &I) {
  if (isa<BinaryOperator>(I))
    return I.getOpcode() != Instruction::UDiv &&
           I.getOpcode() != Instruction::SDiv &&
           I.getOpcode() != Instruction::URem &&
           I.getOpcode() != Instruction::SRem &&
           I.getOpcode() != Instruction::FRem;
  if (auto *II = dyn_cast<IntrinsicInst>(&I))
    switch (II->getIntrinsicID()) {
    case Intrinsic::fabs:
    case Intrinsic::copysign:
    case Intrinsic::fma:
    case Intrinsic::fmuladd:
    case Intrinsic::minnum:
    case Intrinsic::maxnum:
      return true;
    default:
      return false;
    }
  return isa<UnaryOperator>(I) || isa<CmpInst>(I) || isa<SelectInst>(I) ||
         (isa<CastInst>(I) && !I.getType()->isPointerTy()) ||
         isa<GetElementPtrInst>(I);
}

/// Residual \p V is read by linear code (or the terminator) of \p BB. Values
/// computed outside every loop are taped once, in the static tape, even when
/// loops read them; addresses and indices of counted loops are recomputed
/// from iteration counters. The rest, computed inside a loop, is requested
/// from the record \p BB writes; finalizeRecordResiduals decides which of
/// those are taped and which recomputed from the others.
void Unzipper::noteResidual(BasicBlock &BB, Value *V) {
  auto *A = dyn_cast<Argument>(V);
  auto *I = dyn_cast<Instruction>(V);
  if ((!A && !I) || isLinear(V) || (A && isTangentArg(*A)))
    return;
  if (Layout.Reads.count({&BB, V}) || Layout.Recomputed.count({&BB, V}) ||
      Layout.Rematerialized.count({&BB, V}) || Requests.count({&BB, V}))
    return;
  bool DefinedInLoop = I && LI->getLoopFor(I->getParent());
  BasicBlock *Key = recordKey(&BB);
  if (Key && DefinedInLoop && SE->isSCEVable(V->getType())) {
    const SCEV *S = SE->getSCEV(V);
    if (isa<SCEVAddRecExpr>(S) && isRecomputable(S, BB)) {
      noteStaticLeaves(S);
      Layout.Recomputed[{&BB, V}] = S;
      return;
    }
  }
  if (!Key || !DefinedInLoop) {
    auto [It, New] = Layout.StaticResiduals.insert({V, 0});
    if (New)
      It->second = Layout.addStatic(V->getType());
    Layout.Reads[{&BB, V}] = {nullptr, It->second};
    return;
  }
  Requests.insert({&BB, V});
}

/// YOLO §6.1, checkpointing as an unzip choice: a requested residual that
/// is cheap arithmetic on values the same record holds anyway (or on free
/// values: constants, static and counter-computed ones) is recomputed by
/// f.lin and f.rev instead of taped. The record never grows by this.
void Unzipper::finalizeRecordResiduals() {
  DenseMap<BasicBlock *, SmallPtrSet<Value *, 16>> Needed;
  for (auto [BB, V] : Requests)
    Needed[recordKey(BB)].insert(V);
  auto IsFree = [&](BasicBlock &BB, Value *Op) {
    if (isa<Constant>(Op))
      return true;
    if (auto *A = dyn_cast<Argument>(Op))
      return !isTangentArg(*A);
    auto *I = dyn_cast<Instruction>(Op);
    if (!I || isLinear(I))
      return false;
    if (!LI->getLoopFor(I->getParent()))
      return true;
    if (!SE->isSCEVable(Op->getType()))
      return false;
    const SCEV *S = SE->getSCEV(Op);
    return isa<SCEVAddRecExpr>(S) && isRecomputable(S, BB);
  };
  auto Rematerializable = [&](BasicBlock &BB, Instruction &I) {
    const SmallPtrSet<Value *, 16> &N = Needed[recordKey(&BB)];
    return isCheapToRecompute(I) && llvm::all_of(I.operands(), [&](Use &U) {
             return IsFree(BB, U.get()) || N.count(U.get());
           });
  };
  std::function<void(BasicBlock &, Value *)> Place = [&](BasicBlock &BB,
                                                         Value *V) {
    if (Layout.Reads.count({&BB, V}) || Layout.Rematerialized.count({&BB, V}))
      return;
    auto *I = cast<Instruction>(V);
    if (Rematerializable(BB, *I)) {
      Layout.Rematerialized.insert({&BB, V});
      for (Value *Op : I->operands()) {
        if (IsFree(BB, Op))
          noteResidual(BB, Op); // static, counter-computed or constant
        else
          Place(BB, Op);
      }
      return;
    }
    BasicBlock *Key = recordKey(&BB);
    BlockRecord &R = Layout.Records[Key];
    auto [It, New] = Layout.RecordFieldOf.insert({{Key, V}, 0});
    if (New)
      It->second = R.add(V->getType());
    R.Stores.push_back({RecordStore::Residual, V, nullptr, &BB, It->second});
    Layout.Reads[{&BB, V}] = {Key, It->second};
  };
  for (auto [BB, V] : Requests)
    Place(*BB, V);
}

/// Whether f.lin and f.rev can compute \p S in \p UseBB: an affine
/// function of the iteration counters of enclosing counted loops, over
/// constants and values computed outside every loop (taped statically).
bool Unzipper::isRecomputable(const SCEV *S, BasicBlock &UseBB) const {
  if (isa<SCEVConstant>(S))
    return true;
  if (auto *U = dyn_cast<SCEVUnknown>(S)) {
    Value *V = U->getValue();
    if (isa<Constant>(V))
      return !isa<GlobalValue>(V) || isa<GlobalVariable>(V);
    if (auto *A = dyn_cast<Argument>(V))
      return !isTangentArg(*A);
    auto *I = dyn_cast<Instruction>(V);
    return I && !LI->getLoopFor(I->getParent()) && !isLinear(I);
  }
  if (auto *AR = dyn_cast<SCEVAddRecExpr>(S)) {
    auto It = Layout.ArrayLoops.find(const_cast<Loop *>(AR->getLoop()));
    return AR->isAffine() && It != Layout.ArrayLoops.end() &&
           AR->getLoop()->contains(&UseBB) &&
           isRecomputable(AR->getStart(), UseBB) &&
           isRecomputable(AR->getStepRecurrence(*SE), UseBB);
  }
  if (auto *N = dyn_cast<SCEVNAryExpr>(S))
    return (isa<SCEVAddExpr>(S) || isa<SCEVMulExpr>(S)) &&
           llvm::all_of(N->operands(), [&](const SCEV *Op) {
             return isRecomputable(Op, UseBB);
           });
  if (auto *C = dyn_cast<SCEVCastExpr>(S))
    return (isa<SCEVZeroExtendExpr>(S) || isa<SCEVSignExtendExpr>(S) ||
            isa<SCEVTruncateExpr>(S) || isa<SCEVPtrToIntExpr>(S)) &&
           isRecomputable(C->getOperand(), UseBB);
  return false;
}

void Unzipper::noteStaticLeaves(const SCEV *S) {
  SmallVector<const SCEV *, 8> Work{S};
  while (!Work.empty()) {
    const SCEV *X = Work.pop_back_val();
    if (auto *U = dyn_cast<SCEVUnknown>(X)) {
      Value *V = U->getValue();
      if (!isa<Constant>(V)) {
        auto [It, New] = Layout.StaticResiduals.insert({V, 0});
        if (New)
          It->second = Layout.addStatic(V->getType());
      }
      continue;
    }
    for (const SCEV *Op : X->operands())
      Work.push_back(Op);
  }
}

/// Emits \p S (isRecomputable) into f.lin: counters for add-recurrences,
/// static tape reads for values.
Value *Unzipper::emitRecomputed(
    IRBuilder<> &B, const SCEV *S, Value *TapePtr,
    const DenseMap<const ArrayLoop *, PHINode *> &Counters) {
  auto Emit = [&](const SCEV *X) {
    return emitRecomputed(B, X, TapePtr, Counters);
  };
  Type *T = S->getType();
  if (auto *C = dyn_cast<SCEVConstant>(S))
    return C->getValue();
  if (auto *U = dyn_cast<SCEVUnknown>(S)) {
    Value *V = U->getValue();
    if (isa<Constant>(V))
      return V;
    auto *Load = B.CreateLoad(
        T, staticField(B, TapePtr, Layout.StaticResiduals.lookup(V)),
        V->getName());
    markWith(Load, StaticReadMD);
    return Load;
  }
  if (T->isPointerTy()) {
    // base + offset, with the offset computed as an integer.
    const SCEV *Base = SE->getPointerBase(S);
    const SCEV *Offset = SE->getMinusSCEV(S, Base);
    return B.CreateGEP(B.getInt8Ty(), Emit(Base), Emit(Offset));
  }
  if (auto *AR = dyn_cast<SCEVAddRecExpr>(S)) {
    const ArrayLoop *AL =
        &Layout.ArrayLoops.find(const_cast<Loop *>(AR->getLoop()))->second;
    Value *K = B.CreateZExtOrTrunc(Counters.lookup(AL), T);
    return B.CreateAdd(Emit(AR->getStart()),
                       B.CreateMul(K, Emit(AR->getStepRecurrence(*SE))));
  }
  if (auto *N = dyn_cast<SCEVNAryExpr>(S)) {
    Value *Acc = Emit(N->getOperand(0));
    for (unsigned K = 1; K < N->getNumOperands(); ++K)
      Acc = isa<SCEVAddExpr>(S) ? B.CreateAdd(Acc, Emit(N->getOperand(K)))
                                : B.CreateMul(Acc, Emit(N->getOperand(K)));
    return Acc;
  }
  auto *C = cast<SCEVCastExpr>(S);
  Value *Op = Emit(C->getOperand());
  if (isa<SCEVZeroExtendExpr>(S))
    return B.CreateZExt(Op, T);
  if (isa<SCEVSignExtendExpr>(S))
    return B.CreateSExt(Op, T);
  if (isa<SCEVTruncateExpr>(S))
    return B.CreateTrunc(Op, T);
  return B.CreatePtrToInt(Op, T);
}

void Unzipper::findArrayLoops() {
  AC = std::make_unique<AssumptionCache>(Jvp);
  SE = std::make_unique<ScalarEvolution>(Jvp, D.tli(Jvp), *AC, *DT, *LI);
  ScalarEvolution &SE = *this->SE;
  const DataLayout &DL = Jvp.getParent()->getDataLayout();
  Type *I64 = Type::getInt64Ty(Jvp.getContext());
  for (Loop *L : LI->getLoopsInPreorder()) {
    BasicBlock *PH = L->getLoopPreheader(), *Latch = L->getLoopLatch();
    if (!PH || !Latch || L->getExitingBlock() != Latch || !L->getExitBlock())
      continue;
    auto *Br = dyn_cast<BranchInst>(Latch->getTerminator());
    if (!Br || !Br->isConditional())
      continue;
    const SCEV *BTC = SE.getBackedgeTakenCount(L);
    if (isa<SCEVCouldNotCompute>(BTC) || !BTC->getType()->isIntegerTy() ||
        BTC->getType()->getIntegerBitWidth() > 64)
      continue;
    BTC = SE.getNoopOrZeroExtend(BTC, I64);
    SCEVExpander Exp(SE, DL, "ad.trip");
    if (!Exp.isSafeToExpandAt(BTC, PH->getTerminator()))
      continue;
    ArrayLoop AL;
    AL.Id = Layout.ArrayLoops.size();
    AL.L = L;
    AL.BackedgeCount = Exp.expandCodeFor(BTC, I64, PH->getTerminator());
    AL.BackedgeCount->setName("backedges");
    Layout.ArrayLoops[L] = AL;
  }
}

bool Unzipper::planTape() {
  DT = std::make_unique<DominatorTree>(Jvp);
  LI = std::make_unique<LoopInfo>(*DT);
  findArrayLoops();
  for (BasicBlock &BB : Jvp)
    if (auto *Ret = dyn_cast<ReturnInst>(BB.getTerminator()))
      if (auto [Y, DY] = unpackJvpReturn(*Ret); DY) {
        auto *WithTangent = cast<Instruction>(Ret->getReturnValue());
        ReturnPacking.insert(WithTangent);
        ReturnPacking.insert(cast<Instruction>(WithTangent->getOperand(0)));
      }

  LLVMContext &Ctx = Jvp.getContext();
  Type *Ptr = PointerType::getUnqual(Ctx), *I64 = Type::getInt64Ty(Ctx);
  for (auto &[L, AL] : Layout.ArrayLoops)
    for (BasicBlock *X : {L->getLoopPreheader(), L->getExitBlock()}) {
      TapeSlot Base = addStored(*X, {RecordStore::LoopBase, nullptr, &AL}, Ptr);
      TapeSlot Count =
          addStored(*X, {RecordStore::LoopCount, nullptr, &AL}, I64);
      Layout.LoopEntries[{X, &AL}] = {Base, Count};
    }
  for (BasicBlock &BB : Jvp) {
    // The header of an array loop knows its predecessor from the count.
    if (size_t N = predecessorsInLayoutOrder(BB).size();
        N > 1 && !isArrayHeader(&BB))
      Layout.PredIndex[&BB] =
          addStored(BB, {RecordStore::PredIndex}, predIndexType(Ctx, N));
    for (Instruction &I : BB) {
      if (ReturnPacking.count(&I))
        continue;
      if (Function *Callee = mixedCallee(I)) {
        std::optional<Unzipped> U = D.getUnzipped(*Callee);
        if (!U)
          return false;
        auto *CB = cast<CallBase>(&I);
        Layout.Callees[CB] = *U;
        // Inside a loop, when the callee is still being unzipped (a
        // recursive call: its tape cannot be part of ours), or when its tape
        // is large (embedding tapes of a call tree makes ours as large as
        // the tree: stack overflow), the callee's tape is pushed for each
        // call; our tape or record keeps its address.
        if (recordKey(&BB) || U->Fwd->isDeclaration() ||
            Jvp.getParent()->getDataLayout().getTypeAllocSize(U->Tape) >
                MaxEmbeddedTapeBytes) {
          Layout.PushedCallees.insert(CB);
          Layout.CalleeTapes[CB] =
              addStored(BB, {RecordStore::CalleeTape, CB}, Ptr);
        } else {
          Layout.CalleeTapes[CB] = {nullptr, Layout.addStatic(U->Tape)};
        }
        continue;
      }
      if (isLinear(&I)) {
        // The tangent half of a mixed call becomes g.lin's result.
        auto *Agg = dyn_cast<Instruction>(I.getOperand(0));
        if (isa<ExtractValueInst>(I) && Agg && mixedCallee(*Agg))
          continue;
        for (Value *Op : I.operands())
          noteResidual(BB, Op);
        continue;
      }
      if (auto *Br = dyn_cast<BranchInst>(&I); Br && Br->isConditional()) {
        // f.lin leaves an array loop by counting, not by the condition.
        if (!isArrayLatch(&BB))
          noteResidual(BB, Br->getCondition());
      } else if (auto *Sw = dyn_cast<SwitchInst>(&I)) {
        noteResidual(BB, Sw->getCondition());
      } else if (I.isTerminator() && !isa<ReturnInst>(I) &&
                 !isa<BranchInst>(I) && !isa<UnreachableInst>(I)) {
        D.diags().errorAt(I, Twine("cannot differentiate through the "
                                   "terminator '") +
                                 I.getOpcodeName() + "' (not supported yet)");
        return false;
      }
    }
  }
  finalizeRecordResiduals();
  // Shadows of local variables must outlive f.fwd: they live in the tape,
  // at offsets as aligned as the variables (the tape itself is then
  // 16-byte aligned: a zero-sized vector field raises its alignment).
  const DataLayout &DL = Jvp.getParent()->getDataLayout();
  bool Marked = false;
  for (Instruction &I : instructions(Jvp))
    if (I.getMetadata(ShadowAllocaMD)) {
      auto *AI = cast<AllocaInst>(&I);
      uint64_t Align = AI->getAlign().value();
      if (Align > 16) {
        D.diags().errorAt(I, "cannot differentiate through a local variable "
                             "aligned to more than 16 bytes (not supported "
                             "yet)");
        return false;
      }
      if (Align > 8 && !Marked) {
        Layout.addStatic(ArrayType::get(FixedVectorType::get(I64, 2), 0));
        Marked = true;
      }
      uint64_t Offset =
          DL.getStructLayout(StructType::get(Ctx, Layout.StaticFields))
              ->getSizeInBytes();
      if (uint64_t Pad = (Align - Offset % Align) % Align)
        Layout.addStatic(ArrayType::get(Type::getInt8Ty(Ctx), Pad));
      Type *T = AI->getAllocatedType();
      if (auto *N = dyn_cast<ConstantInt>(AI->getArraySize()); N && !N->isOne())
        T = ArrayType::get(T, N->getZExtValue());
      Layout.ShadowAllocas[AI] = Layout.addStatic(T);
    }
  NumResiduals += Layout.StaticResiduals.size();
  for (auto &[Key, R] : Layout.Records) {
    R.Ty = StructType::get(Ctx, R.Fields);
    R.Array = arrayLoopOf(Key);
    NumResiduals += R.Stores.size();
  }
  TapeTy->setBody(Layout.StaticFields);
  publishTapeSize(*Jvp.getParent(), TapeTy);
  return true;
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
  // A returned pointer comes with its shadow, as from f.jvp.
  Type *RetTy = Primal.getReturnType()->isPointerTy() ? Jvp.getReturnType()
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
  SmallVector<ReturnInst *, 4> Returns;
  CloneFunctionInto(Fwd, &Jvp, VMap, CloneFunctionChangeType::GlobalChanges,
                    Returns);
  copyPrimalAttributes(*Fwd, Primal, Primal.arg_size(), /*WritesTape=*/true);
  Fwd->setLinkage(GlobalValue::InternalLinkage);
  tagDerived(*Fwd, DerivedKind::Fwd, Primal, Info.Act);
  auto FwdBlock = [&](BasicBlock *BB) {
    return cast<BasicBlock>(VMap.lookup(BB));
  };
  LLVMContext &Ctx = Fwd->getContext();
  Type *I64 = Type::getInt64Ty(Ctx);

  // Static residuals are stored right where they become available.
  for (auto [V, Field] : Layout.StaticResiduals) {
    Value *Mapped = VMap.lookup(V);
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
    auto *FwdAI = cast<AllocaInst>(VMap.lookup(AI));
    IRBuilder<> B(FwdAI);
    Value *InTape = staticField(B, TapePtr, Field);
    InTape->takeName(FwdAI);
    FwdAI->replaceAllUsesWith(InTape);
    FwdAI->eraseFromParent();
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
  DenseMap<CallBase *, Value *> PushedCalleeTape;
  for (auto [JvpCall, Slot] : Layout.CalleeTapes) {
    auto *Call = cast<CallBase>(VMap.lookup(JvpCall));
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
          EV->eraseFromParent();
        }
      Call->replaceAllUsesWith(PoisonValue::get(Call->getType()));
    }
    Call->eraseFromParent();
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
    Value *Backedges =
        isa<Constant>(AL.BackedgeCount)
            ? AL.BackedgeCount
            : static_cast<Value *>(VMap.lookup(AL.BackedgeCount));
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
      return VMap.lookup(S.V);
    case RecordStore::PredIndex:
      return PredIdx[S.Block];
    case RecordStore::CalleeTape:
      return PushedCalleeTape[cast<CallBase>(S.V)];
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
  // Return the primal result only; then drop every linear instruction.
  for (ReturnInst *Ret : Returns) {
    auto [Y, DY] = unpackJvpReturn(*Ret);
    if (!DY)
      continue;
    auto *Packed = cast<Instruction>(Ret->getReturnValue());
    ReturnInst::Create(Ctx, Y, Ret->getIterator());
    Ret->eraseFromParent();
    Instruction *WithPrimal = cast<Instruction>(Packed->getOperand(0));
    Packed->eraseFromParent();
    WithPrimal->eraseFromParent();
  }
  SmallVector<Instruction *, 32> Linear;
  for (BasicBlock &BB : *Fwd)
    for (Instruction &I : BB)
      if (isLinear(&I))
        Linear.push_back(&I);
  for (Instruction *I : Linear)
    I->replaceAllUsesWith(PoisonValue::get(I->getType()));
  for (Instruction *I : Linear)
    I->eraseFromParent();
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
      C->setMetadata(LLVMContext::MD_DIAssignID, nullptr);
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
    for (Instruction &I : *BB) {
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
        Instruction *C = I.clone();
        for (Use &U : C->operands())
          U.set(Operand(B, U.get()));
        C->setDebugLoc(DebugLoc());
        C->setMetadata(LLVMContext::MD_DIAssignID,
                       nullptr); // f.lin has no debug info
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
  buildFwd(Fwd);
  buildLin(Lin);
  if (!D.verifyLinearity(*Fwd) || !D.verifyLinearity(*Lin))
    return std::nullopt;
  ++NumUnzipped;
  return Unzipped{Fwd, Lin, TapeTy};
}

} // namespace ad
