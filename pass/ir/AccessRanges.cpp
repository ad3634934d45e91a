//===- AccessRanges.cpp - the bytes a loop nest's access touches ----------===//
#include "ir/AccessRanges.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Operator.h"

using namespace llvm;

namespace ad {

/// Loops a range is bounded over, innermost first.
static constexpr unsigned MaxNestDepth = 4;

/// Whether \p BB runs in every iteration of \p L and of each loop between
/// them: then, with exact trip counts, every point of the iteration space
/// executes the access in \p BB.
static bool runsEveryIteration(const BasicBlock &BB, const Loop &L,
                               const DominatorTree &DT, const LoopInfo &LI) {
  for (const Loop *In = LI.getLoopFor(&BB); In; In = In->getParentLoop()) {
    const BasicBlock *Latch = In->getLoopLatch();
    if (!Latch || !DT.dominates(&BB, Latch))
      return false;
    if (In == &L)
      return true;
  }
  return false;
}

/// The least and greatest values \p S, an address used in \p At, takes
/// while the nest runs, as expressions computable before it. \p S must be
/// invariant in the nest or affine in the counters of loops around \p At
/// with exact trip counts; an affine address between its first and last
/// iteration lies between its values there, as long as it does not wrap
/// around the address space: ScalarEvolution proves that (no self-wrap),
/// or every iteration executes the access, whose addresses then all lie in
/// one object, or (\p InObject) the address is an inbounds offset from its
/// object in an address space where null is not an object, which
/// LoopAccessAnalysis also takes as not wrapping (getPtrStride): wrapping
/// would pass through null. The extremes of the first and last values are found
/// the same way over the enclosing loops.
static std::optional<std::pair<const SCEV *, const SCEV *>>
valuesOver(const SCEV *S, const BasicBlock &At, bool InObject, unsigned Depth,
           const Loop &Nest, ScalarEvolution &SE, const DominatorTree &DT,
           const LoopInfo &LI) {
  if (SE.isLoopInvariant(S, &Nest))
    return std::make_pair(S, S);
  auto *AR = dyn_cast<SCEVAddRecExpr>(S);
  if (!AR || !AR->isAffine() || !Depth)
    return std::nullopt;
  const Loop *L = AR->getLoop();
  if (!Nest.contains(L) || !L->contains(&At) ||
      (!AR->hasNoSelfWrap() && !InObject &&
       !runsEveryIteration(At, *L, DT, LI)))
    return std::nullopt;
  const SCEV *Backedges = SE.getBackedgeTakenCount(L);
  if (isa<SCEVCouldNotCompute>(Backedges))
    return std::nullopt;
  auto First =
      valuesOver(AR->getStart(), At, InObject, Depth - 1, Nest, SE, DT, LI);
  if (!First)
    return std::nullopt;
  auto Last = valuesOver(AR->evaluateAtIteration(Backedges, SE), At, InObject,
                         Depth - 1, Nest, SE, DT, LI);
  if (!Last)
    return std::nullopt;
  return std::make_pair(SE.getUMinExpr(First->first, Last->first),
                        SE.getUMaxExpr(First->second, Last->second));
}

std::optional<std::pair<const SCEV *, const SCEV *>>
accessRangeOver(const Instruction &Access, const Loop &Nest,
                ScalarEvolution &SE, const DominatorTree &DT,
                const LoopInfo &LI) {
  // Read-only here; LLVM's accessors take mutable values.
  auto &I = const_cast<Instruction &>(Access);
  Value *Ptr = getLoadStorePointerOperand(&I);
  if (!Ptr)
    return std::nullopt;
  const DataLayout &DL = Access.getDataLayout();
  auto *GEP = dyn_cast<GEPOperator>(Ptr);
  bool InObject = GEP && GEP->isInBounds() &&
                  !NullPointerIsDefined(Access.getFunction(),
                                        GEP->getPointerAddressSpace());
  auto Values = valuesOver(SE.getSCEV(Ptr), *Access.getParent(), InObject,
                           MaxNestDepth, Nest, SE, DT, LI);
  if (!Values)
    return std::nullopt;
  TypeSize Size = DL.getTypeStoreSize(getLoadStoreType(&I));
  if (Size.isScalable())
    return std::nullopt;
  Type *IntPtr = DL.getIntPtrType(Ptr->getType());
  return std::make_pair(
      Values->first,
      SE.getAddExpr(Values->second,
                    SE.getConstant(IntPtr, Size.getFixedValue())));
}

} // namespace ad
