//===- MemoryTypes.cpp - what floating-point type memory holds ------------===//
//
// The transpose of a shadow memcpy adds cotangents element by element, so
// Linearize must know whether a copy moves floats, doubles, pointers or
// nothing of interest; IR memory is untyped, so this is inferred from the
// evidence around the copy, strongest first (inferShadowElementType):
//
//  1. The objects of both sides in this function (AccessTypes.cpp): a
//     local's declared type, restricted to the copied bytes where the
//     offset and length are constant; else the types the function loads
//     and stores through the object, following GEPs, PHIs, pointers kept
//     in fields and reloaded, and fields named by struct-path TBAA tags.
//     Both sides are collected, so they must agree.
//  2. Unions: a copy to or from an object holding a union (here, or passed
//     in by a caller) cannot be typed, as the union's bytes are whichever
//     member the program last stored; only a !tbaa.struct tag that clang
//     put on the copy of one member still types it.
//  3. The struct member PrepareSource saw the copy take whole, before
//     simplification removed the GEP to it.
//  4. When a side is a parameter, the objects its callers pass
//     (CallerObjectTypes.cpp), followed up to CallerDepth calls up, through
//     functions that return a parameter, spill slots, and cursors stepped
//     over an array.
//  5. As in 1, but also through the parameters of the functions defined in
//     the module that each side is passed to (a heap block filled by the
//     copy and read as doubles only in the callees), then through the
//     loads of the same declared field in the module's other functions.
//  6. The element type that pointers loaded from the same struct field are
//     stepped by anywhere in the module (iterators at -O0).
//  7. The !tbaa.struct tag on the copy, field by field.
//  8. Pointer data of any shape counts as one kind; more than one kind left
//     is a mixed copy, which has no element-wise transpose. Typed memory
//     with no kind holds no floating-point data. Otherwise the copy's own
//     scalar TBAA tag is the last resort.
//
// Integer loads and stores that may move floating-point bits
// (inferIntegerAccessBits) are typed by their TBAA tag, the field a GEP
// addresses, or else by the same evidence as a copy (1 and 4).
//
//===----------------------------------------------------------------------===//
#include "ir/MemoryTypes.h"
#include "ir/AccessTypes.h"
#include "ir/CallerObjectTypes.h"
#include "prepare/Activity.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Operator.h"

using namespace llvm;

