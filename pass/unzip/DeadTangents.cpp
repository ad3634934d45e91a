//===- DeadTangents.cpp - tangent code whose values reach nothing ---------===//
#include "unzip/DeadTangents.h"
#include "ir/Linearity.h"

#include "llvm/ADT/Statistic.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/Transforms/Utils/Local.h"

#define DEBUG_TYPE "ad-unzip"

using namespace llvm;

STATISTIC(NumDeadTangents, "Number of dead linear instructions dropped");

namespace ad {

/// Whether linear \p I is needed for itself: it has an effect, ends a
/// block, or primal code reads it (f.jvp's packed return value).
static bool isNeededForItself(const Instruction &I) {
  return I.mayHaveSideEffects() || I.isTerminator() ||
         llvm::any_of(I.users(), [](const User *U) { return !isLinear(U); });
}

unsigned dropDeadTangents(Function &Jvp) {
  SmallPtrSet<Instruction *, 32> Live;
  SmallVector<Instruction *, 64> Worklist;
  for (Instruction &I : instructions(Jvp))
    if (isLinear(&I) && isNeededForItself(I) && Live.insert(&I).second)
      Worklist.push_back(&I);
  while (!Worklist.empty()) {
    Instruction *I = Worklist.pop_back_val();
    for (Value *Op : I->operands())
      if (auto *OpI = dyn_cast<Instruction>(Op);
          OpI && isLinear(OpI) && Live.insert(OpI).second)
        Worklist.push_back(OpI);
  }
  SmallVector<Instruction *, 16> Dead;
  for (Instruction &I : instructions(Jvp))
    if (isLinear(&I) && !Live.count(&I))
      Dead.push_back(&I);
  if (Dead.empty())
    return 0;
  // Dead code may form cycles (a tangent phi and its select): references
  // go first, then the instructions; what only they used goes after.
  SmallVector<WeakTrackingVH, 16> MaybeDead;
  for (Instruction *I : Dead)
    for (Value *Op : I->operands())
      if (auto *OpI = dyn_cast<Instruction>(Op); OpI && !isLinear(OpI))
        MaybeDead.push_back(OpI);
  for (Instruction *I : Dead)
    I->dropAllReferences();
  for (Instruction *I : Dead)
    I->eraseFromParent();
  RecursivelyDeleteTriviallyDeadInstructionsPermissive(MaybeDead);
  NumDeadTangents += Dead.size();
  return Dead.size();
}

} // namespace ad
