//===- ForwardedStores.cpp - loads f.rev recomputes from a store ----------===//
//
// A load of scratch memory (a malloc'd buffer, a local array) is taped:
// the buffer may be freed or rewritten before f.rev runs. But when an
// earlier counted loop filled the cell with a value f.rev can compute
// (c[j] = x[j] - m[j], over inputs f.rev reads again), f.rev computes that
// value for the cell the load reads instead: nothing goes on the tape.
//
// The load L reads the value the store S wrote at iteration It of S's loop
// LS when
//  1. LS is a counted loop, S is in LS's body (no inner loop) and runs on
//     every iteration (its block dominates the latch), stores to
//     {B,+,Step}<LS> with a constant Step at least the store's size and
//     without self-wrap: each iteration writes its own cell;
//  2. S is the only write in LS that may modify S's object (alias
//     analysis): no other write in LS overwrites what S stored;
//  3. LS's preheader dominates L and every loop around the preheader
//     contains L: within each iteration of those loops, LS runs to its end
//     before L;
//  4. MemorySSA's walker names S as the write that clobbers L: no other
//     write that may alias L's cell lies between;
//  5. L's address is B + It * Step, It = {0,+,1}<LL> over a counted loop LL
//     no longer than LS (its backedge count at most LS's), or It is
//     invariant at L and at most LS's backedge count, by ScalarEvolution;
//     L loads S's type.
// Then f.lin and f.rev rebuild S's value at It: integers and addresses
// through ScalarEvolution with LS's add-recurrences evaluated at It
// (SCEVLoopAddRecRewriter) and then recomputed from counters; loads that
// RereadableLoads lets f.rev read again, at those addresses; cheap
// arithmetic; values computed before LS are residuals of L's block.
//
//===----------------------------------------------------------------------===//
#include "UnzipImpl.h"
#include "ir/FunctionAliasAnalysis.h"

#include "llvm/Analysis/MemorySSA.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Instructions.h"

#define DEBUG_TYPE "ad-unzip"

using namespace llvm;

