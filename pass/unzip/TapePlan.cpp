//===- TapePlan.cpp - what f.fwd tapes for f.lin, and where ---------------===//
//
// The plan (TapeLayout) says, for each residual (a non-linear value f.lin
// reads) and each block that reads it, whether it is taped and where, or
// recomputed and how. planTape builds it in steps:
//
// 1. Reject irreducible loops: records and arrays follow LoopInfo's loops.
//
// 2. Find the counted loops (findArrayLoops): a preheader, a single latch
//    that is the only exiting block, and a backedge-taken count that
//    ScalarEvolution can expand at the preheader. Each gets one array of
//    records, one element per iteration; f.lin counts its iterations, so
//    neither the header's predecessor nor the latch's condition is taped.
//    The preheader and the exit block keep the array's base and count.
//
// 3. Walk the blocks: a merge block (other than an array loop's header)
//    tapes which predecessor it came from, unless the branch above it
//    decides that on a comparison f.lin can recompute
//    (RecomputedPredecessors.cpp); a mixed call's callee tape is
//    embedded in ours (outside loops, if small and finished) or pushed per
//    call; the operands of linear instructions and the conditions of
//    branches and switches are residuals (noteResidual), decided in order:
//    a. inside a counted loop, affine in its counters over static values
//       or over values an enclosing counted loop computes (a buffer's base
//       swapped every time step, kept once per iteration of that loop in
//       its record, Layout.LoopLeaves): recomputed from the counters
//       (Layout.Recomputed; CounterRecomputation.cpp);
//    b. outside loops, cheap arithmetic on at most one value: recomputed
//       from that value (Layout.Rematerialized);
//    c. computed outside every loop, or read outside every loop: taped
//       once, in the static tape (Layout.StaticResiduals);
//    d. otherwise requested of the record the reading block writes.
//
// 4. Place the requests (finalizeRecordResiduals): first, for each counted
//    loop, choose whether to keep the values its header carries across
//    iterations (the state of a time step) because the requests they make
//    recomputable take more bytes than they do; then cheap arithmetic on
//    values the same record holds anyway, or on free ones, is recomputed,
//    up to a budget of instructions per record; the rest is a field of the
//    record (one field per value and record). RecordResiduals.cpp.
//
// 5. Place the shadows of locals in the static tape, as aligned as the
//    locals; then give the records and %f.tape their types.
//
//===----------------------------------------------------------------------===//
#include "UnzipImpl.h"
#include "driver/OpenMPRegions.h"
#include "ir/LLVMCompat.h"
#include "ir/Linearity.h"
#include "ir/ShadowMemory.h"
#include "linearize/JvpRules.h"
#include "linearize/Linearize.h"
#include "unzip/Checkpoint.h"
#include "unzip/StableCallArgs.h"
#include "unzip/TapeRuntime.h"
#include "unzip/Unzip.h"

#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/Analysis/CFG.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/DiagnosticHandler.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LLVMRemarkStreamer.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/Printable.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"

#define DEBUG_TYPE "ad-unzip"

using namespace llvm;

/// Off: math calls (exp, sin, log) that f.rev could call again from what
/// it has are kept on the tape instead: a faster gradient for 8 bytes per
/// call (and iteration, in loops).
static cl::opt<bool> RecomputeMathCalls(
    "ad-recompute-math-calls", cl::init(true), cl::Hidden,
    cl::desc("Call exp, sin, log... again in the reverse pass rather than "
             "keep their results on the tape"));

bool ad::mathCallsRecomputed() { return RecomputeMathCalls; }

STATISTIC(NumResiduals, "Number of residuals saved on tapes");
STATISTIC(NumRecomputed,
          "Number of residuals recomputed from iteration counters");
STATISTIC(NumRematerialized,
          "Number of residuals recomputed from their operands");