namespace ad {

static constexpr StringLiteral CopiedTypeMD = "ad.copied.type";

/// The name of the scalar type that TBAA tag \p Tag says is accessed
/// (clang's type tree: "double", "any pointer", "long", "omnipotent
/// char"...), or empty.
static StringRef tbaaAccessName(const MDNode *Tag) {
  if (!Tag || Tag->getNumOperands() < 2)
    return {};
  auto *Access = dyn_cast<MDNode>(Tag->getOperand(1));
  auto *Name = Access && Access->getNumOperands() > 0
                   ? dyn_cast<MDString>(Access->getOperand(0))
                   : nullptr;
  return Name ? Name->getString() : StringRef();
}

static StringRef tbaaAccessName(const Instruction &I) {
  return tbaaAccessName(I.getMetadata(LLVMContext::MD_tbaa));
}

/// Whether a TBAA access type name is one clang gives pointers: "any
/// pointer", or "p1 double" and the like with pointer TBAA.
static bool isPointerTbaaName(StringRef Name) {
  return Name == "any pointer" || (Name.size() > 2 && Name[0] == 'p' &&
                                   isDigit(Name[1]) && Name[2] == ' ');
}

/// What a struct copy moves, from the !tbaa.struct clang attaches to it (a
/// field's offset, size and scalar tag, per field): floating-point types
/// and, for pointer fields, the pointer type. A lambda's closure copied by
/// std::function's manager is a copy of pointers that nothing else types.
/// False without the tag, or when a field's type is not known to hold no
/// floating-point data (char, a union's bytes, an enum's own name).
static bool collectTbaaStructKinds(const MemTransferInst &MT,
                                   SmallPtrSetImpl<Type *> &Out) {
  MDNode *Fields = MT.getMetadata(LLVMContext::MD_tbaa_struct);
  if (!Fields || Fields->getNumOperands() == 0 ||
      Fields->getNumOperands() % 3 != 0)
    return false;
  LLVMContext &Ctx = MT.getContext();
  static const StringSet<> Integers = {"bool",
                                       "short",
                                       "unsigned short",
                                       "int",
                                       "unsigned int",
                                       "long",
                                       "unsigned long",
                                       "long long",
                                       "unsigned long long",
                                       "__int128",
                                       "unsigned __int128"};
  SmallPtrSet<Type *, 2> Found;
  for (unsigned K = 2; K < Fields->getNumOperands(); K += 3) {
    StringRef Name =
        tbaaAccessName(dyn_cast_or_null<MDNode>(Fields->getOperand(K)));
    if (Name == "double")
      Found.insert(Type::getDoubleTy(Ctx));
    else if (Name == "float")
      Found.insert(Type::getFloatTy(Ctx));
    else if (Name == "long double")
      Found.insert(Type::getX86_FP80Ty(Ctx));
    else if (isPointerTbaaName(Name) || Name == "vtable pointer")
      Found.insert(PointerType::getUnqual(Ctx));
    else if (!Integers.contains(Name))
      return false;
  }
  Out.insert(Found.begin(), Found.end());
  return true;
}

/// The floating-point type a copy's scalar TBAA tag names ("double" or
/// "float" in clang's type tree), or null. A memcpy that loop idiom
/// recognition made from a loop of double stores (copying a row into
/// fresh heap memory) keeps their tag, while nothing else about its two
/// sides may be typed any more.
static Type *tbaaFloatType(const Instruction &I) {
  StringRef Name = tbaaAccessName(I);
  if (Name == "double")
    return Type::getDoubleTy(I.getContext());
  if (Name == "float")
    return Type::getFloatTy(I.getContext());
  if (Name == "long double")
    return Type::getX86_FP80Ty(I.getContext());
  return nullptr;
}

void noteCopiedMemberType(MemTransferInst &MT) {
  auto *Bytes = dyn_cast<ConstantInt>(MT.getLength());
  if (!Bytes)
    return;
  for (Value *Side : {MT.getRawDest(), MT.getRawSource()}) {
    auto *GEP = dyn_cast<GetElementPtrInst>(Side);
    if (!GEP || GEP->getNumIndices() < 2)
      continue;
    Type *Member = GEP->getResultElementType();
    if (Member->isSized() && !holdsUnion(Member) &&
        GEP->getDataLayout().getTypeAllocSize(Member) ==
            Bytes->getZExtValue()) {
      MT.setMetadata(
          CopiedTypeMD,
          MDNode::get(MT.getContext(),
                      {ConstantAsMetadata::get(PoisonValue::get(Member))}));
      return;
    }
  }
}

void forgetCopiedMemberType(MemTransferInst &MT) {
  MT.setMetadata(CopiedTypeMD, nullptr);
}

/// Step 2: a copy to or from an object holding a union is typed only when
/// clang made it as the copy of one member and tagged its fields:
/// std::function's manager cloning the closure it keeps in its union, a
/// lambda holding two references (two pointers).
static std::optional<Type *> typeUnionCopy(const MemTransferInst &MT,
                                           UntypedCopy *Why) {
  SmallPtrSet<Type *, 2> Tagged;
  if (collectTbaaStructKinds(MT, Tagged) && Tagged.size() <= 1)
    return Tagged.empty() ? nullptr : *Tagged.begin();
  if (Why)
    *Why = UntypedCopy::Union;
  return std::nullopt;
}

/// Step 6: what the elements hold that pointers loaded from the same field
/// as a side are stepped by. False when neither side is such a pointer.
static bool collectSteppedFieldKinds(const MemTransferInst &MT,
                                     SmallPtrSetImpl<Type *> &Types) {
  bool Typed = false;
  for (Value *Side : {MT.getRawDest(), MT.getRawSource()})
    if (Type *Elem = fieldElementType(Side)) {
      auto *Len = dyn_cast<ConstantInt>(MT.getLength());
      const DataLayout &DL = MT.getDataLayout();
      if (Len && Len->getZExtValue() <= DL.getTypeAllocSize(Elem))
        collectCopiedKindsIn(Elem, 0, Len->getZExtValue(), DL, Types);
      else
        collectCopiedKinds(Elem, Types);
      Typed = true;
    }
  return Typed;
}

/// Step 8: the one kind of data \p Types says the copy moves.
static std::optional<Type *>
singleCopiedKind(const MemTransferInst &MT,
                 const SmallPtrSetImpl<Type *> &Types, bool Typed,
                 UntypedCopy *Why) {
  // Pointer data of any shape (a pointer, an iterator holding one) is
  // copied the same way: as addresses. The sides may show it differently
  // (a local's field, a whole local copied into).
  SmallPtrSet<Type *, 2> Kinds;
  for (Type *T : Types)
    Kinds.insert(containsPointer(T) && !hasFloatLeaf(T)
                     ? PointerType::getUnqual(MT.getContext())
                     : T);
  if (Kinds.size() > 1) {
    if (Why)
      *Why = UntypedCopy::Mixed;
    return std::nullopt;
  }
  if (Kinds.size() == 1)
    return *Kinds.begin();
  if (Typed)
    return nullptr; // typed memory without floating-point data
  if (Type *T = tbaaFloatType(MT))
    return T;
  return std::nullopt;
}

std::optional<Type *> inferShadowElementType(MemTransferInst &MT,
                                             UntypedCopy *Why) {
  if (Why)
    *Why = UntypedCopy::Unknown;
  // The steps of the file comment, each tried only while the copy is not
  // typed yet.
  SmallPtrSet<Type *, 2> Types;
  bool SawUnion = false;
  bool Typed =
      collectAccessTypes(MT.getRawDest(), Types, &SawUnion, MT.getLength());
  Typed |=
      collectAccessTypes(MT.getRawSource(), Types, &SawUnion, MT.getLength());
  if (SawUnion || pointsIntoUnion(MT.getRawDest()) ||
      pointsIntoUnion(MT.getRawSource()))
    return typeUnionCopy(MT, Why);
  if (MDNode *MD = MT.getMetadata(CopiedTypeMD); MD && !Typed) {
    collectCopiedKinds(cast<ConstantAsMetadata>(MD->getOperand(0))->getType(),
                       Types);
    Typed = true;
  }
  if (!Typed)
    for (Value *Side : {MT.getRawDest(), MT.getRawSource()})
      Typed |= collectCallerObjectTypes(Side, MT.getLength(), Types);
  if (!Typed)
    for (Value *Side : {MT.getRawDest(), MT.getRawSource()})
      Typed |= collectAccessTypes(Side, Types, &SawUnion, MT.getLength(),
                                  /*AcrossModule=*/false,
                                  /*IntoCallees=*/true);
  if (!Typed) {
    for (Value *Side : {MT.getRawDest(), MT.getRawSource()})
      Typed |= collectAccessTypes(Side, Types, &SawUnion, MT.getLength(),
                                  /*AcrossModule=*/true);
    if (SawUnion) {
      if (Why)
        *Why = UntypedCopy::Union;
      return std::nullopt;
    }
  }
  if (!Typed)
    Typed = collectSteppedFieldKinds(MT, Types);
  if (!Typed)
    Typed = collectTbaaStructKinds(MT, Types);
  return singleCopiedKind(MT, Types, Typed, Why);
}

bool holdsOnlyFloatingPoint(const Value *Ptr) {
  SmallVector<const Value *, 2> Objects;
  getUnderlyingObjects(Ptr, Objects);
  return !Objects.empty() && llvm::all_of(Objects, [](const Value *Obj) {
    if (auto *AI = dyn_cast<AllocaInst>(Obj))
      return containsFloatingPoint(AI->getAllocatedType()) &&
             !hasNonFloatLeaf(AI->getAllocatedType());
    auto *A = dyn_cast<Argument>(Obj);
    if (!A)
      return false;
    // With no length, only objects of floating-point data alone count.
    SmallPtrSet<Type *, 2> Found;
    return collectPassedObjectTypes(callersFunctionOf(*A), A->getArgNo(),
                                    std::nullopt, CallerDepth, Found) &&
           !Found.empty();
  });
}

std::optional<Type *> inferIntegerAccessBits(const Instruction &Access,
                                             Value *Ptr, uint64_t Bytes) {
  LLVMContext &Ctx = Access.getContext();
  // The tag clang put on the access, when it names the scalar type.
  if (Type *T = tbaaFloatType(Access))
    return T;
  StringRef Name = tbaaAccessName(Access);
  if (isPointerTbaaName(Name))
    return PointerType::getUnqual(Ctx);
  if (!Name.empty() && Name != "omnipotent char")
    return nullptr; // an integer type
  // A whole field or element reached by a typed address (at -O0 every
  // field access is one): its declared type, which the object's other
  // fields do not change (the int id of a node next to its double).
  if (auto *GEP = dyn_cast<GEPOperator>(Ptr);
      GEP && GEP->getNumIndices() >= 2 &&
      !holdsUnion(GEP->getSourceElementType())) {
    Type *Field = GEP->getResultElementType();
    const DataLayout &DL = Access.getDataLayout();
    if (Field->isSized() && DL.getTypeStoreSize(Field) == Bytes) {
      if (Field->isIntegerTy())
        return nullptr;
      if (Field->isFloatingPointTy() || Field->isPointerTy())
        return Field;
    }
  }
  // Else what the object is declared or accessed as, here or by callers.
  SmallPtrSet<Type *, 2> Types;
  bool Typed = collectAccessTypes(Ptr, Types);
  // Accesses here that are all integers (the copy itself: doubles moved as
  // uint64_t with -fno-strict-aliasing, or byte by byte) say nothing
  // against what the callers pass, whose objects decide.
  if (Types.empty()) {
    // The objects themselves, through the pointer's choices (a byte loop's
    // cursor): locals by their declared types, parameters by what callers
    // pass.
    SmallVector<const Value *, 2> Objects;
    getUnderlyingObjects(Ptr, Objects);
    SmallPtrSet<Type *, 2> Declared;
    bool AllKnown = !Objects.empty();
    for (const Value *Obj : Objects) {
      if (auto *AI = dyn_cast<AllocaInst>(Obj);
          AI && !holdsUnion(AI->getAllocatedType()))
        collectCopiedKinds(AI->getAllocatedType(), Declared);
      else if (auto *A = dyn_cast<Argument>(Obj))
        AllKnown &= collectCallerObjectTypes(
            const_cast<Argument *>(A),
            ConstantInt::get(Type::getInt64Ty(Ctx), Bytes), Declared);
      else
        AllKnown = false;
    }
    if (AllKnown && !Declared.empty()) {
      Types = std::move(Declared);
      Typed = true;
    }
  }
  if (!Typed)
    return std::nullopt;
  if (Types.empty())
    return nullptr;
  if (Types.size() == 1 && (*Types.begin())->isFloatingPointTy())
    return *Types.begin();
  if (llvm::none_of(Types, [](Type *T) { return T->isFloatingPointTy(); }))
    return PointerType::getUnqual(Ctx);
  return std::nullopt;
}

} // namespace ad
