//===- TypeLeaves.cpp - what a type's leaves are --------------------------===//
//
// Predicates over IR types that every stage asks: whether values of a type
// carry tangents, whether memory of it can hold derivatives or pointers.
//
//===----------------------------------------------------------------------===//
#include "ir/TypeLeaves.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/IR/DerivedTypes.h"

using namespace llvm;

namespace ad {

namespace {
/// The kinds of leaves a type is made of (bits).
enum LeafKind : unsigned { FloatLeaf = 1, IntLeaf = 2, OtherLeaf = 4 };
} // namespace

static unsigned leafKinds(const Type *T) {
  if (auto *ST = dyn_cast<StructType>(T)) {
    if (ST->isOpaque() || ST->getNumElements() == 0)
      return OtherLeaf;
    unsigned Kinds = 0;
    for (Type *E : ST->elements())
      Kinds |= leafKinds(E);
    return Kinds;
  }
  if (auto *AT = dyn_cast<ArrayType>(T))
    return AT->getNumElements() ? leafKinds(AT->getElementType()) : OtherLeaf;
  if (auto *VT = dyn_cast<VectorType>(T))
    T = VT->getElementType();
  // x86's long double is differentiated in its own precision; __float128
  // has no libm rules and its arithmetic is software (not supported).
  if (T->isFloatingPointTy() && !T->isFP128Ty() && !T->isPPC_FP128Ty())
    return FloatLeaf;
  return T->isIntegerTy() ? IntLeaf : OtherLeaf;
}

bool isDifferentiableType(const Type *T) {
  // Floating-point values, and aggregates of them returned by value. An
  // aggregate may also hold integers (struct {double value; int steps;}):
  // its tangent has the same type, with zero integer fields, which no rule
  // reads (JAX's float0).
  unsigned Kinds = leafKinds(T);
  return (Kinds & FloatLeaf) && !(Kinds & OtherLeaf) &&
         (!(Kinds & IntLeaf) || T->isAggregateType());
}

/// Whether \p T, or an element of its structs and arrays at any depth,
/// satisfies \p P.
static bool anyNested(const Type *T, function_ref<bool(const Type *)> P) {
  if (P(T))
    return true;
  if (auto *ST = dyn_cast<StructType>(T))
    return llvm::any_of(ST->elements(),
                        [&](const Type *E) { return anyNested(E, P); });
  if (auto *AT = dyn_cast<ArrayType>(T))
    return anyNested(AT->getElementType(), P);
  return false;
}

bool containsFloatingPoint(const Type *T) {
  return anyNested(T, isDifferentiableType);
}

bool containsPointer(const Type *T) {
  return anyNested(T, [](const Type *E) { return E->isPointerTy(); });
}

bool hasFloatLeaf(const Type *T) {
  return anyNested(T, [](const Type *E) { return E->isFPOrFPVectorTy(); });
}

bool hasNonFloatLeaf(const Type *T) {
  return anyNested(T, [](const Type *E) {
    return !isa<StructType>(E) && !isa<ArrayType>(E) && !E->isFPOrFPVectorTy();
  });
}

bool holdsUnion(const Type *T) {
  return anyNested(T, [](const Type *E) {
    auto *ST = dyn_cast<StructType>(E);
    return ST && ST->hasName() &&
           (ST->getName().starts_with("union.") ||
            ST->getName().contains(".union."));
  });
}

/// Pointers and integers, in structs and arrays of them.
static bool onlyPointerAndIntegerLeaves(const Type *T) {
  if (T->isPointerTy() || T->isIntegerTy())
    return true;
  if (auto *ST = dyn_cast<StructType>(T))
    return !ST->isOpaque() && ST->getNumElements() &&
           llvm::all_of(ST->elements(), onlyPointerAndIntegerLeaves);
  if (auto *AT = dyn_cast<ArrayType>(T))
    return AT->getNumElements() &&
           onlyPointerAndIntegerLeaves(AT->getElementType());
  return false;
}

bool isPointerLike(const Type *T) {
  // Integer fields (a size kept next to the data pointer) come along: in
  // a shadow they hold the primal's integers, which no derivative reads.
  return containsPointer(T) && onlyPointerAndIntegerLeaves(T);
}

} // namespace ad
