//===- OpenMPRegionSource.h - the copy of a parallel region -----*- C++ -*-===//
//
// What the copy of an OpenMP region's body that is differentiated may
// assume of the runtime.
//
// A `reduction(+:s)` ends with `__kmpc_reduce_nowait`, whose result picks
// the combine: 1, under a lock (or in the runtime's tree, through the
// reduction function); 2, by atomic adds. In the copy that is
// differentiated, the choice is 2, always: the combine is then
// `atomicrmw fadd s, private` in the region's own code, whose tangent is an
// atomic add into the shadow of s and whose transpose reads it, and no
// reduction function runs behind the derivative's back. The user's
// function keeps the runtime's choice.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_OPENMPREGIONSOURCE_H
#define ADPASS_OPENMPREGIONSOURCE_H

#include "llvm/IR/Function.h"

namespace llvm {
class TargetLibraryInfo;
}

namespace ad {

class Diagnostics;

/// Makes every `__kmpc_reduce_nowait` of \p F choose the atomic combine.
/// False after reporting a reduction that has none.
bool combineReductionsAtomically(llvm::Function &F, Diagnostics &Diags);

/// An `if` clause that is false runs the region's body on the calling
/// thread, between `__kmpc_serialized_parallel` and its end, by a direct
/// call. In the copy, that becomes a fork on a team of one thread, so that
/// the derived code has one form of region. False after reporting one
/// in another form.
bool forkSerializedRegions(llvm::Function &F, Diagnostics &Diags);

/// The loop scheduling calls write the bounds of a thread's chunk through
/// their pointer arguments and keep none of them: marked so, a bound the
/// loop reads again after each call that may write memory (`sin`, which
/// may set errno) is forwarded from the scheduling call's result, and the
/// loop's trip count is known as it starts.
void markSchedulingOutParameters(llvm::Function &F);

/// A region reaches its shared variables through pointers, which it reads
/// again after every call that may write memory. Math calls (`sin`) write
/// at most errno, which the derived code does not promise to set (the
/// design's rule for recomputed math calls): in the copy of a region's
/// body they are marked as writing nothing, so that the loop reads the
/// shared pointer once and the reverse pass recomputes addresses from it
/// instead of keeping them per iteration.
void markMathCallsPure(llvm::Function &F, const llvm::TargetLibraryInfo &TLI);

} // namespace ad

#endif
