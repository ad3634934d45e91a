//===- ForwardLoads.h - loads of values a block already has -----*- C++ -*-===//
//
// A load of a memory cell that the same block has just stored to or loaded
// from, with nothing in between that may have written the cell, is the
// value it would read: the load is replaced by that value.
//
// For differentiation every such load is costly three times over: f.jvp
// reads its tangent from shadow memory, the loaded value is a residual the
// tape keeps, and f.rev adds its cotangent back into shadow memory. At -O0
// clang reloads every variable at each use, and the straight-line code of
// generated programs (v[k] = v[i] + v[j] * v[l], thousands of times) reads
// back what it has just written. GVN and EarlyCSE with MemorySSA find
// these loads too, but a long block makes them ask alias analysis about
// every store in between (0.9 s for a 30,000-statement block, longer than
// everything they save); at -O1 and above GVN stops scanning after 100
// instructions.
//
// This pass needs no alias analysis. It tells cells apart only where that
// is certain: two accesses at constant offsets from the same base pointer
// (the rule LLVM's FindAvailableLoadedValue uses without alias analysis),
// or from two distinct identified objects (locals, globals). One walk per
// block, which starts from what the block laid out before it knew when
// that block is its only predecessor; anything else that may write memory
// forgets everything, but for the calls of math functions, which write only
// errno.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_FORWARDLOADS_H
#define ADPASS_FORWARDLOADS_H

namespace llvm {
class Function;
class TargetLibraryInfo;
} // namespace llvm

namespace ad {

/// Replaces the loads of floating-point data in \p F whose value the same
/// block already stored or loaded (above). Returns whether any was.
bool forwardLoadsInBlocks(llvm::Function &F,
                          const llvm::TargetLibraryInfo &TLI);

} // namespace ad

#endif