namespace ad {

/// How deep the value a store forwards may be.
static constexpr unsigned MaxForwardDepth = 16;

/// Alias analysis and MemorySSA over f.jvp, built for the first candidate.
struct StoreForwardingAnalyses {
  StoreForwardingAnalyses(Function &Jvp, TargetLibraryInfo &TLI,
                          AssumptionCache &AC, DominatorTree &DT)
      : Alias(Jvp, TLI, AC, DT),
        MSSA(std::make_unique<MemorySSA>(Jvp, &Alias.AA, &DT)) {}
  FunctionAliasAnalysis Alias;
  std::unique_ptr<MemorySSA> MSSA;
};

StoreForwardingAnalyses &Unzipper::forwardingAnalyses() {
  if (!Forwarding)
    Forwarding.reset(new StoreForwardingAnalyses(Jvp, D.tli(Jvp), *AC, *DT));
  return *Forwarding;
}

AAResults &Unzipper::aliasAnalysis() { return forwardingAnalyses().Alias.AA; }

void Unzipper::StoreForwardingDeleter::operator()(
    StoreForwardingAnalyses *A) const {
  delete A;
}

const SCEV *Unzipper::atStoreIteration(const SCEV *S,
                                       const ForwardedLoad &F) const {
  LoopToScevMapT Map;
  Map[F.StoreLoop] = F.Iteration;
  return SCEVLoopAddRecRewriter::rewrite(S, Map, *SE);
}

/// Conditions 1 and 2: S, in counted loop LS, writes cell B + k Step at
/// iteration k, and nothing else in LS writes its object.
static bool storesEachIterationAlone(StoreInst &S, const Loop &LS,
                                     ScalarEvolution &SE, DominatorTree &DT,
                                     AAResults &AA, LoopInfo &LI) {
  if (!S.isSimple() || LI.getLoopFor(S.getParent()) != &LS ||
      !DT.dominates(S.getParent(), LS.getLoopLatch()))
    return false;
  auto *AR = dyn_cast<SCEVAddRecExpr>(SE.getSCEV(S.getPointerOperand()));
  auto *Step = AR ? dyn_cast<SCEVConstant>(AR->getStepRecurrence(SE)) : nullptr;
  uint64_t Size =
      S.getDataLayout().getTypeStoreSize(S.getValueOperand()->getType());
  if (!AR || AR->getLoop() != &LS || !AR->isAffine() || !Step ||
      Step->getAPInt().isNegative() || Step->getAPInt().ult(Size) ||
      !AR->hasNoSelfWrap())
    return false;
  return !loopMayModifyObject(LS, getUnderlyingObject(S.getPointerOperand()),
                              AA,
                              [&](const Instruction &W) { return &W == &S; });
}

/// Condition 5: It, with L's address B + It * Step, within LS's iterations.
static const SCEV *iterationRead(const SCEV *LoadPtr, const SCEVAddRecExpr &AR,
                                 const SCEV *StoreBackedges,
                                 const TapeLayout &Layout,
                                 ScalarEvolution &SE) {
  const SCEV *Diff = SE.getMinusSCEV(LoadPtr, AR.getStart());
  const SCEV *Step = AR.getStepRecurrence(SE);
  if (isa<SCEVCouldNotCompute>(Diff))
    return nullptr;
  Type *I64 = StoreBackedges->getType();
  const SCEV *It = SE.getUDivExactExpr(Diff, Step);
  if (SE.getMulExpr(It, Step) != Diff ||
      It->getType()->getIntegerBitWidth() > 64)
    return nullptr;
  It = SE.getNoopOrZeroExtend(It, I64);
  if (auto *ItAR = dyn_cast<SCEVAddRecExpr>(It)) {
    auto Counted = Layout.ArrayLoops.find(const_cast<Loop *>(ItAR->getLoop()));
    if (!ItAR->isAffine() || !ItAR->getStart()->isZero() ||
        !ItAR->getStepRecurrence(SE)->isOne() ||
        Counted == Layout.ArrayLoops.end() ||
        !SE.isKnownPredicate(ICmpInst::ICMP_ULE, Counted->second.Backedges,
                             StoreBackedges))
      return nullptr;
    return It;
  }
  return SE.isKnownPredicate(ICmpInst::ICMP_ULE, It, StoreBackedges) ? It
                                                                     : nullptr;
}

std::optional<ForwardedLoad> Unzipper::forwardedStore(LoadInst &L,
                                                      BasicBlock &UseBB) {
  if (!L.isSimple() || !SE->isSCEVable(L.getPointerOperandType()))
    return std::nullopt;
  MemoryAccess *Clobber =
      forwardingAnalyses().MSSA->getWalker()->getClobberingMemoryAccess(&L);
  auto *Def = dyn_cast<MemoryDef>(Clobber);
  auto *S = Def ? dyn_cast_or_null<StoreInst>(Def->getMemoryInst()) : nullptr;
  if (!S || S->getValueOperand()->getType() != L.getType())
    return std::nullopt;
  Loop *LS = LI->getLoopFor(S->getParent());
  auto Counted = LS ? Layout.ArrayLoops.find(LS) : Layout.ArrayLoops.end();
  if (Counted == Layout.ArrayLoops.end() || LS->contains(&L) ||
      !storesEachIterationAlone(*S, *LS, *SE, *DT, Forwarding->Alias.AA, *LI))
    return std::nullopt;
  BasicBlock *PH = LS->getLoopPreheader();
  Loop *AroundPH = LI->getLoopFor(PH);
  if (!DT->dominates(PH, L.getParent()) ||
      (AroundPH && !AroundPH->contains(&L)))
    return std::nullopt;
  auto *AR = cast<SCEVAddRecExpr>(SE->getSCEV(S->getPointerOperand()));
  const SCEV *It = iterationRead(SE->getSCEV(L.getPointerOperand()), *AR,
                                 Counted->second.Backedges, Layout, *SE);
  if (!It || !isRecomputable(It, UseBB))
    return std::nullopt;
  ForwardedLoad F{S, LS, It};
  if (!forwardable(*S->getValueOperand(), F, UseBB, 0))
    return std::nullopt;
  return F;
}

bool Unzipper::forwardable(Value &V, const ForwardedLoad &F, BasicBlock &UseBB,
                           unsigned Depth) {
  if (isa<Constant>(V))
    return true;
  if (isLinear(&V))
    return false;
  if (SE->isSCEVable(V.getType()))
    return isRecomputable(atStoreIteration(SE->getSCEV(&V), F), UseBB);
  auto *I = dyn_cast<Instruction>(&V);
  if (!I || !F.StoreLoop->contains(I))
    return !I || DT->dominates(I, &UseBB);
  if (Depth >= MaxForwardDepth || isa<PHINode>(I))
    return false;
  if (auto *Ld = dyn_cast<LoadInst>(I))
    return Reread->canReread(*Ld) &&
           forwardable(*Ld->getPointerOperand(), F, UseBB, Depth + 1);
  return isCheapToRecompute(*I) && llvm::all_of(I->operands(), [&](Use &Op) {
           return forwardable(*Op.get(), F, UseBB, Depth + 1);
         });
}

void Unzipper::noteForwarded(Value &V, const ForwardedLoad &F,
                             BasicBlock &UseBB) {
  if (isa<Constant>(V))
    return;
  if (SE->isSCEVable(V.getType())) {
    noteStaticLeaves(atStoreIteration(SE->getSCEV(&V), F));
    return;
  }
  auto *I = dyn_cast<Instruction>(&V);
  if (!I || !F.StoreLoop->contains(I)) {
    noteResidual(UseBB, &V);
    return;
  }
  for (Value *Op : I->operands())
    noteForwarded(*Op, F, UseBB);
}

} // namespace ad
