//===- DisjointAccessChecks.cpp - loop nests versioned on disjointness ----===//
#include "unzip/DisjointAccessChecks.h"
#include "ir/AccessRanges.h"
#include "ir/LLVMCompat.h"
#include "ir/Linearity.h"
#include "ir/LoopCopies.h"

#include "llvm/ADT/Statistic.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Support/Debug.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/LoopUtils.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"

#define DEBUG_TYPE "ad-unzip"

using namespace llvm;

STATISTIC(NumVersionedNests, "Number of loop nests versioned on a run-time "
                             "disjointness check");

namespace ad {
namespace {

/// Pairs of ranges one nest's check compares; beyond this, the nest keeps
/// its loads on the tape (each pair costs four expanded bounds).
constexpr unsigned MaxRangePairs = 8;
/// Levels of non-linear users through which a load may reach linear code.
constexpr unsigned MaxUseDepth = 3;
/// Nests larger than this are not copied: the copy doubles their code in
/// f.fwd, f.lin and f.rev, and their writes count twice against
/// RereadableLoads' limit of writers per object.
constexpr unsigned MaxCopiedInstructions = 2000;
constexpr unsigned MaxCopiedWrites = 8;

} // namespace

namespace {

/// The bytes an access may touch while its nest runs: [Lo, End).
struct AccessRange {
  const SCEV *Lo = nullptr, *End = nullptr;
  bool operator==(const AccessRange &O) const {
    return Lo == O.Lo && End == O.End;
  }
};

/// A load of the nest and the writes in it that stop it being read again.
struct CheckedLoad {
  const LoadInst *Load;
  SmallVector<const Instruction *, 4> Writes;
};

class NestVersioner {
public:
  NestVersioner(Loop &Nest, RereadableLoads &Reread,
                function_ref<bool(const Value *)> IsLinear, DominatorTree &DT,
                LoopInfo &LI, ScalarEvolution &SE)
      : Nest(Nest), Reread(Reread), IsLinear(IsLinear), DT(DT), LI(LI), SE(SE) {
  }

  /// Finds the loads a check would let f.rev read again, and the ranges to
  /// compare; false when there are none.
  bool plan();
  /// Computes, at the nest's preheader, whether every pair of ranges is
  /// disjoint. Before any nest is copied: ScalarEvolution describes the
  /// function as it was.
  void emitCheck();
  /// Copies the nest behind the check, noting the copy in \p Copies.
  void version(DisjointCopies &Copies);

private:
  bool feedsLinearCode(const Instruction &I, unsigned Depth) const;
  bool inCountedLoops(const Instruction &I) const;
  std::optional<AccessRange> rangeOf(const Instruction &Access) {
    std::optional<std::pair<const SCEV *, const SCEV *>> R =
        accessRangeOver(Access, Nest, SE, DT, LI);
    if (!R)
      return std::nullopt;
    return AccessRange{R->first, R->second};
  }
  bool addPairsFor(const LoadInst &L, ArrayRef<const Instruction *> Writes);
  void mergeExits(BasicBlock &Exiting, BasicBlock &ClonedExiting,
                  ArrayRef<Instruction *> DefsUsedOutside,
                  ValueToValueMapTy &VMap);

