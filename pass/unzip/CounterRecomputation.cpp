//===- CounterRecomputation.cpp - values f.lin computes from counters -----===//
//
// Step 3a of TapePlan.cpp's plan: inside a counted loop, a residual that
// is affine in the iteration counters of enclosing counted loops, over
// static values or over values an enclosing counted loop computes (a
// buffer's base swapped every time step), is computed again by f.lin and
// f.rev (Layout.Recomputed) rather than taped. This file says which values
// qualify (isRecomputable), notes what they are computed from (the static
// tape, or a record of an enclosing loop: noteStaticLeaves), and emits
// them into f.lin (emitRecomputed).
//
//===----------------------------------------------------------------------===//
#include "UnzipImpl.h"
#include "ir/Linearity.h"
#include "unzip/TapeRuntime.h"

#include "llvm/Analysis/ScalarEvolutionExpressions.h"

using namespace llvm;

namespace ad {

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
    return I && !isLinear(I) &&
           (!LI->getLoopFor(I->getParent()) || leafLoop(*I, UseBB));
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

const ArrayLoop *Unzipper::leafLoop(const Instruction &I,
                                    BasicBlock &UseBB) const {
  const ArrayLoop *AL = arrayLoopOf(const_cast<BasicBlock *>(I.getParent()));
  if (!AL || AL->L == LI->getLoopFor(&UseBB) || !AL->L->contains(&UseBB) ||
      !DT->dominates(&I, &UseBB))
    return nullptr;
  return AL;
}

/// \p I goes into the record of its counted loop, stored where it is
/// computed (once per iteration: its block is in no inner loop).
void Unzipper::noteLoopLeaf(Instruction &I) {
  if (Layout.LoopLeaves.count(&I))
    return;
  BasicBlock *Key = recordKey(I.getParent());
  BlockRecord &R = Layout.Records[Key];
  auto [It, New] = Layout.RecordFieldOf.insert({{Key, &I}, 0});
  if (New)
    It->second = R.add(I.getType());
  R.Stores.push_back(
      {RecordStore::Residual, &I, nullptr, I.getParent(), It->second});
  Layout.LoopLeaves[&I] = {Key, It->second};
}

/// The values \p S is computed from that f.lin cannot compute: taped in the
/// static tape, or (computed in a counted loop, for its inner loops) in
/// that loop's record.
void Unzipper::noteStaticLeaves(const SCEV *S) {
  SmallVector<const SCEV *, 8> Work{S};
  while (!Work.empty()) {
    const SCEV *X = Work.pop_back_val();
    if (auto *U = dyn_cast<SCEVUnknown>(X)) {
      Value *V = U->getValue();
      if (auto *I = dyn_cast<Instruction>(V);
          I && LI->getLoopFor(I->getParent())) {
        noteLoopLeaf(*I);
        continue;
      }
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

Value *Unzipper::currentRecordOf(IRBuilder<> &B, BasicBlock &Key,
                                 const LoopValues &Loops) {
  const ArrayLoop *AL = arrayLoopOf(&Key);
  return arrayElement(B, Loops.Arrays.lookup(AL).first, Layout.Records[&Key].Ty,
                      Loops.Counters.lookup(AL));
}

/// Emits \p S (isRecomputable) into f.lin: counters for add-recurrences,
/// static tape reads for values, and reads of an outer loop's record, at
/// its current iteration, for values computed in it.
Value *Unzipper::emitRecomputed(IRBuilder<> &B, const SCEV *S, Value *TapePtr,
                                const LoopValues &Loops) {
  auto Emit = [&](const SCEV *X) {
    return emitRecomputed(B, X, TapePtr, Loops);
  };
  Type *T = S->getType();
  if (auto *C = dyn_cast<SCEVConstant>(S))
    return C->getValue();
  if (auto *U = dyn_cast<SCEVUnknown>(S)) {
    Value *V = U->getValue();
    if (isa<Constant>(V))
      return V;
    if (auto Leaf = Layout.LoopLeaves.find(V); Leaf != Layout.LoopLeaves.end())
      return rebaseForHandle(
          B, B.CreateLoad(
                 T,
                 slotAddress(B, Leaf->second, TapePtr,
                             currentRecordOf(B, *Leaf->second.Record, Loops)),
                 V->getName()));
    auto *Load = B.CreateLoad(
        T, staticField(B, TapePtr, Layout.StaticResiduals.lookup(V)),
        V->getName());
    markWith(Load, StaticReadMD);
    return rebaseForHandle(B, Load);
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
    Value *K = B.CreateZExtOrTrunc(Loops.Counters.lookup(AL), T);
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

Instruction *Unzipper::emitRecomputedCount(IRBuilder<> &B, const ArrayLoop &AL,
                                           Value *TapePtr,
                                           const LoopValues &Loops) {
  Value *Backedges = emitRecomputed(B, AL.Backedges, TapePtr, Loops);
  // Not folded when the count is a constant: f.rev finds the loop's count
  // by the instruction's mark.
  return B.Insert(BinaryOperator::CreateAdd(
                      Backedges, ConstantInt::get(Backedges->getType(), 1)),
                  "iterations");
}

} // namespace ad
