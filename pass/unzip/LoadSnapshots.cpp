//===- LoadSnapshots.cpp - loads f.rev reads from a copy ------------------===//
//
// A load of scratch memory (a malloc'd table freed before the function
// returns) is taped: f.rev cannot read it again. Inside a loop nest that
// is once per iteration of the nest, even when the nest never writes the
// table and reads the same cells over and over (exp(q_k) of a Gaussian
// mixture, read for every point: n K d doubles). Copying the cells the
// nest reads once, before it, costs far less.
//
// A taped load L in a nest of counted loops with no enclosing loop gets
// such a copy when
//  1. RereadableLoads does not let f.rev read L again;
//  2. no write of the nest may modify L's underlying object, by alias
//     analysis over the whole object (calls and free included): what the
//     copy holds is what every execution of L reads;
//  3. ScalarEvolution bounds its address over the nest by expressions
//     computable at the nest's preheader (accessRangeOver), and L's
//     object is allocated before the nest with a size f.fwd knows there
//     (malloc, calloc, aligned_alloc, new, a local of fixed size). The
//     copy is of the range clamped to the object: a loop guarded inside
//     the nest (`if (d > 0)` before an inner loop) may not run, and the
//     bounds ScalarEvolution gives for it are then no addresses at all;
//     every address L does read lies in both;
//  4. its address does not depend on some loop around L in the nest (the
//     copy is then smaller than the values taping keeps), and f.lin can
//     recompute it from the counters.
// f.fwd then, at the nest's preheader, copies the clamped range into a
// block of __ad_alloc, and keeps the block and the clamped range's start
// in the static tape; f.lin and f.rev read L at block + (address -
// start). f.lin marks
// the preheader with __ad_snapshot_live(block), which f.rev, done with
// the nest, turns into __ad_free(block).
//
// Only in functions called by requests alone (not in callees, whose f.fwd
// may run on another thread than their f.rev, in a parallel region); not
// for handles (f.rev runs any number of times), checkpointed functions
// (f.fwd runs again inside f.rev) or modules with nested requests (an
// outer request would differentiate f.fwd's copy, and __ad_alloc has no
// derivative rule).
//
//===----------------------------------------------------------------------===//
#include "UnzipImpl.h"
#include "driver/OpenMPRegions.h"
#include "ir/AccessRanges.h"
#include "ir/FunctionAliasAnalysis.h"
#include "ir/LLVMCompat.h"
#include "ir/ShadowMemory.h"

#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"

#define DEBUG_TYPE "ad-unzip"

using namespace llvm;

