//===- FirstTouchStores.h - first touches of zeroed cells -*- C++ -*-===//
//
// A gradient adds into the shadows its caller passes (`+=`), so the usual
// call zeroes them first:
//
//   memset(dx, 0, n * sizeof(double));
//   __ad_gradient(f, x, dx, n);
//
// Once f.fwd and f.rev are inlined into that caller, f.rev's loop loads
// every cell of dx, adds and stores, after a memset that wrote the same
// cells: three passes over dx where a hand-written gradient makes one.
// Where the loop's first touch of each cell of the zeroed range is a load
// then a store of that cell, the load reads the zero the memset left, and
// the memset is needed only for the cells the loop does not store.
//
// The rewrite, for a memset of zero and the next counted loop after it:
//  * every access of the loop to cells based on the memset's pointer is a
//    load and a store of one address {P + o, +, S}, with one step S for
//    all; the pairs tile [P + h, P + h + |S| * trip count) exactly, so each
//    cell is stored once, in one iteration, after its only load; the loop
//    leaves only by its latch, every instruction in it reaches the next,
//    and each store executes in every iteration;
//  * every other access in the loop provably touches none of those cells
//    (alias analysis, which sees the noalias scopes f.rev carries), and
//    nothing between the memset and the loop touches the memset's range;
//  * the covered range lies within the memset's: proved by ScalarEvolution
//    at the loop's preheader, or else checked at run time there, with the
//    original loop and the memset kept on the other branch.
// Then the loads become zero, the memset moves to the paths that leave
// without reaching the loop, and the loop's preheader zeroes only the cells
// before and after the covered range.
//
// Runs on the functions where requests were lowered, after the inliner
// pipeline that follows lowering at -O1 and above, before vectorisation.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_CODEGEN_FIRSTTOUCHSTORES_H
#define ADPASS_CODEGEN_FIRSTTOUCHSTORES_H

#include "llvm/IR/PassManager.h"

namespace ad {

/// Rewrites the loops of \p F that accumulate into memory a memset just
/// zeroed (above); true if any changed.
bool storeFirstTouches(llvm::Function &F, llvm::FunctionAnalysisManager &FAM);

} // namespace ad

#endif
