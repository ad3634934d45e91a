//===- ShadowMemory.h - allocating and copying shadow memory ----*- C++ -*-===//
//
// The pieces of shadow memory handling that Linearize and Transpose share:
// how big a heap allocation is, how its shadow is made and released, and
// how a shadow memcpy is tagged with the floating-point type it moves and
// transposed (it adds cotangents, so it must know float from double).
// Which type that is, is inferred in MemoryTypes.h, included here because
// every stage that copies shadow memory asks it.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_SHADOWMEMORY_H
#define ADPASS_SHADOWMEMORY_H

#include "ir/MemoryTypes.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicInst.h"

namespace ad {

/// On the zeroed alloca that shadows a local variable in f.jvp; Unzip
/// moves such allocas into the tape so that they outlive f.fwd.
inline constexpr const char *ShadowAllocaMD = "ad.shadow.alloca";

/// Bytes allocated by the allocation call \p CB (malloc, calloc, new[]...),
/// or null if its size cannot be expressed.
llvm::Value *allocationSize(llvm::IRBuilderBase &B, llvm::CallBase &CB);
/// Whether allocationSize(\p CB) gives the size of the block \p CB returns
/// (not posix_memalign, which returns it through memory).
bool knowsAllocationSize(const llvm::CallBase &CB);
/// The alignment the allocation call \p CB asks for (aligned_alloc,
/// memalign, posix_memalign), or null for the allocator's default.
llvm::Value *allocationAlignment(llvm::IRBuilderBase &B, llvm::CallBase &CB);
/// Zeroed heap memory of \p Size bytes for a shadow, aligned to \p Align
/// bytes if given (a power of two); freed with free().
llvm::Value *emitShadowAllocation(llvm::IRBuilderBase &B, llvm::Value *Size,
                                  llvm::Value *Align = nullptr);
/// The linear marker that a heap shadow becomes live here; its transpose
/// releases the shadow (emitShadowRelease).
llvm::CallInst *emitShadowLive(llvm::IRBuilderBase &B, llvm::Value *Shadow);
bool isShadowLive(const llvm::Instruction &I);
/// The linear marker that a copy of memory f.fwd made for f.lin and f.rev
/// to read (unzip/LoadSnapshots.cpp) is in use from here on; its
/// transpose frees the copy (__ad_free), f.rev being done with it.
llvm::CallInst *emitSnapshotLive(llvm::IRBuilderBase &B, llvm::Value *Copy);
bool isSnapshotLive(const llvm::Instruction &I);
llvm::CallInst *emitSnapshotFree(llvm::IRBuilderBase &B, llvm::Value *Copy);
/// Frees a heap shadow where the primal memory is freed (forward mode;
/// linear, transposes to emitShadowFreed).
llvm::CallInst *emitShadowFree(llvm::IRBuilderBase &B, llvm::Value *Shadow);
bool isShadowFree(const llvm::Instruction &I);
/// Reverse mode, where f.rev walks back past a free: notes that \p Shadow's
/// memory was freed (the runtime's __ad_shadow_freed).
llvm::CallInst *emitShadowFreed(llvm::IRBuilderBase &B, llvm::Value *Shadow);
/// Reverse mode, where f.rev walks back past an allocation: frees \p Shadow
/// if its memory was freed; a shadow of memory that outlives the request
/// stays (__ad_shadow_release).
llvm::CallInst *emitShadowRelease(llvm::IRBuilderBase &B, llvm::Value *Shadow);
/// Around a gradient request: the mark __ad_shadow_frees_begin takes, or
/// null when no derived code in the module notes freed shadows; and the
/// check at the end of the request that every shadow noted was released.
llvm::Value *emitShadowFreesBegin(llvm::IRBuilderBase &B);
void emitShadowFreesEnd(llvm::IRBuilderBase &B, llvm::Value *Mark);

void tagShadowElementType(llvm::Instruction &Copy, llvm::Type *Elem);
/// The transpose of a linear copy of shadow memory from \p Src to \p Dst:
/// ct(Src) += ct(Dst); ct(Dst) = 0, element by element.
llvm::CallInst *emitCopyTranspose(llvm::IRBuilderBase &B,
                                  const llvm::MemTransferInst &Copy,
                                  llvm::Value *Dst, llvm::Value *Src,
                                  llvm::Value *Len);

/// For a handle (runtime/Handle.cpp): \p Addr, an address f.fwd computed
/// from placeholder shadows, as the same offset from the shadows of the
/// current application. Addresses of other memory are left as they are.
llvm::CallInst *emitHandleRebase(llvm::IRBuilderBase &B, llvm::Value *Addr);
bool isHandleRebase(const llvm::Instruction &I);
/// For a handle's f.fwd: a placeholder for the pointer each application
/// will find at \p Addr, in the caller's shadow memory.
llvm::CallInst *emitHandleShadowLoad(llvm::IRBuilderBase &B, llvm::Value *Addr);
bool isHandleShadowLoad(const llvm::Instruction &I);

} // namespace ad

#endif
