//===- SelectedLoadRecurrences.h - a running max after its loop -*- C++ -*-===//
//
// A loop that keeps the largest element so far, m = x[i] > m ? x[i] : m,
// chooses in every iteration between what it loaded and what it had, and
// its tangent chooses the same way. Differentiated as written, f.lin needs
// every iteration's choice: one byte per iteration on the tape, and a
// reverse loop that replays them. Yet the value such a loop ends with is a
// single loaded value, the last one chosen, or the initial value if none
// was; and when nothing in the loop writes memory, that value is still at
// the address it was loaded from when the loop exits.
//
// So the prepared copy carries, next to such a recurrence, the address of
// the value it holds (null while it holds the initial value), and after
// the loop reads the result again from that address. The recurrence then
// only feeds comparisons, its tangent is dead code (DeadTangents.h), and
// the tape keeps one address per run of the loop instead of one choice per
// iteration. The derivative goes to the same element as before: the one
// the loop ended with.
//
// A recurrence qualifies when it is a floating-point phi of a loop header
// whose value, along the loop, passes only through selects, phis, fmax and
// fmin of the loop whose other operands are loads in the loop (fmax takes
// the address of its first operand when the result equals it, as its JVP
// rule takes that operand's tangent), or one value computed from a single
// load and values from outside the loop (|x[i]|, computed again from the
// element after the loop); nothing in the loop may write what the leaves
// load (alias analysis; math calls may set errno); inside the loop it is
// only compared; and the loop has one exit block. Anything else is left as
// written.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_SELECTEDLOADRECURRENCES_H
#define ADPASS_SELECTEDLOADRECURRENCES_H

namespace llvm {
class AssumptionCache;
class Function;
class TargetLibraryInfo;
} // namespace llvm

namespace ad {

/// Rewrites the uses after their loop of the recurrences above in \p F;
/// returns whether it changed \p F.
bool reloadSelectedLoadRecurrences(llvm::Function &F,
                                   const llvm::TargetLibraryInfo &TLI,
                                   llvm::AssumptionCache &AC);

} // namespace ad

#endif
