//===- Passes.h - the passes ADPass registers -------------------*- C++ -*-===//
//
//   ad            lower every __ad_* marker (what clang runs at -O0)
//   ad<O2>        the same as clang at -O2 (O1, O3, Os, Oz too), without the
//                 inliner pipeline clang reruns afterwards
//   ad-linearize  build f.jvp for each marker's request (markers stay);
//                 also accepted as ad-jvp
//   ad-unzip      build f.fwd/f.lin/%f.tape for each f.jvp
//   ad-transpose  build f.rev for each f.lin
//   ad-verify     check the linearity invariants of every f.jvp / f.lin
//   ad-first-touch  accumulations into memory a memset zeroed become stores
//                 (FirstTouchStores.h; what ad<O1..O3> does to the callers)
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_PASSES_H
#define ADPASS_PASSES_H

#include "llvm/IR/PassManager.h"
#include "llvm/Passes/OptimizationLevel.h"

namespace llvm {
class PassBuilder;
}

namespace ad {

class ADLowerPass : public llvm::PassInfoMixin<ADLowerPass> {
public:
  /// With a PassBuilder (under clang at -O1 and above), the module is run
  /// through the inliner pipeline again after lowering, so that f.fwd/f.rev
  /// are inlined into their callers and optimised with them (derived
  /// functions that call derived functions stay out of line).
  explicit ADLowerPass(
      llvm::PassBuilder *PB = nullptr,
      llvm::OptimizationLevel Level = llvm::OptimizationLevel::O0)
      : PB(PB), Level(Level) {}
  llvm::PreservedAnalyses run(llvm::Module &M,
                              llvm::ModuleAnalysisManager &MAM);
  static bool isRequired() { return true; }

private:
  llvm::PassBuilder *PB;
  llvm::OptimizationLevel Level;
};

/// At the start of clang's pipeline: keeps the optimiser from merging
/// marker calls (keepMarkersApart in MarkerLowering.h) and from inlining
/// functions with custom rules (keepRuledFunctionsOutOfLine).
struct ADKeepMarkersApartPass : llvm::PassInfoMixin<ADKeepMarkersApartPass> {
  llvm::PreservedAnalyses run(llvm::Module &M,
                              llvm::ModuleAnalysisManager &MAM);
  static bool isRequired() { return true; }
};

struct ADFirstTouchPass : llvm::PassInfoMixin<ADFirstTouchPass> {
  llvm::PreservedAnalyses run(llvm::Module &M,
                              llvm::ModuleAnalysisManager &MAM);
};

struct ADLinearizePass : llvm::PassInfoMixin<ADLinearizePass> {
  llvm::PreservedAnalyses run(llvm::Module &M,
                              llvm::ModuleAnalysisManager &MAM);
  static bool isRequired() { return true; }
};

struct ADUnzipPass : llvm::PassInfoMixin<ADUnzipPass> {
  llvm::PreservedAnalyses run(llvm::Module &M,
                              llvm::ModuleAnalysisManager &MAM);
  static bool isRequired() { return true; }
};

struct ADTransposePass : llvm::PassInfoMixin<ADTransposePass> {
  llvm::PreservedAnalyses run(llvm::Module &M,
                              llvm::ModuleAnalysisManager &MAM);
  static bool isRequired() { return true; }
};

struct ADVerifyPass : llvm::PassInfoMixin<ADVerifyPass> {
  llvm::PreservedAnalyses run(llvm::Module &M,
                              llvm::ModuleAnalysisManager &MAM);
  static bool isRequired() { return true; }
};

} // namespace ad

#endif
