//===- TypeLeaves.h - what a type's leaves are ------------------*- C++ -*-===//
//
// Predicates over IR types that every stage asks: whether values of a type
// carry tangents, whether memory of it can hold derivatives or pointers.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_IR_TYPELEAVES_H
#define ADPASS_IR_TYPELEAVES_H

namespace llvm {
class Type;
} // namespace llvm

namespace ad {

/// Types whose values can carry a tangent: floating point (x86's long
/// double too, not __float128), vectors of it, and structs and arrays of
/// these that may also hold integers. A tangent has the value's type; its
/// integer fields are 0.
bool isDifferentiableType(const llvm::Type *T);
/// Types that contain floating-point data somewhere (memory that can hold
/// derivatives).
bool containsFloatingPoint(const llvm::Type *T);
/// Types that contain pointers somewhere.
bool containsPointer(const llvm::Type *T);
/// Types holding floating-point data of any kind (__float128 too, which
/// containsFloatingPoint leaves out).
bool hasFloatLeaf(const llvm::Type *T);
/// Types with a leaf that is not floating point (an int field).
bool hasNonFloatLeaf(const llvm::Type *T);

/// Types holding a union. Clang gives a union the IR type of one of its
/// members (union {void *p; double d;} is { ptr }, named union.*): what
/// else it holds is not in the type.
bool holdsUnion(const llvm::Type *T);

/// A pointer, or a struct or array made of pointers and integers, at least
/// one a pointer (a pair of iterators, an Eigen expression holding
/// references to its operands, a C matrix {rows, cols, data}, returned by
/// value at -O0): an address-like value whose shadow has the same type,
/// field for field (the integers are the primal's).
bool isPointerLike(const llvm::Type *T);

} // namespace ad

#endif
