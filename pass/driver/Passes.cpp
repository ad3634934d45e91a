//===- Passes.cpp - the passes ADPass registers ---------------------------===//
#include "driver/Passes.h"
#include "codegen/FirstTouchStores.h"
#include "codegen/InstructionLayout.h"
#include "codegen/OutlineLongBlocks.h"
#include "driver/CustomRules.h"
#include "driver/DerivedFunctions.h"
#include "driver/Differentiator.h"
#include "driver/MarkerLowering.h"
#include "driver/OpenMPRegions.h"
#include "ir/LinearityVerifier.h"

#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/TimeProfiler.h"
#include "llvm/Support/thread.h"

using namespace llvm;

namespace ad {

/// Derivatives are built callee first, recursively (Differentiator.h): a
/// chain of functions each calling the next nests one level of linearize,
/// unzip and transpose per function, a few KiB of stack each, and clang's
/// 8 MiB main stack overflowed at a chain of 1000 to 4000 functions at -O0.
/// As clang does for its own deep recursions, that work runs on a thread
/// with a larger stack (pages are committed only as they are touched); the
/// calling thread waits, so nothing runs concurrently.
static constexpr unsigned DerivationStackBytes = 256u << 20;

/// Off: the callers of requests keep their memsets and f.rev's loads of
/// the cells they zero (FirstTouchStores.h).
static cl::opt<bool> FirstTouchStores(
    "ad-first-touch-stores", cl::init(true), cl::Hidden,
    cl::desc("At -O1 and above, loops of request callers that add into "
             "cells a memset just zeroed store instead"));

/// clang's -ftime-trace profiler is per thread: the worker gets its own,
/// handed back when it ends so that the stages (Differentiator.cpp) appear in
/// the trace. clang's -ftime-trace-granularity is not visible to a plugin.
static cl::opt<unsigned> TimeTraceGranularityUs(
    "ad-time-trace-granularity", cl::init(500), cl::Hidden,
    cl::desc("Minimum time in microseconds of an ADPass stage that "
             "-ftime-trace records (clang's default granularity)"));

static void runOnWorker(function_ref<void()> Body) {
  bool Profiling = getTimeTraceProfilerInstance() != nullptr;
  llvm::thread Worker(std::optional<unsigned>(DerivationStackBytes), [&] {
    if (Profiling)
      timeTraceProfilerInitialize(TimeTraceGranularityUs, "ADPass");
    Body();
    if (Profiling)
      timeTraceProfilerFinishThread();
  });
  Worker.join();
}

namespace {
/// LLVMContext::diagnose prints an error that no handler takes and calls
/// exit(1): under opt, from the worker thread, racing the thread that waits
/// for it (an occasional crash on the way out, which failed a diagnostics
/// test once in a CI run). While the worker runs, such an error is printed
/// the same way here and the exit waits until the worker is done.
struct DeferExitOnError : DiagnosticHandler {
  explicit DeferExitOnError(DiagnosticHandler &Inner) : Inner(Inner) {}
  bool handleDiagnostics(const DiagnosticInfo &DI) override {
    if (Inner.handleDiagnostics(DI))
      return true;
    if (DI.getSeverity() != DS_Error)
      return false; // printed by LLVMContext, which goes on
    errs() << "error: ";
    DiagnosticPrinterRawOStream Printer(errs());
    DI.print(Printer);
    errs() << "\n";
    Unhandled = true;
    return true;
  }
  bool isAnalysisRemarkEnabled(StringRef Pass) const override {
    return Inner.isAnalysisRemarkEnabled(Pass);
  }
  bool isMissedOptRemarkEnabled(StringRef Pass) const override {
    return Inner.isMissedOptRemarkEnabled(Pass);
  }
  bool isPassedOptRemarkEnabled(StringRef Pass) const override {
    return Inner.isPassedOptRemarkEnabled(Pass);
  }
  bool isAnyRemarkEnabled() const override {
    return Inner.isAnyRemarkEnabled();
  }
  DiagnosticHandler &Inner;
  bool Unhandled = false;
};
} // namespace

static void runOnLargeStack(LLVMContext &Ctx, function_ref<void()> Body) {
  std::unique_ptr<DiagnosticHandler> Outer = Ctx.getDiagnosticHandler();
  if (!Outer)
    Outer = std::make_unique<DiagnosticHandler>();
  auto Deferring = std::make_unique<DeferExitOnError>(*Outer);
  DeferExitOnError *D = Deferring.get();
  Ctx.setDiagnosticHandler(std::move(Deferring));
  runOnWorker(Body);
  bool Unhandled = D->Unhandled;
  Outer->HasErrors |= D->HasErrors;
  Ctx.setDiagnosticHandler(std::move(Outer));
  if (Unhandled)
    exit(1);
}

static void keepCallChainsOutOfLine(Module &M) {
  for (Function &F : M) {
    if (F.isDeclaration() || !getDerivedInfo(F))
      continue;
    bool CallsDerived = llvm::any_of(instructions(F), [&](Instruction &I) {
      auto *CB = dyn_cast<CallBase>(&I);
      Function *Callee = CB ? CB->getCalledFunction() : nullptr;
      return Callee && Callee != &F && getDerivedInfo(*Callee);
    });
    if (CallsDerived)
      F.addFnAttr(Attribute::NoInline);
  }
}

/// At -O0 the derived functions go to code generation as the stages leave
/// them. Those whose bodies the stages edited in place (f.jvp takes
/// f.ad.src's, f.fwd f.jvp's) are laid out in memory in list order; f.rev,
/// built instruction by instruction, already is. Called on the main thread
/// (InstructionLayout.h).
static void layOutEditedBodies(Module &M, Differentiator &D) {
  for (Function &F : M) {
    std::optional<DerivedInfo> Info = getDerivedInfo(F);
    if (F.isDeclaration() || !Info ||
        (Info->Kind != DerivedKind::Jvp && Info->Kind != DerivedKind::Fwd))
      continue;
    D.forgetAnalyses(F);
    layOutInListOrder(F);
  }
}

PreservedAnalyses ADLowerPass::run(Module &M, ModuleAnalysisManager &MAM) {
  Diagnostics Diags(M.getContext());
  Differentiator D(M, MAM, Diags, Level != OptimizationLevel::O0);
  // The functions whose markers became calls of derived code, which the
  // inliner below may put there.
  SmallSetVector<Function *, 8> Callers;
  runOnLargeStack(M.getContext(), [&] { Callers = lowerMarkers(M, D); });
  if (Callers.empty())
    return PreservedAnalyses::all();
  forkParallelRegions(M, Diags);
  if (Level == OptimizationLevel::O0)
    layOutEditedBodies(M, D);
  // After the layout, which halves the verifier's time on long functions.
  D.verifyEmitted(Callers.getArrayRef());
  if (PB && Level != OptimizationLevel::O0 && Diags.numErrors() == 0) {
    // Differentiate optimised code, then optimise the derivative (DESIGN §5):
    // OptimizerEarly comes after the inliner, so run it once more. Derived
    // functions that call other derived functions stay out of line: they
    // are internal and called once, so the inliner would flatten a whole
    // call chain into one huge function, and code generation is superlinear
    // in function size. Leaves (the loops of a kernel) are still inlined.
    keepCallChainsOutOfLine(M);
    MAM.invalidate(M, PreservedAnalyses::none());
    ModulePassManager MPM;
    MPM.addPass(PB->buildInlinerPipeline(Level, ThinOrFullLTOPhase::None));
    MPM.run(M, MAM);
  }
  if (Level != OptimizationLevel::O0 && Diags.numErrors() == 0) {
    FunctionAnalysisManager &FAM =
        MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
    for (Function *F : Callers) {
      if (getDerivedInfo(*F))
        continue;
      // f.rev inlined after the caller's memset: its first accumulation
      // into each zeroed cell can be a store (FirstTouchStores.h).
      if (FirstTouchStores)
        storeFirstTouches(*F, FAM);
      // The inliner may have put long derived blocks into the callers, so
      // the guard against the SLP vectorizer (OutlineLongBlocks.h) covers
      // them.
      noteHoldsDerivedCode(*F);
    }
    // Last, so that the inliner cannot put the runs back and each run is
    // already optimised code. At -O0 code generation is linear in block
    // length and nothing is outlined.
    SmallVector<Function *, 16> Derived(Callers.begin(), Callers.end());
    for (Function &F : M)
      if (getDerivedInfo(F) && !Callers.count(&F))
        Derived.push_back(&F);
    for (Function *F : Derived) {
      SmallVector<Function *, 8> Parts = outlineLongBlocks(*F);
      boundSchedulingWindows(*F);
      for (Function *Part : Parts)
        boundSchedulingWindows(*Part);
      if (!Parts.empty()) {
        D.verifyStage(*F);
        for (Function *Part : Parts)
          D.verifyStage(*Part);
      }
    }
  }
  return PreservedAnalyses::none();
}

/// The functions of \p M derived with kind \p K (a snapshot: stages add
/// functions while running).
static SmallVector<Function *, 8> derivedOfKind(Module &M, DerivedKind K) {
  SmallVector<Function *, 8> Out;
  for (Function &F : M)
    if (auto Info = getDerivedInfo(F); Info && Info->Kind == K)
      Out.push_back(&F);
  return Out;
}

PreservedAnalyses ADKeepMarkersApartPass::run(Module &M,
                                              ModuleAnalysisManager &) {
  keepMarkersApart(M);
  keepRuledFunctionsOutOfLine(M);
  return PreservedAnalyses::all(); // function attributes only
}

PreservedAnalyses ADLinearizePass::run(Module &M, ModuleAnalysisManager &MAM) {
  Diagnostics Diags(M.getContext());
  Differentiator D(M, MAM, Diags);
  SmallVector<CallBase *, 8> Markers = findMarkers(M);
  findActiveGlobals(M, Markers, D);
  runOnLargeStack(M.getContext(), [&] {
    for (CallBase *Marker : Markers) {
      Diags.setRequest(Marker);
      if (std::optional<Request> R = parseRequest(*Marker, Diags, D.rules())) {
        D.beginRequest();
        D.endRequest(D.getJvp(*R->Fn, R->Act, Marker) != nullptr);
      }
    }
  });
  return PreservedAnalyses::none();
}

PreservedAnalyses ADUnzipPass::run(Module &M, ModuleAnalysisManager &MAM) {
  Diagnostics Diags(M.getContext());
  Differentiator D(M, MAM, Diags);
  runOnLargeStack(M.getContext(), [&] {
    for (Function *Jvp : derivedOfKind(M, DerivedKind::Jvp)) {
      D.beginRequest();
      D.endRequest(D.getUnzipped(*Jvp).has_value());
    }
  });
  return PreservedAnalyses::none();
}

PreservedAnalyses ADTransposePass::run(Module &M, ModuleAnalysisManager &MAM) {
  Diagnostics Diags(M.getContext());
  Differentiator D(M, MAM, Diags);
  runOnLargeStack(M.getContext(), [&] {
    for (Function *Lin : derivedOfKind(M, DerivedKind::Lin)) {
      D.beginRequest();
      D.endRequest(D.getRev(*Lin) != nullptr);
    }
  });
  return PreservedAnalyses::none();
}

PreservedAnalyses ADFirstTouchPass::run(Module &M, ModuleAnalysisManager &MAM) {
  FunctionAnalysisManager &FAM =
      MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
  bool Changed = false;
  for (Function &F : M)
    if (!F.isDeclaration())
      Changed |= storeFirstTouches(F, FAM);
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

PreservedAnalyses ADVerifyPass::run(Module &M, ModuleAnalysisManager &MAM) {
  Diagnostics Diags(M.getContext());
  for (Function &F : M) {
    std::string Msg;
    if (!verifyLinearFunction(F, Msg))
      Diags.internalError(nullptr, "ad-verify: '" + F.getName() + "': " + Msg);
  }
  return PreservedAnalyses::all();
}

} // namespace ad
