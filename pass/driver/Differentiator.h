//===- Differentiator.h - derived functions on demand, once each -*- C++
//-*-===//
//
// The stages call each other through this class: Linearize needs g.jvp for a
// call of g, Unzip needs g.fwd/g.lin for a call of g.jvp, Transpose needs
// g.rev for a call of g.lin. Each derived function is built once per
// (function, activity) and found again by name, which keeps code size linear
// in program size (YOLO Thm 8.1) and makes repeated requests free.
//
// A request either succeeds or leaves the module as it was: functions
// created for a failed request are erased.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_DIFFERENTIATOR_H
#define ADPASS_DIFFERENTIATOR_H

#include "driver/CustomRules.h"
#include "driver/Diagnostics.h"
#include "prepare/Activity.h"
#include "prepare/GlobalShadows.h"
#include "unzip/TapeSummary.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/IR/DebugLoc.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include <optional>
#include <tuple>

namespace llvm {
class TargetLibraryInfo;
}

namespace ad {

struct Unzipped {
  llvm::Function *Fwd = nullptr;    ///< f.fwd(x..., ptr tape) -> y
  llvm::Function *Lin = nullptr;    ///< f.lin(ptr tape, dx...) -> dy
  llvm::StructType *Tape = nullptr; ///< %f.tape
};

class Differentiator {
public:
  /// \p OptimizeSources: the module is compiled with optimisation, so the
  /// prepared copies of differentiated functions are optimised a little
  /// further first (PrepareSource.h).
  Differentiator(llvm::Module &M, llvm::ModuleAnalysisManager &MAM,
                 Diagnostics &Diags, bool OptimizeSources = false);
  ~Differentiator() { deleteDetached(); }
  Differentiator(const Differentiator &) = delete;
  Differentiator &operator=(const Differentiator &) = delete;

  /// f.jvp for (\p F, \p A); \p CallSite is where it is needed (for
  /// errors). Null after an error was reported.
  llvm::Function *getJvp(llvm::Function &F, const Activity &A,
                         const llvm::Instruction *CallSite);
  /// f.fwd, f.lin and %f.tape, from unzipping \p Jvp.
  std::optional<Unzipped> getUnzipped(llvm::Function &Jvp);
  /// f.rev, from transposing \p Lin.
  llvm::Function *getRev(llvm::Function &Lin);

  /// All three stages: the functions a gradient request calls.
  std::optional<std::pair<Unzipped, llvm::Function *>>
  getGradient(llvm::Function &F, const Activity &A,
              const llvm::Instruction *CallSite);

  /// Start / end of a request: on failure everything created since
  /// beginRequest() is erased.
  void beginRequest();
  void endRequest(bool Succeeded);
  /// Erases the functions generated after the first \p Mark (a count of
  /// generated()): what a derivative given up on left behind.
  void discardGeneratedSince(size_t Mark);
  /// Functions generated so far (for cleanup passes).
  llvm::ArrayRef<llvm::Function *> generated() const { return Generated; }
  void noteGenerated(llvm::Function *F);

