//===- RecordResiduals.cpp - residuals of loop records, kept or recomputed
//-===//
//
// Step 4 of TapePlan.cpp's plan: the residuals loop blocks request of their
// records are placed. For each counted loop the values its header carries
// across iterations (the state of a time step) are kept when the requests
// they make recomputable would take more bytes; then a request that is
// cheap arithmetic on values the record holds anyway, or on free values,
// is recomputed by f.lin and f.rev, up to a budget of instructions per
// record, or computed from the store that filled the memory it loads
// (ForwardedStores.cpp), or read from a copy f.fwd makes before the loop
// nest (LoadSnapshots.cpp); the rest is a field of the record.
//
//===----------------------------------------------------------------------===//
#include "UnzipImpl.h"
#include "linearize/JvpRules.h"

#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/Printable.h"

#define DEBUG_TYPE "ad-unzip"

using namespace llvm;

namespace ad {

#ifndef NDEBUG
/// \p V as an operand ("%x", "%12"), for the traces.
static Printable operandName(const Value *V) {
  return Printable([V](raw_ostream &OS) { V->printAsOperand(OS, false); });
}
#endif

/// How deep a chain of cheap instructions f.rev rebuilds a value through.
static constexpr unsigned MaxRebuildDepth = 16;

/// How many instructions f.lin and f.rev may recompute per iteration of a
/// loop instead of reading them from its record: past that, recomputing
/// costs more time than the tape saves (a Runge-Kutta step of a small
/// system recomputes about 40).
static constexpr unsigned MaxRecomputedPerRecord = 128;

/// Places the residuals loop blocks request: in their record, or
/// recomputed by f.lin and f.rev from what is free or recorded anyway.
class RecordResidualPlacer {
public:
  explicit RecordResidualPlacer(Unzipper &U) : U(U) {
    for (auto [BB, V] : U.Requests) {
      Needed[U.recordKey(BB)].insert(V);
      RequestsOf[U.recordKey(BB)].push_back({BB, V});
    }
  }
  void place(BasicBlock &BB, Value *V);
  void keepStateWhereCheaper();

private:
  bool isFree(BasicBlock &BB, Value *Op) const;
  bool rebuildable(BasicBlock &BB, Value *V, bool FromRecord, unsigned Depth);
  bool rematerializable(BasicBlock &BB, Instruction &I);
  bool readWithoutTape(BasicBlock &BB, LoadInst &L);
  void tape(BasicBlock &BB, Value *V);
  uint64_t bytesOf(Value *V) const;
  uint64_t tapedBytes(BasicBlock *Key);
  void collectLeaves(BasicBlock &BB, Value *V,
                     const SmallPtrSetImpl<Value *> &Candidates,
                     SmallPtrSetImpl<Value *> &Seen,
                     SmallPtrSetImpl<Value *> &Used);
  void keepStateIfCheaper(BasicBlock *Header);