namespace ad {

#ifndef NDEBUG
/// \p V as an operand ("%x", "%12"), for the traces.
static Printable operandName(const Value *V) {
  return Printable([V](raw_ostream &OS) { V->printAsOperand(OS, false); });
}
#endif

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

/// Arithmetic cheap enough that recomputing it in f.rev beats a store and
/// a load of the tape. PHIs (loop-carried) and calls of library functions
/// are always taped; loads are read again where RereadableLoads allows.
bool isCheapToRecompute(const Instruction &I) {
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

bool Unzipper::isRecomputedNotTaped(const Instruction &I) const {
  return isCheapToRecompute(I) || Reread->canReread(I);
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
      LLVM_DEBUG(dbgs() << "ad-unzip: " << operandName(V) << " in "
                        << operandName(&BB)
                        << ": recomputed, affine in loop counters\n");
      noteStaticLeaves(S);
      Layout.Recomputed[{&BB, V}] = S;
      return;
    }
  }
  // Outside loops, cheap arithmetic on at most one value (an address a
  // constant offset from a pointer, a cast, a negation) is recomputed from
  // that value: the tape never grows by it, and f.rev then sees addresses
  // as offsets from one base, which alias analysis can tell apart.
  if (I && !DefinedInLoop && isRecomputedNotTaped(*I) &&
      llvm::count_if(I->operands(),
                     [](Use &U) { return !isa<Constant>(U.get()); }) <= 1) {
    LLVM_DEBUG(dbgs() << "ad-unzip: " << operandName(V) << " in "
                      << operandName(&BB)
                      << ": recomputed, cheap on one value outside loops\n");
    Layout.Rematerialized.insert({&BB, V});
    for (Value *Op : I->operands())
      noteResidual(BB, Op);
    return;
  }
  // In a helper whose call site proved arguments stable (StableCallArgs.h),
  // read outside loops too: computed again from the arguments, memory read
  // again and the values branches merged, when it can be (a projection's
  // rotation, sin and cos of the angle included), up to a budget. A helper
  // called once per iteration of its caller's loop then keeps little more
  // than its arguments per call. A request's own function keeps its static
  // tape, which is one per call anyway.
  if (I && !DefinedInLoop && !LI->getLoopFor(&BB) &&
      Info.Act.stableArgs().any() && StaticRebuilt < MaxStaticRebuilt &&
      rebuildableFromArguments(*I, 0)) {
    LLVM_DEBUG(dbgs() << "ad-unzip: " << operandName(V) << " in "
                      << operandName(&BB)
                      << ": recomputed from arguments, outside loops\n");
    ++StaticRebuilt;
    Layout.Rematerialized.insert({&BB, V});
    for (Value *Op : I->operands())
      noteResidual(BB, Op);
    return;
  }
  if (!Key || !DefinedInLoop) {
    LLVM_DEBUG(dbgs() << "ad-unzip: " << operandName(V) << " in "
                      << operandName(&BB) << ": taped, static tape ("
                      << (Key ? "defined" : "read") << " outside loops)\n");
    auto [It, New] = Layout.StaticResiduals.insert({V, 0});
    if (New)
      It->second = Layout.addStatic(V->getType());
    Layout.Reads[{&BB, V}] = {nullptr, It->second};
    return;
  }
  Requests.insert({&BB, V});
}

/// Whether \p I, computed outside loops, follows from constants, arguments
/// and PHIs (which the static tape keeps) through cheap arithmetic, memory
/// read again and math calls (exp, sin), nothing of which is linear: after
/// a branch, what follows from the values it merged. Memoised: a DAG.
bool Unzipper::rebuildableFromArguments(const Instruction &I, unsigned Depth) {
  if (auto It = RebuildableFromArgs.find(&I); It != RebuildableFromArgs.end())
    return It->second;
  if (Depth >= MaxStaticRebuildDepth || isLinear(&I) ||
      LI->getLoopFor(I.getParent()) ||
      !(isRecomputedNotTaped(I) ||
        (mathCallsRecomputed() && isScalarMathCall(I, &D.tli(Jvp)))))
    return false;
  bool R = llvm::all_of(I.operands(), [&](const Use &Op) {
    if (isa<Constant>(Op.get()))
      return true;
    if (auto *A = dyn_cast<Argument>(Op.get()))
      return !isTangentArg(*A);
    auto *OpI = dyn_cast<Instruction>(Op.get());
    return OpI && !isLinear(OpI) &&
           (isa<PHINode>(OpI) || rebuildableFromArguments(*OpI, Depth + 1));
  });
  return RebuildableFromArgs[&I] = R;
}