  Loop &Nest;
  RereadableLoads &Reread;
  function_ref<bool(const Value *)> IsLinear;
  DominatorTree &DT;
  LoopInfo &LI;
  ScalarEvolution &SE;
  SmallVector<CheckedLoad, 4> Loads;
  /// (write range, read range), each pair once.
  SmallVector<std::pair<AccessRange, AccessRange>, 4> Pairs;
  Value *Disjoint = nullptr;
};

/// Whether linear code uses \p I, directly or through up to \p Depth levels
/// of non-linear instructions (the 2 * x of d(x^2)): only then is a load a
/// residual whose taping the check can save.
bool NestVersioner::feedsLinearCode(const Instruction &I,
                                    unsigned Depth) const {
  for (const User *U : I.users()) {
    if (IsLinear(U))
      return true;
    auto *UI = dyn_cast<Instruction>(U);
    if (Depth && UI && !UI->isTerminator() && !UI->mayWriteToMemory() &&
        feedsLinearCode(*UI, Depth - 1))
      return true;
  }
  return false;
}

/// Whether every loop around \p I in the nest is counted, as TapePlan's
/// per-iteration arrays want: left only at its latch, its trip count known.
/// Elsewhere (all loops at -O0) a record per block keeps the address of a
/// load read again, as many bytes as its value: a copy would gain nothing.
bool NestVersioner::inCountedLoops(const Instruction &I) const {
  for (const Loop *L = LI.getLoopFor(I.getParent()); L;
       L = L->getParentLoop()) {
    BasicBlock *Latch = L->getLoopLatch();
    if (!Latch || L->getExitingBlock() != Latch ||
        isa<SCEVCouldNotCompute>(SE.getBackedgeTakenCount(L)))
      return false;
    if (L == &Nest)
      return true;
  }
  return false;
}

/// Notes the pairs of ranges that decide \p L against \p Writes: simple
/// stores of the nest, in \p L's address space, all bounded.
bool NestVersioner::addPairsFor(const LoadInst &L,
                                ArrayRef<const Instruction *> Writes) {
  std::optional<AccessRange> Read = rangeOf(L);
  if (!Read)
    return false;
  SmallVector<std::pair<AccessRange, AccessRange>, 4> New;
  for (const Instruction *W : Writes) {
    auto *St = dyn_cast<StoreInst>(W);
    if (!St || !St->isSimple() || !Nest.contains(St) ||
        St->getPointerOperandType() != L.getPointerOperandType())
      return false;
    std::optional<AccessRange> Written = rangeOf(*St);
    if (!Written)
      return false;
    auto Pair = std::make_pair(*Written, *Read);
    if (!llvm::is_contained(Pairs, Pair) && !llvm::is_contained(New, Pair))
      New.push_back(Pair);
  }
  if (Pairs.size() + New.size() > MaxRangePairs)
    return false;
  Pairs.append(New.begin(), New.end());
  return true;
}

bool NestVersioner::plan() {
  BasicBlock *Preheader = Nest.getLoopPreheader();
  BasicBlock *Exiting = Nest.getExitingBlock();
  BasicBlock *Exit = Nest.getExitBlock();
  if (!Preheader || !Exiting || !Exit || !Exit->getSinglePredecessor())
    return false;
  unsigned Size = 0, NumWrites = 0;
  for (BasicBlock *BB : Nest.blocks())
    for (Instruction &I : *BB) {
      ++Size;
      NumWrites += I.mayWriteToMemory() && !IsLinear(&I);
    }
  if (!NumWrites || Size > MaxCopiedInstructions || NumWrites > MaxCopiedWrites)
    return false;
  SCEVExpander Exp = makeSCEVExpander(SE, "ad.range");
  for (BasicBlock *BB : Nest.blocks())
    for (Instruction &I : *BB) {
      auto *L = dyn_cast<LoadInst>(&I);
      if (!L || IsLinear(L) || !feedsLinearCode(*L, MaxUseDepth) ||
          !inCountedLoops(*L))
        continue;
      auto Writes = Reread.overwriters(*L);
      if (!Writes || Writes->empty())
        continue;
      size_t Before = Pairs.size();
      if (!addPairsFor(*L, *Writes)) {
        Pairs.truncate(Before);
        continue;
      }
      Loads.push_back({L, *Writes});
    }
  Instruction *At = Preheader->getTerminator();
  return !Loads.empty() && llvm::all_of(Pairs, [&](const auto &P) {
    return Exp.isSafeToExpandAt(P.first.Lo, At) &&
           Exp.isSafeToExpandAt(P.first.End, At) &&
           Exp.isSafeToExpandAt(P.second.Lo, At) &&
           Exp.isSafeToExpandAt(P.second.End, At);
  });
}

/// A pair of ranges is disjoint when one ends before the other starts.
void NestVersioner::emitCheck() {
  Instruction *At = Nest.getLoopPreheader()->getTerminator();
  SCEVExpander Exp = makeSCEVExpander(SE, "ad.range");
  IRBuilder<> B(At);
  Value *All = nullptr;
  for (auto &[Written, Read] : Pairs) {
    Type *PtrTy = Written.Lo->getType();
    Value *WLo = Exp.expandCodeFor(Written.Lo, PtrTy, At);
    Value *WEnd = Exp.expandCodeFor(Written.End, PtrTy, At);
    Value *RLo = Exp.expandCodeFor(Read.Lo, PtrTy, At);
    Value *REnd = Exp.expandCodeFor(Read.End, PtrTy, At);
    Value *Apart = B.CreateOr(B.CreateICmpULE(WEnd, RLo),
                              B.CreateICmpULE(REnd, WLo), "ad.disjoint");
    All = All ? B.CreateAnd(All, Apart, "ad.disjoint") : Apart;
  }
  Disjoint = All;
}

/// The nest's single exit block now follows both copies: its phis take the
/// copy's values on the copy's edge, and values of the nest used beyond it
/// get a phi of the two.
void NestVersioner::mergeExits(BasicBlock &Exiting, BasicBlock &ClonedExiting,
                               ArrayRef<Instruction *> DefsUsedOutside,
                               ValueToValueMapTy &VMap) {
  for (auto [Def, Merged] : mergeLoopCopiesAtExit(Nest, Exiting, ClonedExiting,
                                                  DefsUsedOutside, VMap))
    if (IsLinear(Def))
      markLinear(Merged);
}

void NestVersioner::version(DisjointCopies &Copies) {
  BasicBlock *CheckBB = Nest.getLoopPreheader();
  BasicBlock *Exiting = Nest.getExitingBlock();
  SmallVector<Instruction *, 8> DefsUsedOutside =
      findDefsUsedOutsideOfLoop(&Nest);
  BasicBlock *Preheader =
      SplitBlock(CheckBB, CheckBB->getTerminator(), &DT, &LI, nullptr,
                 Nest.getHeader()->getName() + ".ph");
  ValueToValueMapTy VMap;
  SmallVector<BasicBlock *, 16> ClonedBlocks;
  Loop *Checked = cloneLoopWithPreheader(Preheader, CheckBB, &Nest, VMap,
                                         ".disjoint", &LI, &DT, ClonedBlocks);
  remapInstructionsInBlocks(ClonedBlocks, VMap);
  Instruction *Term = CheckBB->getTerminator();
  BranchInst::Create(Checked->getLoopPreheader(), Preheader, Disjoint, Term);
  Term->eraseFromParent();
  mergeExits(*Exiting, *cast<BasicBlock>(VMap[Exiting]), DefsUsedOutside, VMap);
  DT.changeImmediateDominator(Nest.getExitBlock(), CheckBB);
  formDedicatedExitBlocks(&Nest, &DT, &LI, nullptr, /*PreserveLCSSA=*/false);
  formDedicatedExitBlocks(Checked, &DT, &LI, nullptr,
                          /*PreserveLCSSA=*/false);
  for (const Loop *L : Checked->getLoopsInPreorder())
    Copies.Headers.insert(L->getHeader());
  for (const CheckedLoad &C : Loads) {
    auto &Writes = Copies.Excused[cast<Instruction>(VMap[C.Load])];
    for (const Instruction *W : C.Writes)
      Writes.insert(cast<Instruction>(VMap[W]));
  }
  ++NumVersionedNests;
  LLVM_DEBUG(dbgs() << "ad-unzip: loop nest at " << Nest.getHeader()->getName()
                    << " versioned on " << Pairs.size()
                    << " disjointness checks\n");
}

} // namespace

bool versionNestsOnDisjointAccesses(Function &Jvp, RereadableLoads &Reread,
                                    function_ref<bool(const Value *)> IsLinear,
                                    DominatorTree &DT, LoopInfo &LI,
                                    ScalarEvolution &SE,
                                    DisjointCopies &Copies) {
  // Not in callees: called in a loop, a nest could overwrite in one call
  // what it read in the previous one.
  if (!Reread.enabled() || Reread.inCallee() || LI.empty())
    return false;
  // Planned first, all of them: versioning one nest changes the function
  // that the analyses of the others describe.
  SmallVector<std::unique_ptr<NestVersioner>, 2> Planned;
  for (Loop *Nest : LI.getTopLevelLoops()) {
    auto V =
        std::make_unique<NestVersioner>(*Nest, Reread, IsLinear, DT, LI, SE);
    if (V->plan())
      Planned.push_back(std::move(V));
  }
  for (auto &V : Planned)
    V->emitCheck();
  for (auto &V : Planned)
    V->version(Copies);
  return !Planned.empty();
}

} // namespace ad
