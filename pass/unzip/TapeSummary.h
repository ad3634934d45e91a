//===- TapeSummary.h - what a derivative keeps on its tape ------*- C++ -*-===//
//
// Unzipping decides what f.fwd keeps for f.rev (TapePlan.cpp). This is the
// account of those decisions that a request reports as optimisation
// remarks (-Rpass=adpass, -Rpass-missed=adpass): the size of the static
// tape, the bytes each loop keeps per iteration, the tapes of callees
// pushed per call, and the loads kept rather than read again, with the
// reason. It is taken from the plan after every decision is made and
// changes none; it holds source locations and names, not IR values, since
// f.jvp's instructions move into f.fwd and f.lin afterwards.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_UNZIP_TAPESUMMARY_H
#define ADPASS_UNZIP_TAPESUMMARY_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/DebugLoc.h"
#include <cstdint>
#include <string>

namespace ad {

/// The pass name of ADPass's optimisation remarks (-Rpass=adpass).
inline constexpr const char *RemarkPassName = "adpass";

struct TapeSummary {
  /// sizeof(%f.tape): residuals computed outside loops, the tapes of the
  /// callees embedded in it, the shadows of f's local variables, the
  /// addresses of pushed callee tapes and loop arrays.
  uint64_t StaticBytes = 0;

  /// The records one loop keeps: an array element per iteration (a loop
  /// whose trip count is known as it starts) or, for other loops, a record
  /// per executed block on the runtime tape (at most one each per
  /// iteration; Bytes is their sum, rounded as the runtime rounds them).
  struct LoopRecords {
    llvm::DebugLoc Loc; ///< the loop's start; empty without -g
    uint64_t Bytes = 0;
    bool Counted = false;
    /// A copy of the loop run only when its stores and loads do not
    /// overlap (DisjointAccessChecks.h).
    bool WhenDisjoint = false;
  };
  llvm::SmallVector<LoopRecords, 2> Loops;

  /// A call whose callee's tape is pushed per call rather than embedded.
  struct PushedCallee {
    std::string Callee;
    llvm::DebugLoc Loc;
    uint64_t Bytes = 0; ///< 0: not known (a recursive call)
    bool InLoop = false;
  };
  llvm::SmallVector<PushedCallee, 2> PushedCallees;

  /// A loaded value kept on the tape although memory holds it.
  struct KeptLoad {
    llvm::DebugLoc Loc;     ///< the load
    std::string Object;     ///< what it reads ("'x'"), or empty
    std::string Reason;     ///< why it is not read again
    llvm::DebugLoc LoopLoc; ///< its loop, when kept per iteration
    bool InLoop = false;
  };
  llvm::SmallVector<KeptLoad, 4> KeptLoads;
};

} // namespace ad

#endif
