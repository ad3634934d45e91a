//===- PrivateShadowCells.cpp - shadow cells one iteration touches --------===//
#include "unzip/PrivateShadowCells.h"
#include "driver/OpenMPRegions.h"
#include "ir/FunctionAliasAnalysis.h"
#include "ir/Linearity.h"
#include "linearize/JvpRules.h"

#include "llvm/Analysis/AliasAnalysis.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Support/CommandLine.h"

using namespace llvm;

static cl::opt<bool> PrivateShadowCells(
    "ad-private-shadow-cells", cl::init(true), cl::Hidden,
    cl::desc("In a parallel loop's reverse pass, add into shadow cells one "
             "iteration owns without atomics (off: to measure what the "
             "atomics cost)"));

namespace ad {

static constexpr const char *PrivateCellMD = "ad.private.cell";

bool isPrivateShadowCell(const Instruction &I) {
  return I.getMetadata(PrivateCellMD);
}

namespace {

/// A cell's address as Base + Scale * iv, Base the same for the whole team.
struct CellAddress {
  const SCEV *Base = nullptr;
  const SCEV *Scale = nullptr;
  Type *Ty = nullptr;
  bool operator==(const CellAddress &O) const {
    return Base == O.Base && Scale == O.Scale && Ty == O.Ty;
  }
};

class PrivateCells {
public:
  PrivateCells(Function &F, TargetLibraryInfo &TLI)
      : F(F), TLI(TLI), DT(F), LI(DT), AC(F), SE(F, TLI, AC, DT, LI),
        Alias(F, TLI, AC, DT) {}
  void run();

private:
  bool findWorksharingLoop();
  std::optional<CellAddress> addressOf(Instruction &I);
  const SCEV *teamInvariant(const SCEV *S);
  bool onlyIterationTouching(LoadInst &Cand, const CellAddress &At);
  bool callMayTouch(CallBase &CB, const MemoryLocation &Loc);

