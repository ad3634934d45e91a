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
//===----------------------------------------------------------------------===//
#ifndef ADPASS_OUTLINELONGBLOCKS_H
#define ADPASS_OUTLINELONGBLOCKS_H

#include "llvm/ADT/SmallVector.h"

namespace llvm {
class Function;
}

namespace ad {

/// Outlines runs of the blocks of \p F that are longer than the threshold
/// (-ad-outline-block-threshold). Returns the functions created.
llvm::SmallVector<llvm::Function *, 8> outlineLongBlocks(llvm::Function &F);

} // namespace ad

#endif
