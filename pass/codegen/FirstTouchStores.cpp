//===- FirstTouchStores.cpp - accumulations into zeroed memory as stores --===//
#include "codegen/FirstTouchStores.h"
#include "ir/AccessRanges.h"
#include "ir/LLVMCompat.h"
#include "ir/LoopCopies.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/Analysis/AliasAnalysis.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/MemoryLocation.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Debug.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/LoopUtils.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

#define DEBUG_TYPE "ad-first-touch"

using namespace llvm;

STATISTIC(NumFirstTouchLoops,
          "Loops whose accumulations into zeroed memory became stores");
STATISTIC(NumFirstTouchChecked,
          "Of those, loops copied behind a run-time check of the range");

namespace ad {
namespace {

/// Pairs of a memset and a loop considered per function and round.
constexpr unsigned MaxPlansPerRound = 256;

/// Whether \p I is a non-volatile memset of zero.
bool isZeroMemSet(const Instruction &I) {
  auto *MS = dyn_cast<MemSetInst>(&I);
  auto *Byte = MS ? dyn_cast<ConstantInt>(MS->getValue()) : nullptr;
  return Byte && Byte->isZero() && !MS->isVolatile();
}

/// Marks the memset before the original loop of a checked pair.
constexpr const char *KeptZeroingKind = "ad.first.touch.kept";

/// A cell class of the loop: the load (if any) and the store of one
/// address, which advances by the loop's step.
struct TouchPair {
  const SCEV *Ptr = nullptr;
  LoadInst *Load = nullptr;
  StoreInst *Store = nullptr;
  int64_t Offset = 0; // of the lowest address, from the memset's pointer
  uint64_t Size = 0;
};

/// The sums of \p Load and a value v become v. With \p Load reading
/// +0.0, `0.0 + v` differs from v only for v = -0.0, where it gives +0.0:
/// the same number, with the sign of an exact zero sum, which IEEE 754
/// leaves to the rounding mode. InstCombine keeps the addition (it may
/// drop it only under nsz); here it would cost an addition per cell in
/// the loop that a storing gradient does not make.
void addsZero(LoadInst &Load) {
  SmallVector<Instruction *, 2> Sums;
  for (User *U : Load.users())
    if (auto *Sum = dyn_cast<BinaryOperator>(U);
        Sum && Sum->getOpcode() == Instruction::FAdd)
      Sums.push_back(Sum);
  for (Instruction *Sum : Sums) {
    Value *Other = Sum->getOperand(Sum->getOperand(0) == &Load ? 1 : 0);
    if (Other == &Load)
      continue; // 0 + 0
    Sum->replaceAllUsesWith(Other);
    Sum->eraseFromParent();
  }
}

class FirstTouchRewrite {
public:
  FirstTouchRewrite(MemSetInst &Zeroing, Loop &L, DominatorTree &DT,
                    LoopInfo &LI, ScalarEvolution &SE, AAResults &AA)
      : Zeroing(Zeroing), L(L), DT(DT), LI(LI), SE(SE), AA(AA),
        DL(Zeroing.getModule()->getDataLayout()) {}

  bool plan();
  void apply();
  /// After apply(), the header of the loop left as the original of a
  /// checked copy (null without a copy): it is not rewritten again.
  BasicBlock *OriginalOfCopy = nullptr;

private:
  MemSetInst &Zeroing;
  Loop &L;
  DominatorTree &DT;
  LoopInfo &LI;
  ScalarEvolution &SE;
  AAResults &AA;
  const DataLayout &DL;

  SmallVector<TouchPair, 4> Pairs;
  SmallVector<Instruction *, 16> Others;
  SmallVector<BasicBlock *, 8> Between;
  int64_t Step = 0;
  const SCEV *CoveredEnd = nullptr; // bytes from the pointer
  bool ProvedWithin = false;
  bool ProvedExact = false; // and it ends where the memset's range does
  /// Accesses of the loop to other arrays (another shadow) that alias
  /// analysis cannot tell from the pairs' cells: their ranges over the
  /// loop, [Lo, End), must miss the cells, checked at run time.
  struct RangeCheck {
    const SCEV *Lo, *End;
  };
  SmallVector<RangeCheck, 2> Apart;
  /// The copy behind the check is needed.
  bool checked() const { return !ProvedWithin || !Apart.empty(); }

