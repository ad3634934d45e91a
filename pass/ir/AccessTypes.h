//===- AccessTypes.h - memory types from a function's accesses --*- C++ -*-===//
//
// Part of the memory type inference (MemoryTypes.cpp): what the types of an
// object say a copy of some of its bytes moves, and which types the
// function that holds a pointer declares or accesses its object with.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_ACCESSTYPES_H
#define ADPASS_ACCESSTYPES_H

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Value.h"

namespace ad {

/// Scalar floating-point types inside \p T.
void collectFloatLeaves(llvm::Type *T,
                        llvm::SmallPtrSetImpl<llvm::Type *> &Out);

/// What a copy of memory of type \p T moves: its floating-point types, and
/// \p T itself when it holds pointers (shadow pointers are not cotangents:
/// copies of memory holding pointers have no element-wise transpose).
void collectCopiedKinds(llvm::Type *T,
                        llvm::SmallPtrSetImpl<llvm::Type *> &Out);

/// collectCopiedKinds for bytes [\p Begin, \p End) of \p T only: a copy
/// of the double[4] that starts a struct also holding a pointer moves only
/// doubles.
void collectCopiedKindsIn(llvm::Type *T, uint64_t Begin, uint64_t End,
                          const llvm::DataLayout &DL,
                          llvm::SmallPtrSetImpl<llvm::Type *> &Out);

/// The floating-point types the memory of \p Ptr's underlying object is
/// declared or accessed with in this function. False when its type is not
/// known from a declaration (an argument or heap memory with no typed
/// access here). With \p AcrossModule, a pointer kept in a declared field
/// (clang's struct-path TBAA tag names it) that nothing here reads through
/// is typed by what the module's other functions read through that field.
/// With \p IntoCallees, the accesses through the parameters of the defined
/// functions the memory is passed to count too.
bool collectAccessTypes(llvm::Value *Ptr,
                        llvm::SmallPtrSetImpl<llvm::Type *> &Out,
                        bool *SawUnion = nullptr,
                        const llvm::Value *Len = nullptr,
                        bool AcrossModule = false, bool IntoCallees = false);

} // namespace ad

#endif
