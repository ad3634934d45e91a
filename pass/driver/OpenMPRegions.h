//===- OpenMPRegions.h - derived OpenMP parallel regions --------*- C++ -*-===//
//
// clang outlines `#pragma omp parallel for` into a function that
// `__kmpc_fork_call(loc, n, outlined, args...)` runs on a team of threads.
// The stages see the fork as a call of the outlined function with null
// thread ids (LinearizeOpenMP.cpp); once they are done, each call of a
// derived function of an outlined region becomes a fork again:
//  * f.jvp forks outlined.jvp with the shadows appended;
//  * f.fwd forks outlined.fwd through a wrapper that gives each thread a
//    static tape and a runtime tape of its own, kept by (region instance,
//    OpenMP thread number) in a region object the caller's tape holds;
//  * f.rev forks outlined.rev on a team of the same size, through a wrapper
//    that installs the same thread's tapes, so each thread replays exactly
//    the chunks it ran, with no scheduling calls.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_OPENMPREGIONS_H
#define ADPASS_OPENMPREGIONS_H

#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Module.h"

namespace ad {

class Diagnostics;

/// A function of the OpenMP runtime (`__kmpc_*`, `omp_*`), declared only.
bool isOpenMPRuntimeFunction(const llvm::Function &F);
bool isOpenMPFork(const llvm::Function &F);
/// The outlined body a fork runs: `__kmpc_fork_call(loc, n, region,
/// shared...)` calls `region(gtid, btid, shared...)`. Null when it is not a
/// function of the module's.
llvm::Function *forkedRegion(const llvm::CallBase &Fork);
/// The start of a worksharing loop (static or dynamic schedule).
bool isWorksharingLoopStart(const llvm::Function &F);
/// A runtime call a differentiated region may make: loop scheduling, the
/// `reduction(+:...)` protocol, and queries of the thread number.
bool isSupportedInRegion(const llvm::Function &F);
/// The OpenMP construct a runtime call implements, for messages.
std::string describeOpenMPCall(const llvm::Function &F);

/// Marks \p Region as the outlined body of a parallel region forked with
/// the source location \p Loc.
void noteParallelRegion(llvm::Function &Region, llvm::Value &Loc);
bool isParallelRegion(const llvm::Function &F);
/// Marks \p F as called by a parallel region's body: its reverse pass adds
/// into shadow memory atomically, as the body's does.
void noteRunsInParallelRegion(llvm::Function &F);
/// A region's body, or a function it calls.
bool runsInParallelRegion(const llvm::Function &F);

/// f.fwd, f.lin or f.rev of a region's body: code that uses the region's
/// per-thread tapes, which a derivative of it would share between threads.
bool isRegionTapeCode(const llvm::Function &F);

/// Turns the calls of derived functions of parallel regions that the
/// stages left in derived code into forks (see above).
void forkParallelRegions(llvm::Module &M, Diagnostics &Diags);

} // namespace ad

#endif
