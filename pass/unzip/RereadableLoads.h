//===- RereadableLoads.h - loads f.rev may read again -----------*- C++ -*-===//
//
// A value f.jvp loads from memory is a residual when linear code needs it
// (the x[i] in d(x[i]^2) = 2 x[i] dx[i]). Taping it costs a store in f.fwd,
// a load in f.rev and the tape's memory: 8 bytes per element of an input
// array. If nothing writes that memory between the load and the moment
// f.rev runs, f.rev can load it again instead, and the tape holds at most
// the array's address.
//
// When is that so? f.rev runs right after f.fwd returns only when the
// function is called by requests alone: a callee's f.rev runs after the
// rest of its caller's f.fwd, which may write the memory. So loads of a
// function that no differentiated code calls qualify
// (Differentiator::calledOnlyByRequests), and loads of a callee through
// the pointer arguments its call site proved stable (nothing writes their
// memory after the call until the caller's f.rev reads it again:
// StableCallArgs.h, kept in the callee's Activity). A load is read again
// when
//  1. every object it may read from is memory that outlives f.fwd and is
//     the same on every iteration: a pointer argument of f (not byval: that
//     copy lives in f's frame) or a global variable; in a callee, only
//     the stable arguments (its caller's later code may write the rest and
//     any global);
//  2. no instruction of f.jvp that may write memory and may run after the
//     load (isPotentiallyReachable, which knows loops: a store later in the
//     loop body runs after the load of the next iteration) may modify any
//     of those objects, as a whole, by LLVM's alias analysis (BasicAA and
//     TBAA). Whole objects, not the accessed cells: an alias query speaks of
//     one moment, and a store of x[i + 1] does not alias the load of x[i]
//     in the same iteration but overwrites it in the next.
// Allocations (malloc, calloc, operator new) do not count either: they
// write only the fresh block they return and the allocator's state.
// Deallocations do (freeing a parameter's memory ends it).
// Linear instructions (tangent and shadow writes) do not count: shadow
// memory never aliases primal memory (the contract: a shadow is a
// separate buffer). Nor do non-linear writes whose every object is a
// shadow parameter, for the same reason. Nor, for one load, the writes a
// run-time check excuses: the load and they sit in a copy of a loop nest
// that runs only when the ranges they access are disjoint
// (DisjointAccessChecks.h).
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_UNZIP_REREADABLELOADS_H
#define ADPASS_UNZIP_REREADABLELOADS_H

#include "ir/FunctionAliasAnalysis.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/AliasAnalysis.h"
#include <memory>
#include <optional>
#include <string>

namespace llvm {
class AssumptionCache;
class DominatorTree;
class LoopInfo;
class TargetLibraryInfo;
} // namespace llvm

namespace ad {

/// Per load, the writes a run-time check found disjoint from every cell it
/// reads.
using ExcusedWrites =
    llvm::DenseMap<const llvm::Instruction *,
                   llvm::SmallPtrSet<const llvm::Instruction *, 4>>;

class RereadableLoads {
public:
  /// For f.jvp \p Jvp, whose first \p NumPrimalArgs parameters are f's;
  /// \p Enabled when f is called by requests alone or \p StableArgs (of a
  /// callee) is not empty (otherwise nothing is rereadable). \p IsLinear
  /// tells f.jvp's linear instructions.
  RereadableLoads(llvm::Function &Jvp, unsigned NumPrimalArgs, bool Enabled,
                  llvm::SmallBitVector StableArgs,
                  llvm::function_ref<bool(const llvm::Value *)> IsLinear,
                  llvm::DominatorTree &DT, llvm::LoopInfo &LI,
                  llvm::AssumptionCache &AC, llvm::TargetLibraryInfo &TLI,
                  const ExcusedWrites *Excused = nullptr);
  ~RereadableLoads();

  bool enabled() const { return Enabled; }
  /// Whether f is a callee whose call site proved some arguments stable
  /// (rather than a function called by requests alone).
  bool inCallee() const { return StableArgs.any(); }

  /// Whether f.lin and f.rev may load \p I's value again (\p I is a load).
  bool canReread(const llvm::Instruction &I);