void Unzipper::findArrayLoops() {
  ScalarEvolution &SE = *this->SE;
  Type *I64 = Type::getInt64Ty(Jvp.getContext());
  for (Loop *L : LI->getLoopsInPreorder()) {
    auto Skip = [&](const char *Why) {
      LLVM_DEBUG(dbgs() << "ad-unzip: loop at " << operandName(L->getHeader())
                        << ": a record per block execution, " << Why << "\n");
    };
    BasicBlock *PH = L->getLoopPreheader(), *Latch = L->getLoopLatch();
    if (!PH || !Latch || L->getExitingBlock() != Latch || !L->getExitBlock()) {
      Skip("not a loop with a preheader left only at its latch");
      continue;
    }
    auto *Br = dyn_cast<BranchInst>(Latch->getTerminator());
    if (!Br || !Br->isConditional()) {
      Skip("its latch does not branch on a condition");
      continue;
    }
    const SCEV *BTC = SE.getBackedgeTakenCount(L);
    if (isa<SCEVCouldNotCompute>(BTC) || !BTC->getType()->isIntegerTy() ||
        BTC->getType()->getIntegerBitWidth() > 64) {
      Skip("trip count unknown at entry");
      continue;
    }
    BTC = SE.getNoopOrZeroExtend(BTC, I64);
    SCEVExpander Exp = makeSCEVExpander(SE, "ad.trip");
    if (!Exp.isSafeToExpandAt(BTC, PH->getTerminator())) {
      Skip("trip count not computable at the preheader");
      continue;
    }
    LLVM_DEBUG(dbgs() << "ad-unzip: loop at " << operandName(L->getHeader())
                      << ": counted, an array of records\n");
    ArrayLoop AL;
    AL.Id = Layout.ArrayLoops.size();
    AL.L = L;
    AL.Backedges = BTC;
    AL.BackedgeCount = Exp.expandCodeFor(BTC, I64, PH->getTerminator());
    AL.BackedgeCount->setName("backedges");
    Layout.ArrayLoops[L] = AL;
  }
}

/// Records and counted loops follow LoopInfo's loops; a cycle entered in
/// the middle is none of them, and f.rev would never leave it.
bool Unzipper::rejectIrreducibleLoops() {
  ReversePostOrderTraversal<Function *> RPOT(&Jvp);
  if (!containsIrreducibleCFG<BasicBlock *>(RPOT, *LI))
    return true;
  D.diags().errorAt(*Jvp.getEntryBlock().getTerminator(),
                    "cannot differentiate in reverse mode a loop that is "
                    "entered in the middle (a goto into a loop body, or a "
                    "switch into one, as in Duff's device): not supported "
                    "yet; restructure the loop, or use forward mode "
                    "(__ad_derivative)");
  return false;
}

/// The insertvalues that pack f.jvp's {y, dy}: neither f.fwd nor f.lin
/// keeps them.
void Unzipper::noteReturnPacking() {
  for (BasicBlock &BB : Jvp)
    if (auto *Ret = dyn_cast<ReturnInst>(BB.getTerminator()))
      if (auto [Y, DY] = unpackJvpReturn(*Ret); DY) {
        auto *WithTangent = cast<Instruction>(Ret->getReturnValue());
        ReturnPacking.insert(WithTangent);
        ReturnPacking.insert(cast<Instruction>(WithTangent->getOperand(0)));
      }
}

