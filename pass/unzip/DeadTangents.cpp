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

/// Without linear phis dead tangent code has no cycles: it is what deleting
/// unused linear instructions, and then what they alone used, removes. A
/// look at uses first keeps this cheap on long straight-line f.jvp (each
/// linear mark is a metadata lookup).
static unsigned dropUnusedTangents(Function &Jvp) {
  SmallVector<WeakTrackingVH, 16> Unused;
  for (Instruction &I : instructions(Jvp))
    if (I.use_empty() && !I.mayHaveSideEffects() && !I.isTerminator() &&
        isLinear(&I))
      Unused.push_back(&I);
  NumDeadTangents += Unused.size();
  RecursivelyDeleteTriviallyDeadInstructionsPermissive(Unused);
  return Unused.size();
}

/// Whether \p Jvp has a linear phi, through which dead tangent code may
/// form a cycle (a running maximum's tangent phi and select).
static bool hasLinearPhi(Function &Jvp) {
  for (BasicBlock &BB : Jvp)
    for (PHINode &Phi : BB.phis())
      if (isLinear(&Phi))
        return true;
  return false;
}

unsigned dropDeadTangents(Function &Jvp) {
  if (!hasLinearPhi(Jvp))
    return dropUnusedTangents(Jvp);
  // One look at each instruction's mark (a metadata lookup each time).
  DenseSet<const Value *> Linear = linearInstructions(Jvp);
  // Needed for itself: an effect, the end of a block, or a primal user
  // (f.jvp's packed return value).
  auto IsNeededForItself = [&](const Instruction &I) {
    return I.mayHaveSideEffects() || I.isTerminator() ||
           llvm::any_of(I.users(),
                        [&](const User *U) { return !Linear.count(U); });
  };
  SmallPtrSet<Instruction *, 32> Live;
  SmallVector<Instruction *, 64> Worklist;
  for (Instruction &I : instructions(Jvp))
    if (Linear.count(&I) && IsNeededForItself(I) && Live.insert(&I).second)
      Worklist.push_back(&I);
  while (!Worklist.empty()) {
    Instruction *I = Worklist.pop_back_val();
    for (Value *Op : I->operands())
      if (auto *OpI = dyn_cast<Instruction>(Op);
          OpI && Linear.count(OpI) && Live.insert(OpI).second)
        Worklist.push_back(OpI);
  }
  if (Live.size() == Linear.size())
    return 0;
  SmallVector<Instruction *, 16> Dead;
  for (Instruction &I : instructions(Jvp))
    if (Linear.count(&I) && !Live.count(&I))
      Dead.push_back(&I);
  if (Dead.empty())
    return 0;
  // Dead code may form cycles (a tangent phi and its select): references
  // go first, then the instructions; what only they used goes after.
  SmallVector<WeakTrackingVH, 16> MaybeDead;
  for (Instruction *I : Dead)
    for (Value *Op : I->operands())
      if (auto *OpI = dyn_cast<Instruction>(Op); OpI && !Linear.count(OpI))
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
