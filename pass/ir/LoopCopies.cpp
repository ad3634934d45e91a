//===- LoopCopies.cpp - two copies of a loop meeting at its exit ----------===//
#include "ir/LoopCopies.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace ad {

SmallVector<std::pair<Instruction *, PHINode *>, 4>
mergeLoopCopiesAtExit(Loop &L, BasicBlock &Exiting, BasicBlock &ClonedExiting,
                      ArrayRef<Instruction *> DefsUsedOutside,
                      ValueToValueMapTy &VMap) {
  BasicBlock &Exit = *L.getExitBlock();
  SmallVector<PHINode *, 4> ExitPhis;
  for (PHINode &Phi : Exit.phis())
    ExitPhis.push_back(&Phi);
  for (PHINode *Phi : ExitPhis) {
    Value *V = Phi->getIncomingValueForBlock(&Exiting);
    Value *Mapped = VMap.lookup(V);
    Phi->addIncoming(Mapped ? Mapped : V, &ClonedExiting);
  }
  SmallVector<std::pair<Instruction *, PHINode *>, 4> Merged;
  for (Instruction *Def : DefsUsedOutside) {
    SmallVector<Use *, 4> Outside;
    for (Use &U : Def->uses()) {
      auto *User = cast<Instruction>(U.getUser());
      if (!L.contains(User) && !llvm::is_contained(ExitPhis, User))
        Outside.push_back(&U);
    }
    if (Outside.empty())
      continue;
    PHINode *Phi = PHINode::Create(
        Def->getType(), 2, Def->getName() + ".merged", Exit.getFirstNonPHIIt());
    Phi->addIncoming(Def, &Exiting);
    Phi->addIncoming(VMap[Def], &ClonedExiting);
    for (Use *U : Outside)
      U->set(Phi);
    Merged.push_back({Def, Phi});
  }
  return Merged;
}

} // namespace ad