  bool collectAccesses();
  bool pairsTile();
  bool othersKeepOff();
  bool nothingBetween();
  void proveWithin();
  bool expandable() const;
  Value *emitCheck(Instruction *At);
  bool rangeOver(Instruction &I, RangeCheck &R);
  void zeroOutsideCover(Instruction *At);
  Loop *versionOnCheck(ValueToValueMapTy &VMap);
  SmallVector<std::pair<llvm::BasicBlock *, llvm::BasicBlock *>, 4>
  edgesOffLoopPaths();
};

/// The loop's accesses: those whose address ScalarEvolution bases on the
/// memset's pointer are grouped by address into pairs; the rest must keep
/// off (othersKeepOff).
bool FirstTouchRewrite::collectAccesses() {
  const SCEV *Base = SE.getPointerBase(SE.getSCEV(Zeroing.getDest()));
  for (BasicBlock *BB : L.blocks())
    for (Instruction &I : *BB) {
      // The loop must run to its end once entered: a call that does not
      // return would leave cells the memset no longer zeroes.
      if (!isGuaranteedToTransferExecutionToSuccessor(&I))
        return false;
      if (!I.mayReadOrWriteMemory())
        continue;
      Value *Ptr = getLoadStorePointerOperand(&I);
      if (!Ptr || SE.getPointerBase(SE.getSCEV(Ptr)) != Base) {
        Others.push_back(&I);
        continue;
      }
      auto *LoadI = dyn_cast<LoadInst>(&I);
      auto *StoreI = dyn_cast<StoreInst>(&I);
      if (!(LoadI ? LoadI->isSimple() : StoreI->isSimple()))
        return false;
      const SCEV *PtrS = SE.getSCEV(Ptr);
      auto *It = llvm::find_if(
          Pairs, [&](const TouchPair &P) { return P.Ptr == PtrS; });
      if (It == Pairs.end()) {
        Pairs.push_back({PtrS});
        It = &Pairs.back();
      }
      // One load, then one store: a second load would read the stored
      // value, a second store hide the first.
      if (LoadI) {
        if (It->Load || It->Store)
          return false;
        It->Load = LoadI;
      } else {
        if (It->Store)
          return false;
        It->Store = StoreI;
      }
    }
  return !Pairs.empty();
}

/// Each pair is stored in every iteration after its load, its address
/// advances by one step S, and the pairs tile one stretch of |S| bytes.
bool FirstTouchRewrite::pairsTile() {
  const SCEV *BTC = SE.getBackedgeTakenCount(&L);
  if (isa<SCEVCouldNotCompute>(BTC))
    return false;
  BasicBlock *Latch = L.getLoopLatch();
  const SCEV *Dest = SE.getSCEV(Zeroing.getDest());
  for (TouchPair &P : Pairs) {
    if (!P.Store || !DT.dominates(P.Store->getParent(), Latch))
      return false;
    if (P.Load && !DT.dominates(P.Load, P.Store))
      return false;
    auto *AR = dyn_cast<SCEVAddRecExpr>(P.Ptr);
    if (!AR || AR->getLoop() != &L || !AR->isAffine())
      return false;
    auto *StepC = dyn_cast<SCEVConstant>(AR->getStepRecurrence(SE));
    if (!StepC || StepC->getAPInt().getSignificantBits() > 32 ||
        StepC->getAPInt().isZero())
      return false;
    int64_t S = StepC->getAPInt().getSExtValue();
    if (Step && S != Step)
      return false;
    Step = S;
    const SCEV *Lowest =
        S > 0 ? AR->getStart() : AR->evaluateAtIteration(BTC, SE);
    auto *Off = dyn_cast<SCEVConstant>(SE.getMinusSCEV(Lowest, Dest));
    if (!Off || Off->getAPInt().getSignificantBits() > 32)
      return false;
    P.Offset = Off->getAPInt().getSExtValue();
    Type *Ty = P.Store->getValueOperand()->getType();
    P.Size = DL.getTypeStoreSize(Ty).getFixedValue();
    if (P.Load && DL.getTypeStoreSize(P.Load->getType()) != P.Size)
      return false;
  }
  llvm::sort(Pairs, [](const TouchPair &A, const TouchPair &B) {
    return A.Offset < B.Offset;
  });
  int64_t End = Pairs.front().Offset;
  if (End < 0)
    return false;
  for (const TouchPair &P : Pairs) {
    if (P.Offset != End)
      return false;
    End += P.Size;
  }
  uint64_t Span = Step > 0 ? Step : -Step;
  if (uint64_t(End - Pairs.front().Offset) != Span)
    return false;
  Type *I64 = Type::getInt64Ty(Zeroing.getContext());
  const SCEV *TripCount =
      SE.getAddExpr(SE.getTruncateOrZeroExtend(BTC, I64), SE.getOne(I64));
  CoveredEnd =
      SE.getAddExpr(SE.getConstant(I64, Pairs.front().Offset),
                    SE.getMulExpr(TripCount, SE.getConstant(I64, Span)));
  return true;
}

/// The loop's other accesses touch none of the pairs' cells, in any
/// iteration: locations without a size, so that alias analysis answers
/// for the whole object, with the accesses' own metadata (f.rev's scopes).
/// A load or store that alias analysis cannot tell apart, at an address
/// that advances with the loop (another shadow: f.rev does not tell two
/// shadows apart, since one array may be passed twice), is checked at run
/// time instead (rangeOver).
bool FirstTouchRewrite::othersKeepOff() {
  for (Instruction *I : Others) {
    bool Separate = true;
    for (const TouchPair &P : Pairs) {
      MemoryLocation Cell = MemoryLocation::getBeforeOrAfter(
          P.Store->getPointerOperand(), P.Store->getAAMetadata());
      if (Value *Ptr = getLoadStorePointerOperand(I))
        Separate &= AA.isNoAlias(
            Cell, MemoryLocation::getBeforeOrAfter(Ptr, I->getAAMetadata()));
      else if (isModOrRefSet(AA.getModRefInfo(I, Cell)))
        return false;
    }
    if (Separate)
      continue;
    RangeCheck R;
    if (!rangeOver(*I, R))
      return false;
    // A load and a store of one cell (dy[i] += ...) need one check.
    if (llvm::none_of(Apart, [&](const RangeCheck &C) {
          return C.Lo == R.Lo && C.End == R.End;
        }))
      Apart.push_back(R);
  }
  return true;
}

/// The bytes a simple load or store of the loop reaches over all its
/// iterations (accessRangeOver).
bool FirstTouchRewrite::rangeOver(Instruction &I, RangeCheck &R) {
  auto *LoadI = dyn_cast<LoadInst>(&I);
  auto *StoreI = dyn_cast<StoreInst>(&I);
  if (!(LoadI ? LoadI->isSimple() : StoreI && StoreI->isSimple()) ||
      Apart.size() >= 4)
    return false;
  auto Range = accessRangeOver(I, L, SE, DT, LI);
  if (!Range)
    return false;
  R = {Range->first, Range->second};
  return true;
}

/// The blocks on paths from the memset to the loop's preheader touch
/// nothing of the memset's range and run through (no call that may throw
/// or not return), and the memset dominates them, so that it can move to
/// the edges that leave them.
bool FirstTouchRewrite::nothingBetween() {
  BasicBlock *From = Zeroing.getParent(), *Preheader = L.getLoopPreheader();
  if (!DT.dominates(From, Preheader))
    return false;
  // From the preheader backwards to the memset's block.
  SmallPtrSet<BasicBlock *, 16> Reaching;
  SmallVector<BasicBlock *, 16> Work{Preheader};
  Reaching.insert(Preheader);
  while (!Work.empty()) {
    BasicBlock *BB = Work.pop_back_val();
    if (BB == From)
      continue;
    for (BasicBlock *Pred : predecessors(BB))
      if (Reaching.insert(Pred).second)
        Work.push_back(Pred);
  }
  for (BasicBlock *BB : Reaching) {
    if (!DT.dominates(From, BB) || L.contains(BB))
      return false;
    Between.push_back(BB);
  }
  MemoryLocation Range = MemoryLocation::getForDest(&Zeroing);
  for (BasicBlock *BB : Between)
    for (Instruction &I : *BB) {
      if (BB == From && DT.dominates(&I, &Zeroing))
        continue; // before the memset, or the memset itself
      if (&I == &Zeroing)
        continue;
      // An exception or exit on the way would leave the range unzeroed
      // where the original had zeroed it.
      if (!isGuaranteedToTransferExecutionToSuccessor(&I))
        return false;
      // Another memset of zero may be anywhere: the range's cells read
      // zero after it either way.
      if (isZeroMemSet(I))
        continue;
      if (I.mayReadOrWriteMemory() &&
          isModOrRefSet(AA.getModRefInfo(&I, Range)))
        return false;
    }
  return true;
}

/// Whether the covered range lies within the memset's length, known at the
/// loop's preheader (its guard holds there).
void FirstTouchRewrite::proveWithin() {
  Type *I64 = Type::getInt64Ty(Zeroing.getContext());
  const SCEV *Length =
      SE.getTruncateOrZeroExtend(SE.getSCEV(Zeroing.getLength()), I64);
  const Instruction *At = L.getLoopPreheader()->getTerminator();
  const SCEV *GuardedEnd = SE.applyLoopGuards(CoveredEnd, &L);
  const SCEV *GuardedLength = SE.applyLoopGuards(Length, &L);
  auto Known = [&](ICmpInst::Predicate Pred) {
    return SE.isKnownPredicateAt(Pred, CoveredEnd, Length, At) ||
           SE.isKnownPredicate(Pred, GuardedEnd, GuardedLength);
  };
  ProvedWithin = Known(ICmpInst::ICMP_ULE);
  ProvedExact = ProvedWithin && Known(ICmpInst::ICMP_UGE);
}

bool FirstTouchRewrite::plan() {
  if (!L.getLoopPreheader() || !L.getLoopLatch() ||
      L.getExitingBlock() != L.getLoopLatch() || !L.getExitBlock() ||
      !DT.dominates(Zeroing.getParent(), L.getLoopPreheader()))
    return false;
  if (!collectAccesses() || !pairsTile() || !othersKeepOff() ||
      !nothingBetween())
    return false;
  proveWithin();
  return expandable();
}

/// Whether the bounds the rewrite computes at the loop's preheader (the
/// covered range, the other shadows' ranges) can be computed there.
bool FirstTouchRewrite::expandable() const {
  SCEVExpander Exp = makeSCEVExpander(SE, "ad.first.touch");
  Instruction *At = L.getLoopPreheader()->getTerminator();
  if (!Exp.isSafeToExpandAt(CoveredEnd, At))
    return false;
  return llvm::all_of(Apart, [&](const RangeCheck &R) {
    return Exp.isSafeToExpandAt(R.Lo, At) && Exp.isSafeToExpandAt(R.End, At);
  });
}

/// `covered end <= length` unless proved, and each range of RangeCheck
/// outside the covered cells, at \p At.
Value *FirstTouchRewrite::emitCheck(Instruction *At) {
  SCEVExpander Exp = makeSCEVExpander(SE, "ad.first.touch");
  Type *I64 = Type::getInt64Ty(Zeroing.getContext());
  IRBuilder<> B(At);
  Value *Ok = nullptr;
  if (!ProvedWithin) {
    Value *End = Exp.expandCodeFor(CoveredEnd, I64, At);
    Value *Length = B.CreateZExtOrTrunc(Zeroing.getLength(), I64);
    Ok = B.CreateICmpULE(End, Length, "ad.first.touch.within");
  }
  if (Apart.empty())
    return Ok;
  const SCEV *Dest = SE.getSCEV(Zeroing.getDest());
  const SCEV *CellsLo =
      SE.getAddExpr(Dest, SE.getConstant(I64, Pairs.front().Offset));
  const SCEV *CellsEnd = SE.getAddExpr(Dest, CoveredEnd);
  Type *PtrTy = Zeroing.getDest()->getType();
  Value *Lo = Exp.expandCodeFor(CellsLo, PtrTy, At);
  Value *End = Exp.expandCodeFor(CellsEnd, PtrTy, At);
  for (const RangeCheck &R : Apart) {
    Value *OtherLo = Exp.expandCodeFor(R.Lo, PtrTy, At);
    Value *OtherEnd = Exp.expandCodeFor(R.End, PtrTy, At);
    Value *Disjoint =
        B.CreateOr(B.CreateICmpULE(OtherEnd, Lo), B.CreateICmpULE(End, OtherLo),
                   "ad.first.touch.apart");
    Ok = Ok ? B.CreateAnd(Ok, Disjoint, "ad.first.touch.ok") : Disjoint;
  }
  return Ok;
}

/// At \p At, before the rewritten loop: zeroes the memset's cells below
/// and above the range the loop stores.
void FirstTouchRewrite::zeroOutsideCover(Instruction *At) {
  IRBuilder<> B(At);
  Type *I64 = B.getInt64Ty();
  Value *Dest = Zeroing.getDest();
  MaybeAlign Align = Zeroing.getDestAlign();
  int64_t Head = Pairs.front().Offset;
  if (Head > 0)
    B.CreateMemSet(Dest, B.getInt8(0), B.getInt64(Head), Align);
  if (ProvedExact)
    return; // the loop stores up to the end
  SCEVExpander Exp = makeSCEVExpander(SE, "ad.first.touch");
  Value *End = Exp.expandCodeFor(CoveredEnd, I64, At);
  Value *Length = B.CreateZExtOrTrunc(Zeroing.getLength(), I64);
  Value *Tail = B.CreateGEP(B.getInt8Ty(), Dest, End, "ad.first.touch.tail");
  B.CreateMemSet(Tail, B.getInt8(0), B.CreateSub(Length, End), MaybeAlign());
}

/// The loop copied behind the run-time check (emitCheck): the copy is
/// rewritten, the original runs after the full memset.
Loop *FirstTouchRewrite::versionOnCheck(ValueToValueMapTy &VMap) {
  BasicBlock *CheckBB = L.getLoopPreheader();
  BasicBlock *Exiting = L.getExitingBlock();
  BasicBlock *Exit = L.getExitBlock();
  SmallVector<Instruction *, 8> DefsUsedOutside = findDefsUsedOutsideOfLoop(&L);
  Value *Within = emitCheck(CheckBB->getTerminator());
  BasicBlock *Preheader =
      SplitBlock(CheckBB, CheckBB->getTerminator(), &DT, &LI, nullptr,
                 L.getHeader()->getName() + ".ph");
  SmallVector<BasicBlock *, 16> Cloned;
  Loop *Copy = cloneLoopWithPreheader(Preheader, CheckBB, &L, VMap,
                                      ".first.touch", &LI, &DT, Cloned);
  remapInstructionsInBlocks(Cloned, VMap);
  Instruction *Term = CheckBB->getTerminator();
  BranchInst::Create(Copy->getLoopPreheader(), Preheader, Within,
                     Term->getIterator());
  Term->eraseFromParent();
  mergeLoopCopiesAtExit(L, *Exiting, *cast<BasicBlock>(VMap[Exiting]),
                        DefsUsedOutside, VMap);
  DT.changeImmediateDominator(Exit, CheckBB);
  // The original keeps its loads: the whole range is zeroed before it, by
  // a memset marked so that it is not rewritten again.
  IRBuilder<> B(Preheader->getTerminator());
  CallInst *Full = B.CreateMemSet(Zeroing.getDest(), B.getInt8(0),
                                  Zeroing.getLength(), Zeroing.getDestAlign());
  Full->setMetadata(KeptZeroingKind, MDNode::get(Full->getContext(), {}));
  return Copy;
}

/// The edges that leave the blocks leading from the memset to the loop:
/// the paths on which the memset must still run.
SmallVector<std::pair<BasicBlock *, BasicBlock *>, 4>
FirstTouchRewrite::edgesOffLoopPaths() {
  SmallPtrSet<BasicBlock *, 16> OnPath(Between.begin(), Between.end());
  BasicBlock *Preheader = L.getLoopPreheader();
  SmallVector<std::pair<BasicBlock *, BasicBlock *>, 4> Leaving;
  for (BasicBlock *BB : Between) {
    if (BB == Preheader)
      continue; // its successor is the loop
    for (BasicBlock *Succ : successors(BB))
      if (!OnPath.count(Succ))
        Leaving.push_back({BB, Succ});
  }
  return Leaving;
}

void FirstTouchRewrite::apply() {
  // Collected before versioning splits the preheader.
  auto Leaving = edgesOffLoopPaths();
  Loop *Rewritten = &L;
  ValueToValueMapTy VMap;
  if (checked()) {
    Rewritten = versionOnCheck(VMap);
    ++NumFirstTouchChecked;
    OriginalOfCopy = L.getHeader();
  }
  zeroOutsideCover(Rewritten->getLoopPreheader()->getTerminator());
  for (TouchPair &P : Pairs) {
    if (!P.Load)
      continue;
    auto *Load = checked() ? cast<LoadInst>(VMap[P.Load]) : P.Load;
    addsZero(*Load);
    Load->replaceAllUsesWith(Constant::getNullValue(Load->getType()));
    Load->eraseFromParent();
  }
  // The memset runs where the paths from it leave without reaching the
  // loop, and no longer before the loop.
  for (auto [From, To] : Leaving) {
    BasicBlock *Edge = SplitEdge(From, To, &DT, &LI);
    Zeroing.clone()->insertBefore(Edge->getTerminator()->getIterator());
  }
  Zeroing.eraseFromParent();
  ++NumFirstTouchLoops;
  LLVM_DEBUG(dbgs() << "ad-first-touch: " << Pairs.size()
                    << " accumulations stored in loop "
                    << Rewritten->getHeader()->getName()
                    << (checked() ? " behind a check" : "") << "\n");
}

/// A memset of zero outside loops, or null.
MemSetInst *asZeroing(Instruction &I, LoopInfo &LI) {
  if (!isZeroMemSet(I) || LI.getLoopFor(I.getParent()) ||
      I.getMetadata(KeptZeroingKind))
    return nullptr;
  return cast<MemSetInst>(&I);
}

/// One rewrite in \p F, if any applies, skipping the loops whose headers
/// are \p Originals.
bool rewriteOne(Function &F, FunctionAnalysisManager &FAM,
                SmallPtrSetImpl<BasicBlock *> &Originals) {
  auto &LI = FAM.getResult<LoopAnalysis>(F);
  if (LI.empty())
    return false;
  auto &DT = FAM.getResult<DominatorTreeAnalysis>(F);
  auto &SE = FAM.getResult<ScalarEvolutionAnalysis>(F);
  auto &AA = FAM.getResult<AAManager>(F);
  // Each plan scans a loop: a bound on them bounds the time a caller with
  // many memsets and loops takes.
  unsigned Plans = 0;
  for (Instruction &I : instructions(F)) {
    MemSetInst *Zeroing = asZeroing(I, LI);
    if (!Zeroing)
      continue;
    for (Loop *L : LI.getTopLevelLoops()) {
      if (Originals.count(L->getHeader()))
        continue;
      if (++Plans > MaxPlansPerRound)
        return false;
      FirstTouchRewrite R(*Zeroing, *L, DT, LI, SE, AA);
      if (R.plan()) {
        R.apply();
        if (R.OriginalOfCopy)
          Originals.insert(R.OriginalOfCopy);
        return true;
      }
    }
  }
  return false;
}

} // namespace

bool storeFirstTouches(Function &F, FunctionAnalysisManager &FAM) {
  bool Changed = false;
  SmallPtrSet<BasicBlock *, 4> Originals;
  // A few per function; each rewrite invalidates the analyses.
  for (unsigned Round = 0; Round < 8 && rewriteOne(F, FAM, Originals);
       ++Round) {
    Changed = true;
    FAM.invalidate(F, PreservedAnalyses::none());
  }
  return Changed;
}

} // namespace ad
