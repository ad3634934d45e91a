//===- ShadowMemory.h - allocating and copying shadow memory ----*- C++ -*-===//
//
// The pieces of shadow memory handling that Linearize and Transpose share:
// how big a heap allocation is, how its shadow is made and released, and
// which floating-point type a shadow memcpy moves (its transpose adds
// cotangents, so it must know float from double).
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_SHADOWMEMORY_H
#define ADPASS_SHADOWMEMORY_H

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicInst.h"
#include <optional>

namespace ad {

/// On the zeroed alloca that shadows a local variable in f.jvp; Unzip
/// moves such allocas into the tape so that they outlive f.fwd.
inline constexpr const char *ShadowAllocaMD = "ad.shadow.alloca";

/// Bytes allocated by the allocation call \p CB (malloc, calloc, new[]...),
/// or null if its size cannot be expressed.
llvm::Value *allocationSize(llvm::IRBuilderBase &B, llvm::CallBase &CB);
/// Zeroed heap memory of \p Size bytes for a shadow.
llvm::Value *emitShadowAllocation(llvm::IRBuilderBase &B, llvm::Value *Size);
/// The linear marker that a heap shadow becomes live here; its transpose
/// releases the shadow (emitShadowRelease).
llvm::CallInst *emitShadowLive(llvm::IRBuilderBase &B, llvm::Value *Shadow);
bool isShadowLive(const llvm::Instruction &I);
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

/// Why inferShadowElementType could not type a copy.
enum class UntypedCopy { Unknown, Mixed, Union };

/// The floating-point element type the memory of \p MT holds: null when it
/// holds none, std::nullopt when it is mixed, a union, or cannot be
/// determined (\p Why says which).
std::optional<llvm::Type *> inferShadowElementType(llvm::MemTransferInst &MT,
                                                   UntypedCopy *Why = nullptr);
/// What the \p Bytes bytes that integer load or store \p Access moves at
/// \p Ptr are: a floating-point type, a pointer type (pointers or structs
/// holding them), null for integer data, std::nullopt when mixed or
/// unknown. Read from its TBAA tag, else from the object's declared or
/// accessed types (as for a memcpy). The optimiser moves doubles and
/// pointers as integers: an 8-byte memcpy, a std::unique_ptr moved.
std::optional<llvm::Type *>
inferIntegerAccessBits(const llvm::Instruction &Access, llvm::Value *Ptr,
                       uint64_t Bytes);
/// The parameter \p F returns unchanged (Eigen's derived(), which returns
/// *this; std::move and std::forward at -O0), if any.
const llvm::Argument *returnedParameter(const llvm::Function &F);
/// Whether \p Ptr points only into objects made of floating-point data
/// alone (locals by their declared types, parameters by the objects all
/// callers pass): any integer access of them moves floating-point bits.
bool holdsOnlyFloatingPoint(const llvm::Value *Ptr);
/// Records on \p MT the type of the struct member or array element it
/// copies whole, when one side is that member's address (a GEP to a member
/// of exactly the copy's length: an Eigen expression kept by value inside
/// another, copied by its constructor at -O0). For when neither side's
/// object is typed in the function: simplification removes the GEP when
/// the member is the first one, so PrepareSource notes it beforehand.
void noteCopiedMemberType(llvm::MemTransferInst &MT);
/// Removes that note once Linearize has decided how to copy the shadow.
void forgetCopiedMemberType(llvm::MemTransferInst &MT);
void tagShadowElementType(llvm::Instruction &Copy, llvm::Type *Elem);
/// The transpose of a linear copy of shadow memory from \p Src to \p Dst:
/// ct(Src) += ct(Dst); ct(Dst) = 0, element by element.
llvm::CallInst *emitCopyTranspose(llvm::IRBuilderBase &B,
                                  const llvm::MemTransferInst &Copy,
                                  llvm::Value *Dst, llvm::Value *Src,
                                  llvm::Value *Len);

} // namespace ad

#endif