  /// Why canReread(\p I) said no, in words: the object the load reads
  /// ("'x'", empty if unknown) and the reason ("the store at line 14 may
  /// overwrite it"). Reason is empty when it said yes or was not asked.
  struct Refusal {
    std::string Object;
    std::string Reason;
  };
  Refusal whyNot(const llvm::Instruction &I) const;

  /// When only writes stop \p L from being read again (its objects are
  /// stable), those writes: each may run after \p L and may modify one of
  /// its objects. None when something else stops it, or nothing does.
  std::optional<llvm::SmallVector<const llvm::Instruction *, 4>>
  overwriters(const llvm::LoadInst &L);

  /// Whether the memory \p Ptr may point into is still as it was at \p At
  /// when f.rev runs: the same conditions as for a load, asked at \p At (a
  /// call that reads through \p Ptr) and ignoring the writes \p Ignore
  /// accepts (calls known to write only memory of their own). None when it
  /// is; otherwise why not, as whyNot() words it.
  std::optional<Refusal>
  whyChangedAfter(const llvm::Value *Ptr, const llvm::Instruction &At,
                  llvm::function_ref<bool(const llvm::Instruction &)> Ignore);

  /// Whether the memory argument \p ArgNo of \p Call (of a callee with
  /// \p NumArgs parameters) may point into is still as it was at \p Call
  /// when f.rev runs, and apart from the memory the callee writes through
  /// its other arguments: whyChangedAfter, the call itself, when it may run
  /// again (in a loop), must not write it, and whyNotDisjoint. The callee
  /// then counts none of its writes through its other parameters as
  /// writes of that argument's memory.
  std::optional<Refusal> whyChangedAfterCall(const llvm::CallBase &Call,
                                             unsigned ArgNo, unsigned NumArgs);

private:
  /// Why argument \p ArgNo of \p Call may point into memory the callee
  /// writes through another of its first \p NumArgs arguments (all of
  /// them, when CallWrites cannot tell which): none when, by alias
  /// analysis, it cannot.
  std::optional<Refusal> whyNotDisjoint(const llvm::CallBase &Call,
                                        unsigned ArgNo, unsigned NumArgs);
  /// Whether \p Obj, an underlying object, outlives f.fwd unchanged in
  /// identity: an argument of f (not byval) or a global variable.
  bool isStableObject(const llvm::Value *Obj) const;
  /// The writes of f.jvp that may modify \p Obj as a whole (cached).
  const llvm::SmallVector<const llvm::Instruction *, 4> &
  writersOf(const llvm::Value *Obj);

  llvm::Function &Jvp;
  unsigned NumPrimalArgs;
  bool Enabled;
  llvm::SmallBitVector StableArgs;
  llvm::DominatorTree &DT;
  llvm::LoopInfo &LI;
  llvm::TargetLibraryInfo &TLI;
  std::unique_ptr<FunctionAliasAnalysis> Alias;
  llvm::AAResults *AA = nullptr; ///< Alias->AA, once enabled.
  /// The non-linear instructions that may write primal memory.
  llvm::SmallVector<const llvm::Instruction *, 16> Writes;
  llvm::DenseMap<const llvm::Value *,
                 llvm::SmallVector<const llvm::Instruction *, 4>>
      Writers;
  llvm::DenseMap<const llvm::Instruction *, bool> Answers;
  /// For the loads answered no: the object that stopped it and, when a
  /// write did, that write (only recorded, for the remarks).
  struct Blocker {
    enum Kind { NotSimple, NotStable, TooManyWriters, Overwritten } K;
    const llvm::Value *Obj = nullptr;
    const llvm::Instruction *Writer = nullptr;
  };
  llvm::DenseMap<const llvm::Instruction *, Blocker> Blockers;
  /// What stops \p L being read again (none: nothing), collecting into
  /// \p Overwriting, when given, every write that may overwrite it rather
  /// than stopping at the first.
  std::optional<Blocker>
  blockerOf(const llvm::LoadInst &L,
            llvm::SmallVectorImpl<const llvm::Instruction *> *Overwriting);
  const ExcusedWrites *Excused;
  /// \p Obj as the user wrote it: 'x', 'g', "parameter 2"; "" if unknown.
  std::string describeObject(const llvm::Value *Obj) const;
  mutable std::optional<llvm::SmallVector<std::string, 8>> ParamNames;
};

} // namespace ad

#endif