  Function &F;
  TargetLibraryInfo &TLI;
  DominatorTree DT;
  LoopInfo LI;
  AssumptionCache AC;
  ScalarEvolution SE;
  FunctionAliasAnalysis Alias;
  AAResults &AA = Alias.AA;
  Loop *L = nullptr;     ///< the worksharing loop (one chunk's iterations)
  PHINode *IV = nullptr; ///< its induction variable, from the chunk's start
  /// Loads of one team-invariant pointer, as one value.
  DenseMap<std::pair<const Value *, Type *>, const SCEV *> SameLoads;
};

/// The pointers through which a scheduling call returns a chunk: its first
/// iteration and the distance to the thread's next chunk (static_init's
/// plower and pstride; dispatch_next's plower, each chunk asked anew).
static std::pair<Value *, Value *> chunkOut(CallBase &CB) {
  Function *Callee = CB.getCalledFunction();
  if (!Callee)
    return {nullptr, nullptr};
  StringRef N = Callee->getName();
  if (N.starts_with("__kmpc_for_static_init_"))
    return {CB.getArgOperand(4), CB.getArgOperand(6)};
  if (N.starts_with("__kmpc_dispatch_next_"))
    return {CB.getArgOperand(3), nullptr};
  return {nullptr, nullptr};
}

/// Whether \p S is a load through \p Ptr, maybe extended.
static bool isLoadThrough(const SCEV *S, const Value *Ptr) {
  while (auto *Cast = dyn_cast<SCEVIntegralCastExpr>(S))
    S = Cast->getOperand();
  auto *U = dyn_cast<SCEVUnknown>(S);
  auto *Ld = U ? dyn_cast<LoadInst>(U->getValue()) : nullptr;
  return Ld && Ld->getPointerOperand() == Ptr;
}

/// Whether \p Start, an induction variable's start in \p Lp, is a chunk's
/// first iteration: the lower bound the runtime returned, or with a chunk
/// size (schedule(static, c)) that bound plus the stride once per chunk
/// the thread ran before, in the loop around.
static bool isChunkStart(const SCEV *Start, const Loop *Lp, Value *LowerBound,
                         Value *Stride) {
  if (isLoadThrough(Start, LowerBound))
    return true;
  auto *Chunks = dyn_cast<SCEVAddRecExpr>(Start);
  return Stride && Chunks && Chunks->isAffine() &&
         Chunks->getLoop() == Lp->getParentLoop() &&
         isLoadThrough(Chunks->getStart(), LowerBound) &&
         isLoadThrough(Chunks->getOperand(1), Stride);
}

/// The loop whose induction variable starts at each chunk's first
/// iteration, as the runtime hands chunks out: the runtime partitions the
/// iteration space into chunks, so every value that variable takes is one
/// thread's only.
bool PrivateCells::findWorksharingLoop() {
  Value *LowerBound = nullptr, *Stride = nullptr;
  for (Instruction &I : instructions(F))
    if (auto *CB = dyn_cast<CallBase>(&I))
      if (auto [LB, St] = chunkOut(*CB); LB) {
        if (LowerBound && LowerBound != LB)
          return false; // more than one worksharing loop
        LowerBound = LB;
        Stride = St;
      }
  if (!LowerBound)
    return false;
  for (Loop *Lp : LI.getLoopsInPreorder())
    for (PHINode &P : Lp->getHeader()->phis()) {
      auto *Rec = dyn_cast<SCEVAddRecExpr>(SE.getSCEV(&P));
      if (!Rec || Rec->getLoop() != Lp || !Rec->isAffine() ||
          !Rec->getStepRecurrence(SE)->isOne() ||
          !isChunkStart(Rec->getStart(), Lp, LowerBound, Stride))
        continue;
      if (IV)
        return false; // two candidates: which one is distributed is unclear
      L = Lp;
      IV = &P;
    }
  return IV != nullptr;
}

/// A value the whole team sees alike: the region's shared arguments (not
/// the thread ids), constants, and loads through such pointers. A shared
/// location every thread with iterations reads holds one value for all of
/// them: a differentiated region has no barrier, so a write to it by any
/// thread would race with another's read.
static bool isTeamInvariant(const Value *V) {
  V = V->stripInBoundsConstantOffsets();
  if (isa<Constant>(V))
    return true;
  if (auto *A = dyn_cast<Argument>(V))
    return A->getArgNo() >= 2;
  auto *Ld = dyn_cast<LoadInst>(V);
  return Ld && Ld->isSimple() && isTeamInvariant(Ld->getPointerOperand());
}

/// \p S with every team-invariant load replaced by the first load of its
/// pointer, so that two reloads of a shared pointer compare equal; null if
/// \p S depends on anything else that varies (a loop, a thread).
const SCEV *PrivateCells::teamInvariant(const SCEV *S) {
  if (SCEVExprContains(S, [](const SCEV *E) { return isa<SCEVAddRecExpr>(E); }))
    return nullptr;
  ValueToSCEVMapTy Map;
  SmallVector<const SCEVUnknown *, 4> Unknowns;
  SCEVExprContains(S, [&](const SCEV *E) {
    if (auto *U = dyn_cast<SCEVUnknown>(E))
      Unknowns.push_back(U);
    return false;
  });
  for (const SCEVUnknown *U : Unknowns) {
    Value *V = U->getValue();
    if (!isTeamInvariant(V))
      return nullptr;
    if (auto *Ld = dyn_cast<LoadInst>(V)) {
      auto Key = std::make_pair(Ld->getPointerOperand(), Ld->getType());
      auto [It, New] = SameLoads.try_emplace(Key, U);
      if (!New && It->second != U)
        Map[V] = It->second;
    }
  }
  return SCEVParameterRewriter::rewrite(S, SE, Map);
}

/// The address \p I accesses as Base + Scale * iv: its SCEV holds one
/// affine recurrence of the worksharing loop, whose start less Scale times
/// the chunk's start leaves a team-invariant Base.
std::optional<CellAddress> PrivateCells::addressOf(Instruction &I) {
  Value *Ptr = getLoadStorePointerOperand(&I);
  if (!Ptr || !L->contains(&I))
    return std::nullopt;
  const SCEV *S = SE.getSCEV(Ptr);
  SmallVector<const SCEV *, 4> Ops;
  if (auto *Add = dyn_cast<SCEVAddExpr>(S))
    Ops.append(Add->operands().begin(), Add->operands().end());
  else
    Ops.push_back(S);
  const SCEVAddRecExpr *Rec = nullptr;
  SmallVector<const SCEV *, 4> Rest;
  for (const SCEV *Op : Ops) {
    auto *R = dyn_cast<SCEVAddRecExpr>(Op);
    if (R && R->getLoop() == L) {
      if (Rec)
        return std::nullopt;
      Rec = R;
    } else {
      Rest.push_back(Op);
    }
  }
  if (!Rec || !Rec->isAffine())
    return std::nullopt;
  auto *Scale = dyn_cast<SCEVConstant>(Rec->getStepRecurrence(SE));
  Type *Ty = getLoadStoreType(&I);
  uint64_t Size = F.getDataLayout().getTypeStoreSize(Ty).getFixedValue();
  // Cells of neighbouring iterations must not overlap, nor wrap around.
  unsigned IVBits = IV->getType()->getIntegerBitWidth();
  if (!Scale || Scale->getAPInt().abs().ult(Size) ||
      (IVBits + Scale->getAPInt().abs().getActiveBits() > 64 &&
       !Rec->hasNoSelfWrap()))
    return std::nullopt;
  Rest.push_back(Rec->getStart());
  const SCEV *Start = cast<SCEVAddRecExpr>(SE.getSCEV(IV))->getStart();
  Type *IntTy = Scale->getType();
  for (bool Signed : {true, false}) {
    const SCEV *Wide = Signed ? SE.getNoopOrSignExtend(Start, IntTy)
                              : SE.getNoopOrZeroExtend(Start, IntTy);
    SmallVector<const SCEV *, 4> Terms(Rest);
    Terms.push_back(SE.getNegativeSCEV(SE.getMulExpr(Scale, Wide)));
    if (const SCEV *Base = teamInvariant(SE.getAddExpr(Terms)))
      return CellAddress{Base, Scale, Ty};
  }
  return std::nullopt;
}

/// A global only the OpenMP runtime is given (the source location, the
/// lock of a reduction): the runtime's own state, not the program's data.
static bool isRuntimeState(const GlobalVariable &GV) {
  return GV.isConstant() || all_of(GV.users(), [](const User *U) {
           auto *CB = dyn_cast<CallBase>(U);
           Function *Callee = CB ? CB->getCalledFunction() : nullptr;
           return Callee && isOpenMPRuntimeFunction(*Callee);
         });
}

/// Whether the OpenMP runtime call \p CB may touch \p Loc: it reaches the
/// program's memory only through its pointer arguments (a reduction's
/// combining function combines the primal variables its list holds).
bool PrivateCells::callMayTouch(CallBase &CB, const MemoryLocation &Loc) {
  for (Value *Arg : CB.args()) {
    if (!Arg->getType()->isPointerTy())
      continue;
    const Value *Obj = getUnderlyingObject(Arg);
    auto *GV = dyn_cast<GlobalVariable>(Obj);
    if (isa<Function>(Obj) || (GV && isRuntimeState(*GV)))
      continue;
    if (!AA.isNoAlias(MemoryLocation::getBeforeOrAfter(Arg), Loc))
      return true;
  }
  return false;
}

/// Whether no access of the region other than those at \p At may reach the
/// shadow \p Cand reads. Linear stores and atomic additions are not asked
/// about: they transpose the primal's writes, and a cell one iteration
/// writes no other iteration touches in a race-free region; only the
/// primal's reads, which other iterations may share, become additions.
bool PrivateCells::onlyIterationTouching(LoadInst &Cand,
                                         const CellAddress &At) {
  MemoryLocation Object =
      MemoryLocation::getBeforeOrAfter(Cand.getPointerOperand());
  for (Instruction &I : instructions(F)) {
    if (&I == &Cand || !I.mayReadOrWriteMemory())
      continue;
    if (auto *CB = dyn_cast<CallBase>(&I)) {
      if (writesOnlyMathLibraryState(I, &TLI))
        continue;
      Function *Callee = CB->getCalledFunction();
      if (Callee && isOpenMPRuntimeFunction(*Callee)
              ? callMayTouch(*CB, Object)
              : !isNoModRef(AA.getModRefInfo(CB, Object)))
        return false;
      continue;
    }
    if (!isLinear(&I) || !isa<LoadInst>(I))
      continue;
    if (AA.isNoAlias(MemoryLocation::get(&I), Object))
      continue;
    std::optional<CellAddress> Other = addressOf(I);
    if (!Other || !(*Other == At))
      return false;
  }
  return true;
}

void PrivateCells::run() {
  if (!findWorksharingLoop())
    return;
  for (Instruction &I : instructions(F)) {
    auto *Ld = dyn_cast<LoadInst>(&I);
    if (!Ld || !isLinear(Ld) || !Ld->isSimple() ||
        !Ld->getType()->isFloatingPointTy())
      continue;
    std::optional<CellAddress> At = addressOf(*Ld);
    if (At && onlyIterationTouching(*Ld, *At))
      Ld->setMetadata(PrivateCellMD, MDNode::get(F.getContext(), {}));
  }
}

} // namespace

void markPrivateShadowCells(Function &Jvp, TargetLibraryInfo &TLI) {
  if (PrivateShadowCells)
    PrivateCells(Jvp, TLI).run();
}

} // namespace ad
