//===- Plugin.cpp - registers ADPass with clang and opt -------------------===//
//
// clang -fpass-plugin=libADPass.so: the markers are lowered at the
// OptimizerEarly extension point (after inlining and scalar simplification,
// before vectorisation), which the O0 pipeline also runs, so requests work
// at every optimisation level.
// opt -load-pass-plugin=libADPass.so -passes=ad|ad-linearize|ad-unzip|...: the
// stages one at a time, for tests and inspection; ad<O2> lowers as clang
// does at -O2 (without rerunning the inliner pipeline).
//
//===----------------------------------------------------------------------===//
#include "codegen/OutlineLongBlocks.h"
#include "driver/Passes.h"
#include "ir/LLVMCompat.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Passes/PassBuilder.h"

using namespace llvm;

/// "O0" .. "O3", "Os", "Oz".
static std::optional<OptimizationLevel> parseLevel(StringRef S) {
  return StringSwitch<std::optional<OptimizationLevel>>(S)
      .Case("O0", OptimizationLevel::O0)
      .Case("O1", OptimizationLevel::O1)
      .Case("O2", OptimizationLevel::O2)
      .Case("O3", OptimizationLevel::O3)
      .Case("Os", OptimizationLevel::Os)
      .Case("Oz", OptimizationLevel::Oz)
      .Default(std::nullopt);
}

static bool parseModulePass(StringRef Name, ModulePassManager &MPM,
                            ArrayRef<PassBuilder::PipelineElement>) {
  // ad<O2>: lower as clang does at -O2, except that the inliner pipeline is
  // not rerun afterwards (opt's own pipeline decides what runs next).
  if (Name.consume_front("ad<") && Name.consume_back(">")) {
    std::optional<OptimizationLevel> Level = parseLevel(Name);
    if (!Level)
      return false;
    MPM.addPass(ad::ADLowerPass(nullptr, *Level));
  } else if (Name == "ad")
    MPM.addPass(ad::ADLowerPass());
  else if (Name == "ad-linearize" || Name == "ad-jvp") // ad-jvp: older name
    MPM.addPass(ad::ADLinearizePass());
  else if (Name == "ad-unzip")
    MPM.addPass(ad::ADUnzipPass());
  else if (Name == "ad-transpose")
    MPM.addPass(ad::ADTransposePass());
  else if (Name == "ad-first-touch")
    MPM.addPass(ad::ADFirstTouchPass());
  else if (Name == "ad-verify")
    MPM.addPass(ad::ADVerifyPass());
  else
    return false;
  return true;
}

static void registerCallbacks(PassBuilder &PB) {
  PB.registerPipelineParsingCallback(parseModulePass);
  if (PassInstrumentationCallbacks *PIC = PB.getPassInstrumentationCallbacks())
    ad::registerSlpGuard(*PIC);
  PB.registerPipelineStartEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel) {
        MPM.addPass(ad::ADKeepMarkersApartPass());
      });
  PB.registerOptimizerEarlyEPCallback(ad::adaptOptimizerEarlyCallback(
      [&PB](ModulePassManager &MPM, OptimizationLevel Level) {
        MPM.addPass(ad::ADLowerPass(&PB, Level));
      }));
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "ADPass", "0.1", registerCallbacks};
}
