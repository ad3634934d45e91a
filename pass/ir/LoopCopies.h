//===- LoopCopies.h - two copies of a loop meeting at its exit --*- C++ -*-===//
//
// Versioning a loop (LLVM's LoopVersioning, DisjointAccessChecks,
// FirstTouchStores) clones it with cloneLoopWithPreheader and branches to
// one copy or the other. Both copies then leave into the original exit
// block, which must take either copy's values.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_IR_LOOPCOPIES_H
#define ADPASS_IR_LOOPCOPIES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Transforms/Utils/ValueMapper.h"
#include <utility>

namespace llvm {
class BasicBlock;
class Instruction;
class Loop;
class PHINode;
} // namespace llvm

namespace ad {

/// \p L's single exit block follows both \p L (leaving from \p Exiting) and
/// its copy (from \p ClonedExiting, \p VMap mapping the originals): the
/// exit's phis get the copy's values on the copy's edge, and each of
/// \p DefsUsedOutside (findDefsUsedOutsideOfLoop, taken before cloning)
/// that is used beyond the loop other than by those phis gets a phi of its
/// two versions. Returns those definitions with their new phis.
llvm::SmallVector<std::pair<llvm::Instruction *, llvm::PHINode *>, 4>
mergeLoopCopiesAtExit(llvm::Loop &L, llvm::BasicBlock &Exiting,
                      llvm::BasicBlock &ClonedExiting,
                      llvm::ArrayRef<llvm::Instruction *> DefsUsedOutside,
                      llvm::ValueToValueMapTy &VMap);

} // namespace ad

#endif
