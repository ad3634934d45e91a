//===- IterationOrder.h - reversed loops that may run forwards --*- C++ -*-===//
//
// f.rev runs an array loop of f.lin from its last iteration to its first.
// When the transposed iterations commute, the order is free, and forwards
// is cheaper: the hardware prefetches ascending streams best, and a
// vectorized descending loop reverses every vector it loads and stores (a
// shuffle each). This decides when the order is free.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_TRANSPOSE_ITERATIONORDER_H
#define ADPASS_TRANSPOSE_ITERATIONORDER_H

namespace llvm {
class Loop;
} // namespace llvm

namespace ad {

/// Whether the transposes of \p L's iterations (a loop of f.lin) give the
/// same cotangents in any order, up to the order of floating-point
/// additions into the same cotangent. That holds when
/// * every iteration runs whole: the latch is the only exiting block, so
///   f.rev does not enter the loop in the middle of its last iteration;
/// * no iteration writes memory or calls g.lin: the transposes then only
///   add into shadow memory (a linear load's transpose), never read a
///   cell's cotangent back (a linear store's), so their order does not
///   matter to memory;
/// * no iteration pops the tape: popped records come off in reverse
///   order (records of the loop's own array are indexed by iteration);
/// * every linear value carried from one iteration to the next is a sum
///   (a header PHI whose only use starts a chain of fadd/fsub ending in
///   the value it takes back), so its cotangent is the same in every
///   iteration; and no other linear value defined in the loop is used
///   after it, as that cotangent belongs to the last iteration only.
bool transposedIterationsCommute(const llvm::Loop &L);

} // namespace ad

#endif // ADPASS_TRANSPOSE_ITERATIONORDER_H
