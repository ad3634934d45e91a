//===- TapeRemarks.cpp - what a gradient keeps, as remarks ----------------===//
#include "driver/TapeRemarks.h"
#include "driver/DerivedFunctions.h"

#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/IR/DiagnosticInfo.h"

using namespace llvm;

namespace ad {

/// "line 12", or \p Otherwise without a line (no -g, no -Rpass).
static std::string lineOf(const DebugLoc &Loc, StringRef Otherwise) {
  if (Loc && Loc.getLine())
    return "line " + std::to_string(Loc.getLine());
  return Otherwise.str();
}

/// The static tape, and each loop's bytes per iteration.
static void remarkSizes(OptimizationRemarkEmitter &ORE, const Request &R,
                        StringRef Name, const TapeSummary &S) {
  ORE.emit([&] {
    return OptimizationRemark(RemarkPassName, "TapePerCall", R.Marker)
           << "gradient of '" << Name << "' keeps "
           << ore::NV("BytesPerCall", S.StaticBytes)
           << " bytes per call on its tape (values computed outside loops, "
              "the tapes of the calls embedded in it, the derivatives of "
              "its local variables; not counted: what its loops keep per "
              "iteration and the tapes of calls pushed at run time, "
              "reported apart)";
  });
  for (const TapeSummary::LoopRecords &L : S.Loops)
    ORE.emit([&] {
      OptimizationRemark Rem(RemarkPassName, "TapePerIteration", R.Marker);
      Rem << "gradient of '" << Name << "': the loop at ";
      if (L.Loc && L.Loc.getLine())
        Rem << "line " << ore::NV("LoopLine", L.Loc.getLine());
      else
        Rem << "an unknown line (compile with -g)";
      if (L.WhenDisjoint)
        Rem << ", in the copy run when its stores and loads do not overlap,";
      Rem << " keeps ";
      if (!L.Counted && L.Bytes)
        Rem << "up to ";
      Rem << ore::NV("BytesPerIteration", L.Bytes) << " bytes per iteration";
      if (L.Bytes)
        Rem << (L.Counted ? " (an array of one record per iteration, "
                            "allocated as the loop starts)"
                          : " (a record per executed block, pushed on the "
                            "runtime tape)");
      return Rem;
    });
  for (const TapeSummary::PushedCallee &C : S.PushedCallees)
    ORE.emit([&] {
      OptimizationRemark Rem(RemarkPassName, "TapePushedPerCall", R.Marker);
      Rem << "gradient of '" << Name << "': each call of '" << C.Callee
          << "' at " << lineOf(C.Loc, "an unknown line") << " pushes its tape";
      if (C.Bytes)
        Rem << " of " << ore::NV("Bytes", C.Bytes) << " bytes";
      return Rem << " on the runtime tape"
                 << (C.InLoop ? ", per iteration" : "")
                 << " (not counted in the bytes per call; what its own "
                    "loops keep comes on top)";
    });
}

/// The loads kept rather than read again, with the reason.
static void remarkKeptLoads(OptimizationRemarkEmitter &ORE, const Request &R,
                            StringRef Name, const TapeSummary &S) {
  for (const TapeSummary::KeptLoad &K : S.KeptLoads)
    ORE.emit([&] {
      OptimizationRemarkMissed Rem(RemarkPassName, "LoadKept", R.Marker);
      Rem << "gradient of '" << Name << "': the value loaded";
      if (!K.Object.empty())
        Rem << " from " << ore::NV("Object", K.Object);
      Rem << " at " << lineOf(K.Loc, "an unknown line") << " is kept";
      if (K.InLoop)
        Rem << " per iteration of the loop at "
            << lineOf(K.LoopLoc, "an unknown line");
      return Rem << ": " << ore::NV("Reason", K.Reason);
    });
}

void remarkTape(const Request &R, const Unzipped &U, Differentiator &D) {
  const TapeSummary *S = D.tapeSummary(*U.Fwd);
  if (!S || !D.firstRemarksAt(*U.Fwd, R.Marker->getDebugLoc()))
    return;
  OptimizationRemarkEmitter ORE(R.Marker->getFunction());
  std::string Name = displayName(*R.Fn);
  remarkSizes(ORE, R, Name, *S);
  remarkKeptLoads(ORE, R, Name, *S);
}

} // namespace ad
