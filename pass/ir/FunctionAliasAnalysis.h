//===- FunctionAliasAnalysis.h - BasicAA and TBAA, one function -*- C++ -*-===//
//
// The stages ask alias analysis about functions they are changing (f.jvp,
// the prepared copy), outside a pass manager whose cached results would go
// stale under them. They all use the same stack, BasicAA then TBAA, built
// here over the dominator tree they maintain; and they all ask the same
// question of a loop: may any of its writes modify a whole object.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_IR_FUNCTIONALIASANALYSIS_H
#define ADPASS_IR_FUNCTIONALIASANALYSIS_H

#include "ir/LLVMCompat.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Analysis/AliasAnalysis.h"
#include "llvm/Analysis/BasicAliasAnalysis.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/TypeBasedAliasAnalysis.h"

namespace ad {

/// BasicAA and TBAA over \p F, as one AAResults.
struct FunctionAliasAnalysis {
  FunctionAliasAnalysis(llvm::Function &F, const llvm::TargetLibraryInfo &TLI,
                        llvm::AssumptionCache &AC, llvm::DominatorTree &DT)
      : BasicAA(F.getDataLayout(), F, TLI, AC, &DT), TBAA(AD_TBAA_RESULT_ARGS),
        AA(TLI) {
    AA.addAAResult(BasicAA);
    AA.addAAResult(TBAA);
  }
  FunctionAliasAnalysis(const FunctionAliasAnalysis &) = delete;
  FunctionAliasAnalysis &operator=(const FunctionAliasAnalysis &) = delete;

  llvm::BasicAAResult BasicAA;
  llvm::TypeBasedAAResult TBAA;
  llvm::AAResults AA;
};

/// Whether a write of \p L other than those \p Ignore accepts may modify
/// any byte of the object \p Ptr points into (a whole-object query: an
/// alias query speaks of one moment, while a loop writes in every
/// iteration).
inline bool loopMayModifyObject(
    const llvm::Loop &L, const llvm::Value *Ptr, llvm::AAResults &AA,
    llvm::function_ref<bool(const llvm::Instruction &)> Ignore) {
  llvm::MemoryLocation Whole = llvm::MemoryLocation::getBeforeOrAfter(Ptr);
  for (const llvm::BasicBlock *BB : L.blocks())
    for (const llvm::Instruction &W : *BB)
      if (W.mayWriteToMemory() && !Ignore(W) &&
          llvm::isModSet(AA.getModRefInfo(&W, Whole)))
        return true;
  return false;
}

} // namespace ad

#endif
