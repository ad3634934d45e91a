//===- CallerObjectTypes.h - memory types from callers' objects -*- C++ -*-===//
//
// Part of the memory type inference (MemoryTypes.cpp): when a pointer is a
// parameter, what the objects the callers pass hold, and the pointers
// loaded from fields or stepped as cursors that say which elements they
// walk.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_CALLEROBJECTTYPES_H
#define ADPASS_CALLEROBJECTTYPES_H

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include <optional>

namespace ad {

/// At -O0 a parameter comes back from the stack slot it is spilled to.
const llvm::Value *throughSpillSlot(const llvm::Value *V);
/// At -O0 a function keeps a parameter in a local slot, stored once (by
/// \p SI) and loaded again for each use: those loads, which are the
/// parameter. None when \p SI does not store into a local, or the slot is
/// stored to again or its address escapes (other pointers may be put
/// there).
std::optional<llvm::SmallVector<const llvm::LoadInst *, 4>>
spillSlotReloads(const llvm::StoreInst &SI);

/// The function whose callers pass \p A: in f.jvp, f's parameters come
/// first, and f's callers are what matter.
const llvm::Function &callersFunctionOf(const llvm::Argument &A);

/// At -O0, what the pointer field that \p V is loaded from (directly, or
/// returned by an accessor such as a C++ iterator's operator*) points to:
/// the element type the module's code steps pointers loaded from that
/// field of that struct type by (operator+ of the iterator, a one-index
/// GEP over the element). std::sort's heap and insertion steps at -O0 copy
/// elements between the references operator* returns.
llvm::Type *fieldElementType(const llvm::Value *V);

/// How many calls up collectPassedObjectTypes follows a parameter. A
/// value std::map::insert is given reaches the copy that constructs its
/// node seven calls down at -O0 (_M_emplace_unique, _Auto_node,
/// _M_create_node, _M_construct_node, allocator_traits::construct,
/// __new_allocator::construct).
inline constexpr unsigned CallerDepth = 8;

/// The types in what every call of \p F passes as parameter \p ArgNo, if
/// each passes a local or a member (a GEP) of at least \p Bytes bytes, or
/// what its own caller passed (its parameter, or what a function that
/// returns its parameter was given), up to \p Depth calls up. Data
/// holding pointers counts as one kind, ptr: a member's type may be its
/// class's ".base" variant, another IR name for the same class. With
/// \p Bytes unknown (a copy whose length varies, such as std::valarray's
/// element copy at -O0), only objects made of floating-point data alone
/// count: whatever part is copied, that is what moves.
bool collectPassedObjectTypes(const llvm::Function &F, unsigned ArgNo,
                              std::optional<uint64_t> Bytes, unsigned Depth,
                              llvm::SmallPtrSetImpl<llvm::Type *> &Found);

/// When \p Ptr is a parameter: the types in the objects its callers pass
/// (collectPassedObjectTypes). A copy constructor that copies its whole
/// object with memcpy (Eigen's expressions at -O0) sees two untyped
/// pointers; its callers see the class. False otherwise.
bool collectCallerObjectTypes(llvm::Value *Ptr, llvm::Value *Len,
                              llvm::SmallPtrSetImpl<llvm::Type *> &Out);

/// Whether \p Ptr points into a local that holds a union (a
/// std::function's storage), or is a parameter that a caller gives such a
/// local (up to \p Depth calls up): which of its members the bytes are is
/// not in any type, and accesses elsewhere in the other side's object do
/// not say either (a std::function pushed into a vector: its captured
/// double moved as a pointer, a zero gradient).
bool pointsIntoUnion(const llvm::Value *Ptr, unsigned Depth = 4);

} // namespace ad

#endif