/// The preheader and the exit block of an array loop keep its base and
/// count, for f.lin and f.rev to find the array from either side; once
/// every residual is placed, since that tells which loops keep nothing
/// per iteration (their array is never allocated: no base to keep), and
/// innermost loops first, since an inner loop's entries are fields of the
/// enclosing loop's record. A count affine in the counters of enclosing
/// counted loops over static values (the d - col - 1 rows of a triangle)
/// is recomputed, not kept. When the preheader dominates the exit block
/// and both write the same record (the static tape, or the same element
/// of an enclosing loop's array: the same iteration of it), the exit block
/// reads what the preheader kept.
void Unzipper::addLoopEntries() {
  SmallVector<Loop *, 8> Loops = LI->getLoopsInPreorder();
  for (Loop *L : reverse(Loops)) {
    auto It = Layout.ArrayLoops.find(L);
    if (It == Layout.ArrayLoops.end())
      continue;
    const ArrayLoop &AL = It->second;
    BasicBlock *PH = L->getLoopPreheader(), *Exit = L->getExitBlock();
    if (isRecomputable(AL.Backedges, *PH) &&
        isRecomputable(AL.Backedges, *Exit))
      noteStaticLeaves(AL.Backedges);
    LoopEntry PHEntry = addLoopEntry(*PH, AL);
    Layout.LoopEntries[{PH, &AL}] = PHEntry;
    Layout.LoopEntries[{Exit, &AL}] =
        recordKey(PH) == recordKey(Exit) && DT->dominates(PH, Exit)
            ? PHEntry
            : addLoopEntry(*Exit, AL);
  }
}

/// The fields block \p X keeps for entering or leaving \p AL.
LoopEntry Unzipper::addLoopEntry(BasicBlock &X, const ArrayLoop &AL) {
  LLVMContext &Ctx = Jvp.getContext();
  LoopEntry E;
  auto Rec = Layout.Records.find(AL.L->getHeader());
  if (Rec != Layout.Records.end() && !Rec->second.Fields.empty())
    E.Base = addStored(X, {RecordStore::LoopBase, nullptr, &AL},
                       PointerType::getUnqual(Ctx));
  if (!isRecomputable(AL.Backedges, *AL.L->getLoopPreheader()) ||
      !isRecomputable(AL.Backedges, *AL.L->getExitBlock()))
    E.Count = addStored(X, {RecordStore::LoopCount, nullptr, &AL},
                        Type::getInt64Ty(Ctx));
  return E;
}

