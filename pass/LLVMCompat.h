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
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/OptimizationLevel.h"
#include <functional>

namespace ad {

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
