//===- DisjointAccessChecks.h - loop nests versioned on disjointness -*- C++
//-*-===//
//
// RereadableLoads refuses a load whose memory a later write may modify: in
// `y[i] = sum_j A[i*n+j] * x[j]`, y may be A itself, so every A[i*n+j] is
// taped (8 bytes per element). Whether y overlaps the part of A the loop
// reads is known only at run time, and it is cheap to ask there: the loop
// nest touches ranges of addresses that ScalarEvolution can bound at its
// preheader.
//
// So, as LLVM's LoopVersioning does for vectorisation, f.jvp gets two copies
// of such a loop nest, behind a branch on a run-time check that the ranges
// the writes touch and the ranges the loads read are disjoint:
//
//   if (y + n <= A || A + n*n <= y)   the checked copy: A[i*n+j] read again
//   else                              the original: A[i*n+j] taped
//
// In the checked copy, the writes the check covers are excused for the
// loads it covers (RereadableLoads then ignores them); writes outside the
// nest count as before. Unzipping needs nothing more: the branch is a
// non-linear branch outside loops, so f.fwd keeps its condition in the
// static tape (one byte) and f.lin and f.rev follow the same copy.
//
// Granularity: a loop nest with no enclosing loop. It runs at most once per
// call of f.fwd, so one check before it covers every access it makes; a
// nest inside a loop would run again, and its next run's writes could
// overwrite what an earlier run read, which no single check before it sees.
// Only functions RereadableLoads enables (called by requests alone) get
// copies, and only when a load that linear code needs would become
// rereadable.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_UNZIP_DISJOINTACCESSCHECKS_H
#define ADPASS_UNZIP_DISJOINTACCESSCHECKS_H

#include "unzip/RereadableLoads.h"

#include "llvm/ADT/STLFunctionalExtras.h"

namespace llvm {
class BasicBlock;
class Function;
class DominatorTree;
class LoopInfo;
class ScalarEvolution;
class Value;
} // namespace llvm

namespace ad {

/// The checked copies of an f.jvp.
struct DisjointCopies {
  /// What each load of a checked copy may ignore.
  ExcusedWrites Excused;
  /// The headers of the checked copies' loops (for the remarks).
  llvm::SmallPtrSet<const llvm::BasicBlock *, 8> Headers;
};

/// Versions \p Jvp's loop nests as described above, noting the copies in
/// \p Copies. \p Reread answers which writes stop a load; \p IsLinear
/// tells linear instructions. Returns true when \p Jvp changed: its
/// analyses are then stale.
bool versionNestsOnDisjointAccesses(
    llvm::Function &Jvp, RereadableLoads &Reread,
    llvm::function_ref<bool(const llvm::Value *)> IsLinear,
    llvm::DominatorTree &DT, llvm::LoopInfo &LI, llvm::ScalarEvolution &SE,
    DisjointCopies &Copies);

} // namespace ad

#endif
