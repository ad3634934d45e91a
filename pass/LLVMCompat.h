//===- LLVMCompat.h - shims over LLVM API differences -----------*- C++ -*-===//
//
// ADPass targets LLVM 19 first; LLVM 16 and 22 are to follow. Every place
// where the API we use differs between those versions goes through a helper
// here, so the rest of the pass reads as plain LLVM 19 code.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_LLVMCOMPAT_H
#define ADPASS_LLVMCOMPAT_H

#include "llvm/Config/llvm-config.h"
#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/Instruction.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/OptimizationLevel.h"
#include <functional>

namespace ad {

/// First position after the PHIs (and, where they are still instructions,
/// debug intrinsics) of \p BB, as an iterator that keeps debug records in
/// place on LLVM >= 19.
inline llvm::BasicBlock::iterator firstInsertionPt(llvm::BasicBlock &BB) {
  return BB.getFirstInsertionPt();
}

/// Drops debug records attached to \p I (the non-intrinsic debug-info format
/// of LLVM >= 19); earlier versions have none.
inline void dropDebugRecords(llvm::Instruction &I) {
#if LLVM_VERSION_MAJOR >= 19
  I.dropDbgRecords();
#else
  (void)I;
#endif
}

/// OptimizerEarly callbacks gained a ThinOrFullLTOPhase parameter in
/// LLVM 20; ours do not need it.
using OptimizerEarlyFn =
    std::function<void(llvm::ModulePassManager &, llvm::OptimizationLevel)>;
#if LLVM_VERSION_MAJOR >= 20
inline auto adaptOptimizerEarlyCallback(OptimizerEarlyFn F) {
  return [F](llvm::ModulePassManager &MPM, llvm::OptimizationLevel L,
             llvm::ThinOrFullLTOPhase) { F(MPM, L); };
}
#else
inline OptimizerEarlyFn adaptOptimizerEarlyCallback(OptimizerEarlyFn F) {
  return F;
}
#endif

} // namespace ad

#endif
