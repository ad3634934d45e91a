//===- OutlineLongBlocks.h - bounded blocks in derived code -*- C++ -*-===//
//
// LLVM's SLP vectorizer and machine scheduler take time quadratic in the
// length of a basic block. A long straight-line f gives f.fwd and f.rev
// blocks two to three times longer than its own, so those two passes alone
// made the gradient of a 30,000-statement f cost 3.6x the compile of f.
// After the derivative is optimised, the blocks of derived functions that
// are longer than a threshold are cut into runs of fixed length, and each
// run between the first (which holds the block's phis and, in the entry
// block, its allocas) and the last (which holds its terminator) is moved into
// a function of its own (CodeExtractor). A run's results that later runs use
// go back through stack slots, and its inputs are passed as arguments, so a
// cut costs about three memory operations per live value: runs are long
// (3000 instructions cost the gradient of a 10,000-statement function 13%
// of its speed, runs of 2000 19%), and addresses at constant offsets are
// recomputed in each run rather than passed.
//
//
// Outlining bounds the blocks of derived functions; it cannot bound blocks
// of the caller into which a derived function below the threshold was
// inlined. There the SLP vectorizer alone still made a 1000-statement
// gradient cost 3.4x the compile of f (its cost per instruction of derived
// code is 4 to 6 times that of the primal: long chains of consecutive tape
// stores and loads and wide cotangent sums are seeds it explores and
// rejects), for a gradient no faster than without it. So SLP is also
// skipped on a function that holds derived code (a derived function, a run
// outlined from one, or a function whose marker was lowered) and has a
// block longer than -ad-slp-block-limit instructions.
//
// A reverse pass (f.rev) is never given to SLP, whatever its length: its
// blocks are transposed expression trees, one value fanning out into
// cotangent sums, which SLP packs into pairs at the price of an insert or
// extract per scalar. The generic x86-64 cost model takes that for a gain;
// measured, it is mostly a loss: the gradient of an RK4 integrator took
// 1.3-1.4x the hand-written adjoint's time with SLP and 0.9-1.0x without,
// that of bundle adjustment 1.15-1.25x and 1.0-1.05x. The one benchmark
// that gains from SLP there, LSTM (per-gate loops of 14 lanes), runs its
// gradient about 10% slower without it. -ad-slp-on-reverse turns it back
// on.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_OUTLINELONGBLOCKS_H
#define ADPASS_OUTLINELONGBLOCKS_H

#include "llvm/ADT/SmallVector.h"

namespace llvm {
class Function;
class PassInstrumentationCallbacks;
} // namespace llvm

namespace ad {

/// Outlines runs of the blocks of \p F that are longer than the threshold
/// (-ad-outline-block-threshold). Returns the functions created.
llvm::SmallVector<llvm::Function *, 8> outlineLongBlocks(llvm::Function &F);

/// Puts a compiler barrier (a single-thread fence, which emits no code)
/// after every -ad-sched-window memory accesses in the long blocks of \p F.
/// The machine scheduler orders each memory access against the ones before
/// it since the last barrier or call, in time quadratic in their number: in
/// f.rev, whose cotangent updates are read-modify-writes through pointers
/// it cannot tell apart, a 3000-instruction outlined run took 0.3 s to
/// schedule, and 0.1 s with a barrier every 300 accesses.
void boundSchedulingWindows(llvm::Function &F);

/// Records that \p F, which is not itself derived, now holds derived code
/// (a marker in it was lowered to calls the inliner may inline).
void noteHoldsDerivedCode(llvm::Function &F);

/// Whether the SLP vectorizer is to be skipped on \p F (above).
bool skipSlpOn(const llvm::Function &F);

/// Makes the pass manager ask skipSlpOn before it runs SLP on a function.
void registerSlpGuard(llvm::PassInstrumentationCallbacks &PIC);

} // namespace ad

#endif
