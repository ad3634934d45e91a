//===- RecomputedPredecessors.cpp - merges f.rev need not tape ------------===//
//
// f.rev leaves a merge block towards the predecessor it was entered from,
// which f.fwd records (a byte per execution). In a diamond or a triangle,
// the branch at the top decides that predecessor: the boundary tests of a
// stencil (`i > 0 ? a[i - 1] : 0`) are merges whose branch compares the
// loop counter with a bound. When that comparison can be recomputed from
// iteration counters and static values, f.lin and f.rev compute the index
// as `cond ? p : q` instead of reading it from the tape.
//
// Why the branch decides it: let D, the immediate dominator of merge M, end
// in `br C, S0, S1`, with D and M in the same innermost loop (or both in
// none). Within one iteration of that loop, D and M each run at most once,
// and M's entry follows D's. Each predecessor P of M is either D itself
// (the edge D -> M is S_k = M) or dominated by a successor S_k whose only
// predecessor is D: reaching P from the other successor would mean passing
// through D again, which within the iteration it cannot. So the
// predecessor is that of the successor C chose, when the two successors
// lead to different predecessors.
//
//===----------------------------------------------------------------------===//
#include "UnzipImpl.h"
#include "ir/Linearity.h"
#include "unzip/TapeRuntime.h"
#include "unzip/Unzip.h"

#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/IR/CFG.h"

using namespace llvm;

namespace ad {

/// Which successor of \p D's branch every path to \p P passes through: the
/// successor that is \p M (P is D), or the one with D as only predecessor
/// that dominates P; none (-1) otherwise.
static int deciderOf(BasicBlock *P, BasicBlock *M, BranchInst &DBr,
                     DominatorTree &DT) {
  BasicBlock *D = DBr.getParent();
  for (unsigned K = 0; K < 2; ++K) {
    BasicBlock *S = DBr.getSuccessor(K);
    if (P == D ? S == M
               : S != M && S->getSinglePredecessor() == D && DT.dominates(S, P))
      return K;
  }
  return -1;
}

std::optional<RecomputedPred> Unzipper::recomputablePredIndex(BasicBlock &M) {
  SmallVector<BasicBlock *, 4> Preds = predecessorsInLayoutOrder(M);
  DomTreeNode *Node = DT->getNode(&M);
  if (Preds.size() != 2 || !Node || !Node->getIDom())
    return std::nullopt;
  BasicBlock *D = Node->getIDom()->getBlock();
  auto *Br = dyn_cast<BranchInst>(D->getTerminator());
  if (!Br || !Br->isConditional() ||
      Br->getSuccessor(0) == Br->getSuccessor(1) ||
      LI->getLoopFor(D) != LI->getLoopFor(&M))
    return std::nullopt;
  int From0 = deciderOf(Preds[0], &M, *Br, *DT);
  int From1 = deciderOf(Preds[1], &M, *Br, *DT);
  if (From0 < 0 || From1 < 0 || From0 == From1)
    return std::nullopt;
  // A comparison of values f.lin computes from counters and static values.
  auto *Cond = dyn_cast<ICmpInst>(Br->getCondition());
  if (!Cond || isLinear(Cond))
    return std::nullopt;
  for (Value *Op : Cond->operands())
    if (!isa<Constant>(Op) &&
        (!SE->isSCEVable(Op->getType()) || !isRecomputable(SE->getSCEV(Op), M)))
      return std::nullopt;
  for (Value *Op : Cond->operands())
    if (!isa<Constant>(Op))
      noteStaticLeaves(SE->getSCEV(Op));
  // Predecessor From0 ... sits at index 0: true picks the one successor 0
  // leads to.
  return RecomputedPred{Cond, From0 == 0 ? 0u : 1u, From0 == 0 ? 1u : 0u};
}

/// The index f.rev switches on, computed in f.lin's block of \p M (and
/// rebuilt by f.rev from the same counters and tape reads).
Value *Unzipper::emitPredIndex(IRBuilder<> &B, BasicBlock &M, Value *TapePtr,
                               const LoopValues &Loops) {
  const RecomputedPred &RP = Layout.RecomputedPredIndex.find(&M)->second;
  auto Operand = [&](Value *Op) -> Value * {
    if (isa<Constant>(Op))
      return Op;
    return emitRecomputed(B, SE->getSCEV(Op), TapePtr, Loops);
  };
  Value *Cond =
      B.CreateICmp(RP.Cond->getPredicate(), Operand(RP.Cond->getOperand(0)),
                   Operand(RP.Cond->getOperand(1)), "pred.cond");
  Type *IdxTy = predIndexType(M.getContext(), 2);
  // Not folded, even on a constant condition: f.rev finds the index by
  // its mark.
  auto *Idx =
      SelectInst::Create(Cond, ConstantInt::get(IdxTy, RP.IfTrue),
                         ConstantInt::get(IdxTy, RP.IfFalse), "pred.idx");
  B.Insert(Idx);
  markWith(Idx, PredIndexMD);
  return Idx;
}

} // namespace ad