/// What \p BB needs on the tape: its predecessor index, its callees' tapes,
/// the residuals its linear code and its terminator read. Local shadows go
/// to \p Shadows, placed after every residual.
bool Unzipper::planBlock(BasicBlock &BB,
                         SmallVectorImpl<AllocaInst *> &Shadows) {
  // The header of an array loop knows its predecessor from the count.
  if (size_t N = predecessorsInLayoutOrder(BB).size();
      N > 1 && !isArrayHeader(&BB)) {
    if (std::optional<RecomputedPred> RP = recomputablePredIndex(BB))
      Layout.RecomputedPredIndex[&BB] = *RP;
    else
      Layout.PredIndex[&BB] = addStored(BB, {RecordStore::PredIndex},
                                        predIndexType(Jvp.getContext(), N));
  }
  for (Instruction &I : BB) {
    if (ReturnPacking.count(&I))
      continue;
    // The kind first: a metadata lookup costs a probe of a context-wide
    // table, and every f.jvp instruction carries marks.
    if (auto *AI = dyn_cast<AllocaInst>(&I);
        AI && AI->getMetadata(ShadowAllocaMD)) {
      Shadows.push_back(AI);
      continue;
    }
    if (Function *Callee = mixedCallee(I)) {
      if (!planCallee(BB, cast<CallBase>(I), *Callee))
        return false;
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
    if (I.isTerminator() && !noteControlResidual(BB, I))
      return false;
  }
  return true;
}

/// Where the tape of g.fwd, called from \p BB, lives: a field of ours, or
/// (pushed per call) a tape whose address ours keeps.
bool Unzipper::planCallee(BasicBlock &BB, CallBase &CB, Function &Target) {
  // The callee may read again what this call proves stable.
  Function *Refined = retargetToStableArgs(CB, Target, *Reread, D);
  if (!Refined)
    return false;
  Function &Callee = *Refined;
  std::optional<Unzipped> U = D.getUnzipped(Callee);
  if (!U)
    return false;
  if (getDerivedInfo(Callee)->Act.checkpoint() &&
      !checkCheckpointedCall(CB, D, *Reread))
    return false;
  Layout.Callees[&CB] = *U;
  // Inside a loop, when the callee is still being unzipped (a recursive
  // call: its tape cannot be part of ours), or when its tape is large
  // (embedding tapes of a call tree makes ours as large as the tree: stack
  // overflow), the callee's tape is pushed for each call; our tape or
  // record keeps its address.
  if (recordKey(&BB) || U->Fwd->isDeclaration() ||
      Jvp.getParent()->getDataLayout().getTypeAllocSize(U->Tape) >
          MaxEmbeddedTapeBytes) {
    LLVM_DEBUG(dbgs() << "ad-unzip: tape of " << Callee.getName()
                      << " pushed per call\n");
    Layout.PushedCallees.insert(&CB);
    Layout.CalleeTapes[&CB] =
        addStored(BB, {RecordStore::CalleeTape, &CB},
                  PointerType::getUnqual(Jvp.getContext()));
    return true;
  }
  LLVM_DEBUG(dbgs() << "ad-unzip: tape of " << Callee.getName()
                    << " embedded in the static tape\n");
  Layout.CalleeTapes[&CB] = {nullptr, Layout.addStatic(U->Tape)};
  return true;
}

/// The condition f.lin and f.rev branch on, read from the tape; false (with
/// an error) for a terminator they cannot follow.
bool Unzipper::noteControlResidual(BasicBlock &BB, Instruction &Term) {
  if (auto *Br = dyn_cast<BranchInst>(&Term); Br && Br->isConditional()) {
    // f.lin leaves an array loop by counting, not by the condition.
    if (!isArrayLatch(&BB))
      noteResidual(BB, Br->getCondition());
  } else if (auto *Sw = dyn_cast<SwitchInst>(&Term)) {
    noteResidual(BB, Sw->getCondition());
  } else if (!isa<ReturnInst>(Term) && !isa<BranchInst>(Term) &&
             !isa<UnreachableInst>(Term)) {
    D.diags().errorAt(Term, Twine("cannot differentiate through the "
                                  "terminator '") +
                                Term.getOpcodeName() + "' (not supported yet)");
    return false;
  }
  return true;
}

/// Shadows of local variables must outlive f.fwd: they live in the tape,
/// at offsets as aligned as the variables (the tape itself is then
/// 16-byte aligned: a zero-sized vector field raises its alignment).
void Unzipper::placeShadowAllocas(ArrayRef<AllocaInst *> Shadows) {
  LLVMContext &Ctx = Jvp.getContext();
  const DataLayout &DL = Jvp.getParent()->getDataLayout();
  bool Marked = false;
  for (AllocaInst *AI : Shadows) {
    uint64_t Align = AI->getAlign().value();
    Type *T = AI->getAllocatedType();
    if (auto *N = dyn_cast<ConstantInt>(AI->getArraySize()); N && !N->isOne())
      T = ArrayType::get(T, N->getZExtValue());
    if (isAlignedBeyondTape(*AI)) {
      // _Alignas(32) or AVX-512 vectors: more than the tape promises. The
      // field is a byte array with room to round its address up; f.fwd
      // does so (Unzip.cpp), and f.lin reads the rounded address like any
      // residual.
      Layout.ShadowAllocas[AI] = Layout.addStatic(ArrayType::get(
          Type::getInt8Ty(Ctx), DL.getTypeAllocSize(T) + Align - 1));
      continue;
    }
    if (Align > 8 && !Marked) {
      Layout.addStatic(
          ArrayType::get(FixedVectorType::get(Type::getInt64Ty(Ctx), 2), 0));
      Marked = true;
    }
    // Where the field would start: after the last one (not at the
    // struct's size, which is rounded up to its alignment, 16 once the
    // marker is in), at T's own alignment. Padding only when that is
    // less than the local's.
    uint64_t Offset = 0;
    if (!Layout.StaticFields.empty()) {
      const StructLayout *SL =
          DL.getStructLayout(StructType::get(Ctx, Layout.StaticFields));
      Offset = SL->getElementOffset(Layout.StaticFields.size() - 1) +
               DL.getTypeAllocSize(Layout.StaticFields.back());
    }
    Offset = alignTo(Offset, DL.getABITypeAlign(T));
    if (uint64_t Pad = (Align - Offset % Align) % Align)
      Layout.addStatic(ArrayType::get(Type::getInt8Ty(Ctx), Pad));
    Layout.ShadowAllocas[AI] = Layout.addStatic(T);
  }
}

/// The record types and %f.tape's body, now that every field is known.
void Unzipper::finishTapeTypes() {
  LLVMContext &Ctx = Jvp.getContext();
  NumResiduals += Layout.StaticResiduals.size();
  NumRecomputed += Layout.Recomputed.size();
  NumRematerialized += Layout.Rematerialized.size();
  for (auto &[Key, R] : Layout.Records) {
    R.Ty = StructType::get(Ctx, R.Fields);
    R.Array = arrayLoopOf(Key);
    NumResiduals += R.Stores.size();
    LLVM_DEBUG(dbgs() << "ad-unzip: record of " << operandName(Key) << ": "
                      << R.Fields.size() << " fields, "
                      << (R.Array ? "an array element per iteration\n"
                                  : "pushed per execution\n"));
  }
  // A parallel region's caller keeps the region object where the tape
  // would be, and gives each thread a tape of its own (OpenMPRegions.h).
  if (isParallelRegion(*Info.Primal))
    Layout.addStatic(PointerType::getUnqual(Ctx));
  TapeTy->setBody(Layout.StaticFields);
  publishTapeSize(*Jvp.getParent(), TapeTy);
}

/// Each loop of f.jvp with the bytes its records take per iteration: the
/// array element of a counted loop, or the records its blocks push (the
/// runtime rounds each to TapeAlignment). Loops that keep nothing are
/// listed too, with 0.
void Unzipper::summarizeLoops() {
  const DataLayout &DL = Jvp.getParent()->getDataLayout();
  for (Loop *L : LI->getLoopsInPreorder()) {
    TapeSummary::LoopRecords LR;
    LR.Loc = L->getStartLoc();
    LR.Counted = Layout.ArrayLoops.count(L);
    LR.WhenDisjoint = Disjoint.Headers.count(L->getHeader());
    for (auto &[Key, R] : Layout.Records) {
      if (LI->getLoopFor(Key) != L)
        continue;
      uint64_t Bytes = DL.getTypeAllocSize(R.Ty);
      LR.Bytes += R.Array ? Bytes : alignTo(Bytes, TapeAlignment);
    }
    Summary.Loops.push_back(LR);
  }
}

/// The loads whose values are taped, and why RereadableLoads refused them
/// (or, when it did not, why they are taped anyway).
void Unzipper::summarizeKeptLoads() {
  DenseSet<Value *> ReadDirectly;
  for (auto &[Use, Slot] : Layout.Reads)
    ReadDirectly.insert(Use.second);
  auto Note = [&](Value *V, BasicBlock *Key) {
    auto *Load = dyn_cast<LoadInst>(V);
    if (!Load)
      return;
    RereadableLoads::Refusal Why = Reread->whyNot(*Load);
    if (Why.Reason.empty())
      Why.Reason =
          !Key && !ReadDirectly.count(V)
              ? "the addresses and indices of a loop are recomputed from it"
              : "its address is not recomputed in the reverse pass";
    TapeSummary::KeptLoad K;
    K.Loc = Load->getDebugLoc();
    K.Object = Why.Object;
    K.Reason = Why.Reason;
    if (Key) {
      K.InLoop = true;
      K.LoopLoc = LI->getLoopFor(Key)->getStartLoc();
    }
    Summary.KeptLoads.push_back(std::move(K));
  };
  for (auto &[V, Field] : Layout.StaticResiduals)
    Note(V, nullptr);
  SmallPtrSet<Value *, 16> Seen;
  for (auto &[Key, R] : Layout.Records)
    for (const RecordStore &S : R.Stores)
      if (S.K == RecordStore::Residual && Seen.insert(S.V).second)
        Note(S.V, Key);
}

void Unzipper::summarizeTape() {
  const DataLayout &DL = Jvp.getParent()->getDataLayout();
  Summary.StaticBytes = DL.getTypeAllocSize(TapeTy);
  summarizeLoops();
  for (BasicBlock &BB : Jvp)
    for (Instruction &I : BB) {
      auto *CB = dyn_cast<CallBase>(&I);
      if (!CB || !Layout.PushedCallees.count(CB))
        continue;
      StructType *CalleeTape = Layout.Callees.lookup(CB).Tape;
      Summary.PushedCallees.push_back(
          {displayName(*CB->getCalledFunction()), CB->getDebugLoc(),
           CalleeTape && !CalleeTape->isOpaque()
               ? uint64_t(DL.getTypeAllocSize(CalleeTape))
               : 0,
           recordKey(&BB) != nullptr});
    }
  summarizeKeptLoads();
}

Value *Unzipper::rebaseForHandle(IRBuilderBase &B, Value *Read) {
  if (!Info.Act.forHandle() || !Read->getType()->isPointerTy())
    return Read;
  return emitHandleRebase(B, Read);
}

void Unzipper::buildAnalyses() {
  Reread.reset();
  SE.reset();
  DT = std::make_unique<DominatorTree>(Jvp);
  LI = std::make_unique<LoopInfo>(*DT);
  AC = std::make_unique<AssumptionCache>(Jvp);
  SE = std::make_unique<ScalarEvolution>(Jvp, D.tli(Jvp), *AC, *DT, *LI);
  Reread = std::make_unique<RereadableLoads>(
      Jvp, Info.Primal->arg_size(),
      // A handle's f.rev runs whenever its user applies it, after memory
      // may have changed: it reads nothing again.
      D.calledOnlyByRequests(*Info.Primal) && !Info.Act.forHandle(),
      Info.Act.forHandle() ? SmallBitVector() : Info.Act.stableArgs(),
      [this](const Value *V) { return isLinear(V); }, *DT, *LI, *AC, D.tli(Jvp),
      &Disjoint.Excused);
}

bool Unzipper::planTape() {
  LinearInJvp = linearInstructions(Jvp);
  buildAnalyses();
  if (!rejectIrreducibleLoops())
    return false;
  // Copies of loop nests behind run-time checks: planned on f.jvp as it
  // was, then everything is asked again of f.jvp as it is.
  if (versionNestsOnDisjointAccesses(
          Jvp, *Reread, [this](const Value *V) { return isLinear(V); }, *DT,
          *LI, *SE, Disjoint)) {
    LinearInJvp = linearInstructions(Jvp);
    buildAnalyses();
  }
  findArrayLoops();
  noteReturnPacking();
  SmallVector<AllocaInst *, 8> Shadows;
  for (BasicBlock &BB : Jvp)
    if (!planBlock(BB, Shadows))
      return false;
  finalizeRecordResiduals();
  addLoopEntries();
  // MemorySSA describes f.jvp as it is now; building f.fwd and f.lin from
  // it changes it.
  Forwarding.reset();
  placeShadowAllocas(Shadows);
  finishTapeTypes();
  // Only for the remarks: the account walks the function again.
  LLVMContext &Ctx = Jvp.getContext();
  if (Ctx.getLLVMRemarkStreamer() ||
      Ctx.getDiagHandlerPtr()->isAnyRemarkEnabled(RemarkPassName))
    summarizeTape();
  return true;
}

} // namespace ad
