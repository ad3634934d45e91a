//===- IterationOrder.cpp - reversed loops that may run forwards ----------===//
#include "transpose/IterationOrder.h"
#include "ir/Linearity.h"
#include "unzip/TapeRuntime.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace ad {

/// Whether \p I, an instruction of the loop, lets its iteration's transpose
/// run in any order with the others': it writes no memory (its transpose
/// would read a shadow cell's cotangent back), is no call of g.lin, pops no
/// tape and is no other array loop's counter (whose array f.rev pops).
static bool commutesWithOtherIterations(const Instruction &I,
                                        const PHINode *OwnCounter) {
  if (isTapeCall(&I, TapeOp::Read))
    return false;
  if (auto *Phi = dyn_cast<PHINode>(&I))
    return Phi == OwnCounter || !counterInfo(*Phi);
  if (!isLinear(&I))
    return true;
  if (auto *Call = dyn_cast<CallBase>(&I))
    return isa<IntrinsicInst>(Call) && !Call->mayReadOrWriteMemory();
  return !I.mayWriteToMemory();
}

/// Whether linear header PHI \p Phi of \p L is a sum carried across
/// iterations: its only use starts a chain of single-use fadds and fsubs
/// (Phi's chain as the minuend) ending in the value it takes back, which
/// nothing else in the loop uses. Its cotangent is then that of the sum
/// after the loop, in every iteration.
static bool isCarriedSum(const PHINode &Phi, const Loop &L) {
  const Value *Back = Phi.getIncomingValueForBlock(L.getLoopLatch());
  const Value *Chain = &Phi;
  while (Chain != Back) {
    if (!Chain->hasOneUse())
      return false;
    auto *Next = dyn_cast<BinaryOperator>(*Chain->user_begin());
    if (!Next || !L.contains(Next) ||
        !(Next->getOpcode() == Instruction::FAdd ||
          (Next->getOpcode() == Instruction::FSub &&
           Next->getOperand(0) == Chain)))
      return false;
    Chain = Next;
  }
  return llvm::all_of(Back->users(), [&](const User *U) {
    return U == &Phi || !L.contains(cast<Instruction>(U));
  });
}

bool transposedIterationsCommute(const Loop &L) {
  const BasicBlock *Latch = L.getLoopLatch();
  if (!Latch || L.getExitingBlock() != Latch)
    return false;
  const PHINode *OwnCounter = nullptr;
  for (const PHINode &Phi : L.getHeader()->phis())
    if (counterInfo(Phi))
      OwnCounter = &Phi;
  SmallPtrSet<const Value *, 4> Sums;
  for (const PHINode &Phi : L.getHeader()->phis())
    if (isLinear(&Phi)) {
      if (!isCarriedSum(Phi, L))
        return false;
      Sums.insert(Phi.getIncomingValueForBlock(Latch));
    }
  for (const BasicBlock *BB : L.blocks())
    for (const Instruction &I : *BB) {
      if (!commutesWithOtherIterations(I, OwnCounter))
        return false;
      if (isLinear(&I) && !Sums.count(&I) &&
          llvm::any_of(I.users(), [&](const User *U) {
            return !L.contains(cast<Instruction>(U));
          }))
        return false; // its cotangent from after the loop is the last's
    }
  return true;
}

} // namespace ad
