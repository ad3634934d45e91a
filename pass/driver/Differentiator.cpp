//===- Differentiator.cpp - derived functions on demand, once each --------===//
#include "driver/Differentiator.h"
#include "driver/DerivedFunctions.h"
#include "ir/LinearityVerifier.h"
#include "linearize/Linearize.h"
#include "prepare/PrepareSource.h"
#include "transpose/Transpose.h"
#include "unzip/Checkpoint.h"
#include "unzip/Unzip.h"

#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/TimeProfiler.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Scalar/InstSimplifyPass.h"

using namespace llvm;

// LLVM's verifier costs about as much as building a derived function (a
// 30,000-statement f at -O0: ~7% of the compile for four runs). Everything
// the pass emits is verified once, at the end of marker lowering; this adds
// a run after each stage, which names the stage that broke the IR, and
// checks the linearity of what the stages build. The tests turn it on.
static cl::opt<bool> VerifyEachStage(
    "ad-verify-each", cl::init(false), cl::Hidden,
    cl::desc("Run LLVM's verifier on every intermediate derived function "
             "(f.jvp, f.fwd, f.lin, f.rev) as soon as it is built, and the "
             "linearity verifier on f.jvp, f.fwd and f.lin"));

namespace ad {

Differentiator::Differentiator(Module &M, ModuleAnalysisManager &MAM,
                               Diagnostics &Diags, bool OptimizeSources)
    : M(M),
      FAM(MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager()),
      Diags(Diags), OptimizeSources(OptimizeSources), Rules(M) {}

Function *Differentiator::prepare(Function &F) {
  TimeTraceScope Scope("ADPass prepare source", F.getName());
  return prepareSource(F, FAM, Diags, OptimizeSources);
}

void Differentiator::forgetAnalyses(Function &F) { FAM.clear(F, F.getName()); }

bool Differentiator::firstRemarksAt(const Function &Fwd, const DebugLoc &Loc) {
  // The position without the inlining chain: every inlined copy of a
  // request has the scope, line and column of the original.
  const MDNode *Scope = Loc ? Loc->getScope() : nullptr;
  unsigned Line = Loc ? Loc.getLine() : 0, Col = Loc ? Loc.getCol() : 0;
  return Remarked.insert({&Fwd, Scope, Line, Col}).second;
}

void Differentiator::erase(Function &F) {
  forgetAnalyses(F);
  TapeSummaries.erase(&F);
  F.eraseFromParent();
}

TargetLibraryInfo &Differentiator::tli(Function &F) {
  return FAM.getResult<TargetLibraryAnalysis>(F);
}

void Differentiator::simplify(Function &F) {
  InstSimplifyPass().run(F, FAM);
  FAM.clear(F, F.getName());
}

void Differentiator::noteGenerated(Function *F) { Generated.push_back(F); }

void Differentiator::eraseAfterRequest(Instruction &I) {
  I.dropAllReferences();
  I.removeFromParent();
  Detached.push_back(&I);
}

void Differentiator::deleteDetached() {
  for (Instruction *I : Detached)
    I->deleteValue();
  Detached.clear();
}

void Differentiator::beginRequest() { RequestStart = Generated.size(); }

void Differentiator::endRequest(bool Succeeded) {
  deleteDetached();
  if (Succeeded) {
    RequestStart = Generated.size();
    return;
  }
  discardGeneratedSince(RequestStart);
}

void Differentiator::discardGeneratedSince(size_t Mark) {
  // References may run in any direction between the new functions.
  for (size_t I = Mark; I < Generated.size(); ++I)
    Generated[I]->dropAllReferences();
  for (size_t I = Mark; I < Generated.size(); ++I) {
    FAM.clear(*Generated[I], Generated[I]->getName());
    TapeSummaries.erase(Generated[I]);
    Generated[I]->eraseFromParent();
  }
  Generated.resize(Mark);
}

/// A generated function that LLVM's verifier rejects must never reach code
/// generation; report it as our bug instead.
static bool checkValidIR(Function &F, Diagnostics &Diags) {
  TimeTraceScope Scope("ADPass verify", F.getName());
  std::string Msg;
  raw_string_ostream OS(Msg);
  if (!verifyFunction(F, &OS))
    return true;
  Diags.internalError(nullptr, "generated invalid IR in '" + F.getName() +
                                   "': " + OS.str());
  return false;
}

bool Differentiator::verifyLinearity(Function &F) {
  // The linearity invariants check the stages themselves, as LLVM's
  // verifier after each pass does LLVM's: a walk over f.jvp, f.fwd and
  // f.lin, ~4% of a -O0 compile of a long function (0.2 s of 5). The tests
  // turn them on. A custom JVP, which the user writes, is always checked
  // (CustomRules).
  if (!VerifyEachStage)
    return true;
  std::string Msg;
  TimeTraceScope Scope("ADPass verify linearity", F.getName());
  if (!verifyLinearFunction(F, Msg)) {
    Diags.internalError(nullptr, "linearity invariant broken in '" +
                                     F.getName() + "': " + Msg);
    return false;
  }
  return verifyStage(F);
}

bool Differentiator::verifyStage(Function &F) {
  return !VerifyEachStage || checkValidIR(F, Diags);
}

Function *Differentiator::getJvp(Function &F, const Activity &A,
                                 const Instruction *CallSite) {
  // Checked first: the JVP being built already exists under its name.
  // A recursive call finds the JVP being built: its signature is final.
  if (Function *Existing = findDerived(M, F, DerivedKind::Jvp, A))
    return Existing;
  if (A.checkpoint())
    return buildCheckpointJvp(F, A, *this, CallSite);
  if (Function *UserJvp = Rules.customJvp(F)) {
    return buildCustomJvp(F, A, *UserJvp, *this, CallSite);
  }
  if (F.isDeclaration()) {
    Diags.errorAt(*CallSite, "cannot differentiate '" + displayName(F) +
                                 "': its body is not visible in this "
                                 "translation unit");
    return nullptr;
  }
  Function *Src = prepare(F);
  if (!Src)
    return nullptr;
  Function *Jvp;
  {
    TimeTraceScope Scope("ADPass linearize", F.getName());
    Jvp = linearize(*Src, F, A, *this);
  }
  erase(*Src);
  if (!Jvp) {
    // Linearize erased nothing; the half-built function goes now.
    if (Function *Partial = findDerived(M, F, DerivedKind::Jvp, A)) {
      Partial->dropAllReferences();
      Partial->eraseFromParent();
    }
    return nullptr;
  }
  noteGenerated(Jvp);
  if (!verifyLinearity(*Jvp))
    return nullptr;
  return Jvp;
}

std::optional<Unzipped> Differentiator::getUnzipped(Function &Jvp) {
  TimeTraceScope Scope("ADPass unzip", Jvp.getName());
  return unzip(Jvp, *this);
}

Function *Differentiator::getRev(Function &Lin) {
  TimeTraceScope Scope("ADPass transpose", Lin.getName());
  return transpose(Lin, *this);
}

bool Differentiator::verifyEmitted(ArrayRef<Function *> Callers) {
  bool Ok = true;
  for (Function *F : Callers)
    Ok &= checkValidIR(*F, Diags);
  for (Function &F : M)
    if (!F.isDeclaration() && getDerivedInfo(F))
      Ok &= checkValidIR(F, Diags);
  return Ok;
}

std::optional<std::pair<Unzipped, Function *>>
Differentiator::getGradient(Function &F, const Activity &A,
                            const Instruction *CallSite) {
  Function *Jvp = getJvp(F, A, CallSite);
  if (!Jvp)
    return std::nullopt;
  std::optional<Unzipped> U = getUnzipped(*Jvp);
  if (!U)
    return std::nullopt;
  Function *Rev = getRev(*U->Lin);
  if (!Rev)
    return std::nullopt;
  return std::make_pair(*U, Rev);
}

} // namespace ad
