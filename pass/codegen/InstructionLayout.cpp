//===- InstructionLayout.cpp - derived code laid out in order -------------===//
#include "codegen/InstructionLayout.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/Instruction.h"
#include "llvm/Support/TimeProfiler.h"
#include <vector>

using namespace llvm;

namespace ad {

void layOutInListOrder(Function &F) {
  TimeTraceScope Scope("ADPass lay out", F.getName());
  // The originals are freed only after every copy is made: freed at once,
  // each would be the chunk malloc hands the next copy of its size, and the
  // copies would land where the originals were.
  std::vector<Instruction *> Originals;
  for (BasicBlock &BB : F)
    for (Instruction &I : make_early_inc_range(BB)) {
      Instruction *Copy = I.clone();
      // Inserted before I, the copy takes over the debug records in front
      // of I (PHIs have none: they sit in front of the first non-PHI).
      Copy->insertInto(&BB, I.getIterator());
      Copy->takeName(&I);
      // Later instructions are copied from operands already replaced.
      I.replaceAllUsesWith(Copy);
      I.dropAllReferences();
      I.removeFromParent();
      Originals.push_back(&I);
    }
  for (Instruction *I : Originals)
    I->deleteValue();
}

} // namespace ad
