//===- AllocationCalls.h - the heap functions ADPass knows ------*- C++ -*-===//
//
// The allocation and release functions whose memory gets a shadow, named
// as the module declares them (C's and C++'s).
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_IR_ALLOCATIONCALLS_H
#define ADPASS_IR_ALLOCATIONCALLS_H

namespace llvm {
class Function;
class Value;
} // namespace llvm

namespace ad {

/// Heap allocation and release functions whose memory gets a shadow.
bool isAllocationCall(const llvm::Value *V);
bool isDeallocationCall(const llvm::Value *V);
/// posix_memalign, which returns its block through a pointer argument.
bool isOutParamAllocationCall(const llvm::Value *V);
/// Any of the above, which a call through a pointer may reach (an
/// allocator table holding malloc and free).
bool isAllocatorFunction(const llvm::Function &F);
/// realloc and reallocarray (the prepared copy turns them into malloc, copy
/// and free: Reallocations.h).
bool isReallocationCall(const llvm::Value *V);

} // namespace ad

#endif
