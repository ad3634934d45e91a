//===- MemoryTypes.h - what floating-point type memory holds ----*- C++ -*-===//
//
// Infers which floating-point type a copy of memory, or an integer access
// of it, moves: the transpose of a shadow memcpy adds cotangents element by
// element, and the optimiser moves doubles and pointers as integers. The
// algorithm is described in MemoryTypes.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_MEMORYTYPES_H
#define ADPASS_MEMORYTYPES_H

#include "llvm/IR/IntrinsicInst.h"
#include <optional>

namespace ad {

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

} // namespace ad

#endif
