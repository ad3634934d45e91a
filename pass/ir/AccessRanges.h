//===- AccessRanges.h - the bytes a loop nest's access touches --*- C++ -*-===//
//
// Run-time checks that two accesses of a loop nest never meet compare the
// ranges of addresses each touches over the whole nest, bounded by
// ScalarEvolution at the nest's preheader (DisjointAccessChecks,
// LoadSnapshots, FirstTouchStores).
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_IR_ACCESSRANGES_H
#define ADPASS_IR_ACCESSRANGES_H

#include <optional>
#include <utility>

namespace llvm {
class DominatorTree;
class Instruction;
class Loop;
class LoopInfo;
class SCEV;
class ScalarEvolution;
} // namespace llvm

namespace ad {

/// The bytes \p Access (a load or a store in \p Nest) may touch while
/// \p Nest runs, [first, second), as expressions of values computed
/// before it: its address must be invariant in the nest or affine in the
/// counters of loops around it with exact trip counts, and must not wrap.
std::optional<std::pair<const llvm::SCEV *, const llvm::SCEV *>>
accessRangeOver(const llvm::Instruction &Access, const llvm::Loop &Nest,
                llvm::ScalarEvolution &SE, const llvm::DominatorTree &DT,
                const llvm::LoopInfo &LI);

} // namespace ad

#endif