  Unzipper &U;
  /// The residuals each record is asked for, and the loop-carried values
  /// chosen to be kept so that residuals are recomputed from them.
  DenseMap<BasicBlock *, SmallPtrSet<Value *, 16>> Needed;
  /// The requests of each record, in order.
  DenseMap<BasicBlock *, SmallVector<std::pair<BasicBlock *, Value *>, 16>>
      RequestsOf;
  /// Instructions recomputed per iteration, per record.
  DenseMap<BasicBlock *, unsigned> RecomputedIn;
  DenseMap<std::tuple<BasicBlock *, Value *, unsigned>, bool> RebuildableMemo;
};

/// Free in \p BB: a constant, a primal argument, a value computed outside
/// every loop (taped statically), or one that follows from the counters.
bool RecordResidualPlacer::isFree(BasicBlock &BB, Value *Op) const {
  if (isa<Constant>(Op))
    return true;
  if (auto *A = dyn_cast<Argument>(Op))
    return !U.isTangentArg(*A);
  auto *I = dyn_cast<Instruction>(Op);
  if (!I || U.isLinear(I))
    return false;
  if (!U.LI->getLoopFor(I->getParent()))
    return true;
  if (!U.SE->isSCEVable(Op->getType()))
    return false;
  const SCEV *S = U.SE->getSCEV(Op);
  return isa<SCEVAddRecExpr>(S) && U.isRecomputable(S, BB);
}

/// Whether \p V can be rebuilt in f.rev from free values, through cheap
/// arithmetic and loads read again (x[i] - m), and, \p FromRecord, from
/// values the record holds anyway (a Runge-Kutta stage from the step's
/// state): then nothing more of it goes on the tape. Memoised: the values
/// of one iteration form a DAG that a plain recursion would walk once per
/// path.
bool RecordResidualPlacer::rebuildable(BasicBlock &BB, Value *V,
                                       bool FromRecord, unsigned Depth) {
  if (isFree(BB, V) || (FromRecord && Needed[U.recordKey(&BB)].count(V)))
    return true;
  auto *I = dyn_cast<Instruction>(V);
  if (!I || Depth >= MaxRebuildDepth || U.isLinear(I) ||
      !U.isRecomputedNotTaped(*I))
    return false;
  auto Key = std::make_tuple(&BB, V, unsigned(FromRecord));
  if (auto It = RebuildableMemo.find(Key); It != RebuildableMemo.end())
    return It->second;
  bool R = llvm::all_of(I->operands(), [&](Use &Op) {
    return rebuildable(BB, Op.get(), FromRecord, Depth + 1);
  });
  return RebuildableMemo[Key] = R;
}

/// YOLO's store-or-recompute choice: cheap arithmetic on values the record
/// holds anyway or that can be rebuilt; a math call (exp, sin) when its
/// arguments can be rebuilt from free values, or, in a counted loop's
/// array, also from values the record holds anyway: it costs a call in
/// f.rev and saves its bytes on every iteration. Records pushed per block
/// keep math results: derived code that recomputes from them is not yet
/// differentiable four levels deep (nested_tape.c). So do handles
/// (__ad_linearize): their f.lin runs once per __ad_jvp or __ad_vjp, so
/// a call recomputed there is paid once per application.
bool RecordResidualPlacer::rematerializable(BasicBlock &BB, Instruction &I) {
  // Cheap intrinsics (fmuladd, fabs) are math calls too, but cost no more
  // than the arithmetic they stand for: they take the cheap rule.
  if (!isCheapToRecompute(I) && isScalarMathCall(I, &U.D.tli(U.Jvp)) &&
      !U.isLinear(&I)) {
    if (U.Info.Act.forHandle() || !mathCallsRecomputed())
      return false;
    bool FromRecord = U.arrayLoopOf(&BB) != nullptr;
    return llvm::all_of(I.operands(), [&](Use &Op) {
      return isa<Function>(Op.get()) ||
             rebuildable(BB, Op.get(), FromRecord, 0);
    });
  }
  return U.isRecomputedNotTaped(I) && llvm::all_of(I.operands(), [&](Use &Op) {
           return rebuildable(BB, Op.get(), /*FromRecord=*/true, 0);
         });
}

/// A load f.rev gets without the tape: computed from the store that filled
/// its cell (ForwardedStores.cpp), or read from a copy of its table made
/// before its nest (LoadSnapshots.cpp).
bool RecordResidualPlacer::readWithoutTape(BasicBlock &BB, LoadInst &L) {
  TapeLayout &Layout = U.Layout;
  if (std::optional<ForwardedLoad> F = U.forwardedStore(L, BB)) {
    LLVM_DEBUG(dbgs() << "ad-unzip: " << operandName(&L) << " in "
                      << operandName(&BB)
                      << ": recomputed from the value stored there\n");
    Layout.Forwarded[{&BB, &L}] = *F;
    U.noteForwarded(*F->Store->getValueOperand(), *F, BB);
    return true;
  }
  if (std::optional<SnapshotRead> R = U.snapshotRead(L, BB)) {
    LLVM_DEBUG(dbgs() << "ad-unzip: " << operandName(&L) << " in "
                      << operandName(&BB)
                      << ": read from a copy made before its nest\n");
    Layout.SnapshotReads[{&BB, &L}] = *R;
    return true;
  }
  return false;
}

void RecordResidualPlacer::place(BasicBlock &BB, Value *V) {
  TapeLayout &Layout = U.Layout;
  if (Layout.Reads.count({&BB, V}) || Layout.Rematerialized.count({&BB, V}) ||
      Layout.Forwarded.count({&BB, V}) || Layout.SnapshotReads.count({&BB, V}))
    return;
  auto *I = cast<Instruction>(V);
  unsigned &Recomputed = RecomputedIn[U.recordKey(&BB)];
  if (Recomputed >= MaxRecomputedPerRecord || !rematerializable(BB, *I)) {
    if (auto *L = dyn_cast<LoadInst>(I); L && readWithoutTape(BB, *L))
      return;
    return tape(BB, V);
  }
  ++Recomputed;
  LLVM_DEBUG(dbgs() << "ad-unzip: " << operandName(V) << " in "
                    << operandName(&BB)
                    << ": recomputed, cheap on values the record holds\n");
  Layout.Rematerialized.insert({&BB, V});
  for (Value *Op : I->operands()) {
    if (isa<Function>(Op))
      continue; // the callee of a recomputed math call
    if (isFree(BB, Op))
      U.noteResidual(BB, Op); // static, counter-computed or constant
    else
      place(BB, Op);
  }
}

uint64_t RecordResidualPlacer::bytesOf(Value *V) const {
  return U.Jvp.getParent()->getDataLayout().getTypeAllocSize(V->getType());
}

/// What the requests of record \p Key would take if placed now: those
/// that cannot be recomputed from the record's other values.
uint64_t RecordResidualPlacer::tapedBytes(BasicBlock *Key) {
  uint64_t Bytes = 0;
  SmallPtrSet<Value *, 16> Counted;
  for (auto [BB, V] : RequestsOf[Key])
    if (!rematerializable(*BB, *cast<Instruction>(V)) &&
        Counted.insert(V).second)
      Bytes += bytesOf(V);
  return Bytes;
}

/// The \p Candidates that rebuilding \p V in \p BB reads: the chain of
/// cheap instructions down to free values and to the record's values
/// (other requests, whose own chains are walked from them).
void RecordResidualPlacer::collectLeaves(
    BasicBlock &BB, Value *V, const SmallPtrSetImpl<Value *> &Candidates,
    SmallPtrSetImpl<Value *> &Seen, SmallPtrSetImpl<Value *> &Used) {
  if (!Seen.insert(V).second || isFree(BB, V))
    return;
  if (Candidates.count(V)) {
    Used.insert(V);
    return;
  }
  if (Needed[U.recordKey(&BB)].count(V))
    return;
  auto *I = dyn_cast<Instruction>(V);
  if (!I || !U.isRecomputedNotTaped(*I))
    return;
  for (Value *Op : I->operands())
    collectLeaves(BB, Op, Candidates, Seen, Used);
}

/// YOLO §6.1's store-or-recompute, for the state of a counted loop: the
/// values its header carries from one iteration to the next (a time
/// step's state) are not residuals themselves when no non-linear operation
/// reads them directly, yet every stage of the step is cheap arithmetic on
/// them. Keeping them is chosen when the record then holds fewer bytes
/// (the requests they make recomputable, less the state itself).
void RecordResidualPlacer::keepStateIfCheaper(BasicBlock *Header) {
  SmallPtrSet<Value *, 8> Candidates;
  for (PHINode &Phi : Header->phis())
    if (!U.isLinear(&Phi) && !Needed[Header].count(&Phi) &&
        !isFree(*Header, &Phi) && !Phi.getType()->isPointerTy() &&
        Phi.getType()->isSingleValueType())
      Candidates.insert(&Phi);
  if (Candidates.empty())
    return;
  uint64_t Before = tapedBytes(Header);
  SmallPtrSet<Value *, 16> &Kept = Needed[Header];
  Kept.insert(Candidates.begin(), Candidates.end());
  RebuildableMemo.clear();
  uint64_t After = tapedBytes(Header);
  SmallPtrSet<Value *, 8> Used;
  for (auto [BB, V] : RequestsOf[Header]) {
    SmallPtrSet<Value *, 32> Seen;
    auto *I = cast<Instruction>(V);
    if (rematerializable(*BB, *I))
      for (Value *Op : I->operands())
        collectLeaves(*BB, Op, Candidates, Seen, Used);
  }
  for (Value *V : Used)
    After += bytesOf(V);
  for (Value *V : Candidates)
    if (!Used.count(V) || After >= Before)
      Kept.erase(V);
  RebuildableMemo.clear();
}

/// The counted loops' records first: their state is kept once per
/// iteration at the header.
void RecordResidualPlacer::keepStateWhereCheaper() {
  for (auto &[L, AL] : U.Layout.ArrayLoops)
    if (RequestsOf.count(L->getHeader()))
      keepStateIfCheaper(L->getHeader());
}

/// \p V goes into the record \p BB writes (once per record), or, when an
/// enclosing counted loop computes it outside \p BB's own loop (a load
/// LICM hoisted out of an inner loop: the c[col] of a triangular product),
/// into that loop's record, once per iteration of that loop rather than of
/// the inner one.
void RecordResidualPlacer::tape(BasicBlock &BB, Value *V) {
  TapeLayout &Layout = U.Layout;
  if (U.leafLoop(*cast<Instruction>(V), BB)) {
    LLVM_DEBUG(
        dbgs() << "ad-unzip: " << operandName(V) << " in " << operandName(&BB)
               << ": taped, record of the enclosing loop computing it\n");
    U.noteLoopLeaf(*cast<Instruction>(V));
    Layout.Reads[{&BB, V}] = Layout.LoopLeaves.lookup(V);
    return;
  }
  BasicBlock *Key = U.recordKey(&BB);
  LLVM_DEBUG(dbgs() << "ad-unzip: " << operandName(V) << " in "
                    << operandName(&BB) << ": taped, record of "
                    << operandName(Key) << "\n");
  BlockRecord &R = Layout.Records[Key];
  auto [It, New] = Layout.RecordFieldOf.insert({{Key, V}, 0});
  if (New)
    It->second = R.add(V->getType());
  R.Stores.push_back({RecordStore::Residual, V, nullptr, &BB, It->second});
  Layout.Reads[{&BB, V}] = {Key, It->second};
}

/// YOLO §6.1, checkpointing as an unzip choice: a requested residual that
/// is cheap arithmetic on values the same record holds anyway (or on free
/// values: constants, static and counter-computed ones) is recomputed by
/// f.lin and f.rev instead of taped. The record never grows by this.
void Unzipper::finalizeRecordResiduals() {
  RecordResidualPlacer Placer(*this);
  Placer.keepStateWhereCheaper();
  // By index: placing one request can add others (a value outside loops
  // is rematerialized from an operand computed in another loop, which the
  // record must then hold), and those are placed in turn.
  for (size_t K = 0; K < Requests.size(); ++K)
    Placer.place(*Requests[K].first, Requests[K].second);
}

} // namespace ad