namespace ad {

/// The outermost loop of the nest of counted loops around \p BB; null
/// unless every loop around it is counted.
static Loop *countedNest(BasicBlock &BB, const TapeLayout &Layout,
                         const LoopInfo &LI) {
  Loop *Outer = nullptr;
  for (Loop *L = LI.getLoopFor(&BB); L; L = L->getParentLoop()) {
    if (!Layout.ArrayLoops.count(L))
      return nullptr;
    Outer = L;
  }
  return Outer;
}

/// The object \p L reads when f.fwd can tell its size before \p Nest: a
/// block of malloc, calloc, aligned_alloc or new, or a local of fixed
/// size, allocated before the nest.
static Instruction *objectOfKnownSize(const LoadInst &L, const Loop &Nest,
                                      const DominatorTree &DT) {
  auto *Obj = dyn_cast<Instruction>(
      const_cast<Value *>(getUnderlyingObject(L.getPointerOperand())));
  if (!Obj || !DT.dominates(Obj, Nest.getLoopPreheader()->getTerminator()))
    return nullptr;
  if (auto *CB = dyn_cast<CallBase>(Obj))
    return knowsAllocationSize(*CB) ? Obj : nullptr;
  auto *AI = dyn_cast<AllocaInst>(Obj);
  std::optional<TypeSize> Size =
      AI ? AI->getAllocationSize(AI->getDataLayout()) : std::nullopt;
  return Size && !Size->isScalable() ? Obj : nullptr;
}

/// Whether \p S changes from one iteration of \p L to the next: an
/// add-recurrence of \p L, or a value computed in it. (ScalarEvolution's
/// loop invariance asks more: the same value throughout \p L, inner loops
/// included.)
static bool dependsOnCounter(const SCEV *S, const Loop &L) {
  return SCEVExprContains(S, [&](const SCEV *X) {
    if (auto *AR = dyn_cast<SCEVAddRecExpr>(X))
      return AR->getLoop() == &L;
    auto *U = dyn_cast<SCEVUnknown>(X);
    auto *I = U ? dyn_cast<Instruction>(U->getValue()) : nullptr;
    return I && L.contains(I);
  });
}

std::optional<SnapshotRead> Unzipper::snapshotRead(LoadInst &L,
                                                   BasicBlock &UseBB) {
  if (Info.Act.forHandle() || Info.Act.checkpoint() || Info.Act.level() ||
      D.derivedCodeDifferentiated() || !Reread->enabled() ||
      isParallelRegion(*Info.Primal) || !L.isSimple() ||
      !SE->isSCEVable(L.getPointerOperandType()) || Reread->canReread(L))
    return std::nullopt;
  Loop *Nest = countedNest(*L.getParent(), Layout, *LI);
  Instruction *Object = Nest ? objectOfKnownSize(L, *Nest, *DT) : nullptr;
  if (!Object || !Nest->contains(&UseBB))
    return std::nullopt;
  // Condition 4: some loop around L in the nest leaves the address alone.
  const SCEV *Address = SE->getSCEV(L.getPointerOperand());
  bool Repeats = false;
  for (Loop *In = LI->getLoopFor(L.getParent()); In; In = In->getParentLoop())
    Repeats |= !dependsOnCounter(Address, *In);
  if (!Repeats || !isRecomputable(Address, UseBB))
    return std::nullopt;
  auto Range = accessRangeOver(L, *Nest, *SE, *DT, *LI);
  Instruction *At = Nest->getLoopPreheader()->getTerminator();
  SCEVExpander Exp = makeSCEVExpander(*SE, "ad.snapshot");
  if (!Range || !Exp.isSafeToExpandAt(Range->first, At) ||
      !Exp.isSafeToExpandAt(Range->second, At))
    return std::nullopt;
  // Condition 2; linear code writes shadows only.
  if (loopMayModifyObject(
          *Nest, getUnderlyingObject(L.getPointerOperand()), aliasAnalysis(),
          [this](const Instruction &W) { return isLinear(&W); }))
    return std::nullopt;
  noteStaticLeaves(Address);
  return SnapshotRead{snapshotOf(*Nest, *Object, Range->first, Range->second),
                      Address};
}

unsigned Unzipper::snapshotOf(Loop &Nest, Instruction &Object,
                              const SCEV *Start, const SCEV *End) {
  for (unsigned K = 0; K < Layout.Snapshots.size(); ++K) {
    const Snapshot &S = Layout.Snapshots[K];
    if (S.Nest == &Nest && S.Object == &Object &&
        SE->getSCEV(S.Start) == Start && SE->getSCEV(S.End) == End)
      return K;
  }
  LLVM_DEBUG(dbgs() << "ad-unzip: snapshot of " << *Start << " to " << *End
                    << " before the loop at " << Nest.getHeader()->getName()
                    << "\n");
  Instruction *At = Nest.getLoopPreheader()->getTerminator();
  SCEVExpander Exp = makeSCEVExpander(*SE, "ad.snapshot");
  Snapshot S;
  S.Nest = &Nest;
  S.Object = &Object;
  S.Start = Exp.expandCodeFor(Start, Start->getType(), At);
  S.End = Exp.expandCodeFor(End, End->getType(), At);
  Type *Ptr = PointerType::getUnqual(Jvp.getContext());
  S.StartField = Layout.addStatic(Ptr);
  S.BlockField = Layout.addStatic(Ptr);
  Layout.Snapshots.push_back(S);
  return Layout.Snapshots.size() - 1;
}

} // namespace ad