  /// Set when nothing but unzipping will read a JVP's body (no forward-mode
  /// request in the module, not a stage pass): unzipping then moves f.jvp's
  /// body into f.fwd instead of copying it, and leaves f.jvp a declaration
  /// that only names the (function, activity) pair.
  void setJvpsDisposable(bool B) { JvpsDisposable = B; }
  bool jvpsDisposable() const { return JvpsDisposable; }
  /// Cleared when no request of the module differentiates another's
  /// derived code (no nested requests): derived code may then call
  /// runtime functions that have no derivative rule (__ad_alloc for the
  /// copies unzip/LoadSnapshots.cpp makes). Set until the driver knows.
  void setDerivedCodeDifferentiated(bool B) { DerivedCodeDifferentiated = B; }
  bool derivedCodeDifferentiated() const { return DerivedCodeDifferentiated; }
  /// The requested functions that no differentiated code calls: their
  /// f.rev runs right after their f.fwd, so memory f.fwd read and did not
  /// write is still there for f.rev to read (RereadableLoads.h).
  void setCalledOnlyByRequests(llvm::SmallPtrSet<const llvm::Function *, 8> S) {
    CalledOnlyByRequests = std::move(S);
  }
  bool calledOnlyByRequests(const llvm::Function &F) const {
    return CalledOnlyByRequests.contains(&F);
  }
  /// What f.fwd (\p Fwd) keeps on its tape, as unzipping planned it, for
  /// the request's remarks; null for an f.fwd this run did not build.
  void setTapeSummary(const llvm::Function &Fwd, TapeSummary S) {
    TapeSummaries[&Fwd] = std::move(S);
  }
  const TapeSummary *tapeSummary(const llvm::Function &Fwd) const {
    auto It = TapeSummaries.find(&Fwd);
    return It == TapeSummaries.end() ? nullptr : &It->second;
  }
  /// True the first time remarks about \p Fwd are wanted at the source
  /// position of \p Loc. After inlining, one request in the source may be
  /// several markers in the module, all lowered to the same derivative; the
  /// user reads its remarks once.
  bool firstRemarksAt(const llvm::Function &Fwd, const llvm::DebugLoc &Loc);
  /// Counts the possible targets of calls through function pointers being
  /// differentiated (Linearize.cpp, tryTargetJvp): code reached from one
  /// that cannot be differentiated becomes a run-time error there.
  unsigned &speculationDepth() { return SpeculationDepth; }
  /// Drops cached analyses of \p F (its body changed hands).
  void forgetAnalyses(llvm::Function &F);

  Diagnostics &diags() { return Diags; }
  const CustomRules &rules() const { return Rules; }
  /// Globals the derived code writes and their shadows (GlobalShadows.h).
  GlobalShadows &globals() { return Globals; }
  /// A prepared copy of \p F's body (PrepareSource.h), or null after
  /// reporting; erase it with erase().
  llvm::Function *prepare(llvm::Function &F);
  void erase(llvm::Function &F);
  /// Takes \p I, which nothing uses any more, out of its function now and
  /// deletes it when the request ends. Unzipping drops f.fwd's linear half
  /// (half of f.jvp) just before transposition builds f.rev, which is about
  /// as large: freed at once, that memory would be reused, and f.rev's
  /// instructions would lie scattered over it. Walking a block then misses
  /// the cache at every instruction; the code generation of a 30,000-
  /// statement f.rev at -O0 took 1.3x as long.
  void eraseAfterRequest(llvm::Instruction &I);
  llvm::Module &module() { return M; }
  llvm::TargetLibraryInfo &tli(llvm::Function &F);
  /// Folds the identities construction leaves behind (-0.0 + x, x * 1).
  void simplify(llvm::Function &F);
  /// With -ad-verify-each only: the linearity verifier on a function a
  /// stage built, then verifyStage().
  bool verifyLinearity(llvm::Function &F);
  /// LLVM's verifier on a function a stage built, with -ad-verify-each
  /// only: verifyEmitted() checks what leaves the pass.
  bool verifyStage(llvm::Function &F);
  /// LLVM's verifier on the functions whose markers were replaced and on
  /// every derived function left in the module: invalid IR must never reach
  /// the optimizer or code generation.
  bool verifyEmitted(llvm::ArrayRef<llvm::Function *> Callers);

private:
  llvm::Module &M;
  llvm::FunctionAnalysisManager &FAM;
  Diagnostics &Diags;
  bool OptimizeSources;
  bool JvpsDisposable = false;
  bool DerivedCodeDifferentiated = true;
  llvm::SmallPtrSet<const llvm::Function *, 8> CalledOnlyByRequests;
  llvm::DenseMap<const llvm::Function *, TapeSummary> TapeSummaries;
  llvm::DenseSet<std::tuple<const llvm::Function *, const llvm::MDNode *,
                            unsigned, unsigned>>
      Remarked;
  CustomRules Rules;
  GlobalShadows Globals;
  std::vector<llvm::Function *> Generated;
  /// Detached instructions waiting for the end of the request.
  std::vector<llvm::Instruction *> Detached;
  void deleteDetached();
  unsigned SpeculationDepth = 0;
  size_t RequestStart = 0;
};

} // namespace ad

#endif
