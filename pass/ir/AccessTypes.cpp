//===- AccessTypes.cpp - memory types from a function's accesses ----------===//
#include "ir/AccessTypes.h"
#include "prepare/Activity.h"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace ad {

void collectFloatLeaves(Type *T, SmallPtrSetImpl<Type *> &Out) {
  if (auto *VT = dyn_cast<VectorType>(T))
    T = VT->getElementType();
  if (T->isFloatingPointTy())
    Out.insert(T);
  else if (auto *ST = dyn_cast<StructType>(T))
    for (Type *E : ST->elements())
      collectFloatLeaves(E, Out);
  else if (auto *AT = dyn_cast<ArrayType>(T))
    collectFloatLeaves(AT->getElementType(), Out);
}

void collectCopiedKinds(Type *T, SmallPtrSetImpl<Type *> &Out) {
  collectFloatLeaves(T, Out);
  if (containsPointer(T))
    Out.insert(T);
}

void collectCopiedKindsIn(Type *T, uint64_t Begin, uint64_t End,
                          const DataLayout &DL, SmallPtrSetImpl<Type *> &Out) {
  if (Begin >= End)
    return;
  if (auto *ST = dyn_cast<StructType>(T)) {
    const StructLayout *SL = DL.getStructLayout(ST);
    for (unsigned K = 0; K < ST->getNumElements(); ++K) {
      uint64_t From = SL->getElementOffset(K);
      uint64_t To = From + DL.getTypeAllocSize(ST->getElementType(K));
      if (To > Begin && From < End)
        collectCopiedKindsIn(ST->getElementType(K),
                             std::max(Begin, From) - From,
                             std::min(End, To) - From, DL, Out);
    }
    return;
  }
  if (auto *AT = dyn_cast<ArrayType>(T)) {
    // Every element holds the kinds of one element.
    uint64_t Size = DL.getTypeAllocSize(AT->getElementType());
    if (!Size)
      return;
    uint64_t First = Begin / Size;
    if ((End - 1) / Size == First)
      collectCopiedKindsIn(AT->getElementType(), Begin - First * Size,
                           End - First * Size, DL, Out);
    else
      collectCopiedKinds(AT->getElementType(), Out);
    return;
  }
  collectCopiedKinds(T, Out);
}

/// When \p U copies all of a local variable to or from \p V: the
/// variable's type, which the memory at \p V then holds too. std::swap of a
/// struct at -O0 copies through references into a local of the struct's
/// type and back; the copy between the two references is typed by it.
static Type *wholeLocalCopiedWith(const User *U, const Value *V) {
  auto *MT = dyn_cast<MemTransferInst>(U);
  auto *Len = MT ? dyn_cast<ConstantInt>(MT->getLength()) : nullptr;
  if (!Len)
    return nullptr;
  const Value *Other =
      MT->getRawDest() == V ? MT->getRawSource() : MT->getRawDest();
  auto *AI = dyn_cast<AllocaInst>(getUnderlyingObject(Other));
  if (!AI || AI != Other->stripPointerCasts() || AI->isArrayAllocation() ||
      holdsUnion(AI->getAllocatedType()))
    return nullptr;
  std::optional<TypeSize> Size = AI->getAllocationSize(AI->getDataLayout());
  if (!Size || Size->isScalable() ||
      Size->getFixedValue() != Len->getZExtValue())
    return nullptr;
  return AI->getAllocatedType();
}

bool collectAccessTypes(Value *Ptr, SmallPtrSetImpl<Type *> &Out,
                        bool *SawUnion, const Value *Len, bool AcrossModule) {
  const Value *Obj = getUnderlyingObject(Ptr);
  const Function *F = nullptr;
  if (auto *I = dyn_cast<Instruction>(Ptr))
    F = I->getFunction();
  else if (auto *A = dyn_cast<Argument>(Ptr))
    F = A->getParent();
  // For a copy of a known length at a known offset in Obj: the bytes it
  // copies.
  const DataLayout *DL = F ? &F->getParent()->getDataLayout() : nullptr;
  std::optional<int64_t> CopyBegin, CopyEnd;
  if (auto *N = dyn_cast_or_null<ConstantInt>(Len); N && DL) {
    APInt Off(DL->getIndexTypeSizeInBits(Ptr->getType()), 0);
    if (Ptr->stripAndAccumulateConstantOffsets(*DL, Off,
                                               /*AllowNonInbounds=*/true) ==
        Obj) {
      CopyBegin = Off.getSExtValue();
      CopyEnd = *CopyBegin + int64_t(N->getZExtValue());
    }
  }
  if (auto *AI = dyn_cast<AllocaInst>(Obj)) {
    // A union's type names one member: it says nothing of the others. A
    // copy of one moves doubles or pointers as the program last stored,
    // which no transpose can tell apart (union {void *p; double d;}
    // swapped: a zero gradient, silently, before).
    if (holdsUnion(AI->getAllocatedType())) {
      if (SawUnion)
        *SawUnion = true;
      return false;
    }
    // A copy of known length at a known offset moves what lies there.
    if (CopyBegin && *CopyBegin >= 0 && !AI->isArrayAllocation())
      collectCopiedKindsIn(AI->getAllocatedType(), *CopyBegin, *CopyEnd, *DL,
                           Out);
    else
      collectCopiedKinds(AI->getAllocatedType(), Out);
    return true;
  }
  // In optimised code clang tags every access of a scalar with its type
  // (TBAA); an untagged integer access is a lowered memcpy (a std::vector
  // moving its doubles as i64), which says nothing about the data. At -O0
  // nothing is tagged, and integer accesses are the program's own.
  // Whether F is tagged at all: asked only of untagged integer accesses,
  // then once (a walk over F).
  std::optional<bool> Tagged;
  auto SaysNothing = [&](const Instruction &Access, Type *T) {
    if (!F || !T->isIntegerTy() || Access.hasMetadata(LLVMContext::MD_tbaa))
      return false;
    if (!Tagged)
      Tagged = llvm::any_of(instructions(*F), [](const Instruction &I) {
        return I.hasMetadata(LLVMContext::MD_tbaa);
      });
    return *Tagged;
  };
  bool Typed = false;
  SmallVector<const Value *, 8> Work{Obj};
  SmallPtrSet<const Value *, 16> Seen{Obj};
  // A cursor that a loop advances (a phi of the start and the cursor
  // moved on: std::move of a run of elements into a buffer in
  // std::stable_sort's merge sort) is not itself accessed as anything;
  // the objects it walks over are, through their other uses.
  if (isa<PHINode>(Obj) || isa<SelectInst>(Obj)) {
    SmallVector<const Value *, 4> Objects;
    getUnderlyingObjects(Ptr, Objects);
    // Not constants (a null start): their other uses are anywhere.
    for (const Value *O : Objects)
      if (!isa<Constant>(O) && Seen.insert(O).second)
        Work.push_back(O);
  }
  // For a copy of known bytes: the offset of each address reached from
  // Obj, where constant. An access that lies wholly outside the copied
  // bytes says nothing of them (an int field stored after doubles were
  // copied into the array before it; the copy was typed as integers and
  // moved no derivative, silently).
  DenseMap<const Value *, std::optional<int64_t>> OffsetOf;
  if (CopyBegin)
    OffsetOf[Obj] = 0;
  auto OutsideCopy = [&](const Value *Base, Type *AccessTy) {
    auto It = OffsetOf.find(Base);
    if (!CopyBegin || It == OffsetOf.end() || !It->second)
      return false;
    int64_t Begin = *It->second;
    int64_t End = Begin + int64_t(DL->getTypeStoreSize(AccessTy));
    return End <= *CopyBegin || Begin >= *CopyEnd;
  };
  // A pointer kept in memory (a field of a struct, at -O0 loaded again for
  // each use): what the loads of that field point to is the same memory,
  // written and read there with its types.
  auto AddLoadsOf = [&](const Value *Field) {
    for (const User *U : Field->users())
      if (auto *Other = dyn_cast<LoadInst>(U);
          Other && Other->getType() == Obj->getType() && Seen.insert(U).second)
        Work.push_back(Other);
  };
  // In optimised code a field is reached through a new address each time
  // (row i of a std::vector of vectors, stored in one loop and read in
  // another), but each access carries clang's struct-path TBAA tag, which
  // names the class and the field's offset: every load so tagged reads
  // the same declared field, whose pointers point to one type.
  SmallPtrSet<const MDNode *, 2> FieldTags;
  auto NoteField = [&](const Instruction &Access) {
    const MDNode *Tag = Access.getMetadata(LLVMContext::MD_tbaa);
    if (Tag && Tag->getNumOperands() >= 3 &&
        Tag->getOperand(0) != Tag->getOperand(1))
      FieldTags.insert(Tag);
  };
  // Loaded through an iterator, a field's pointer is tagged only as "any
  // pointer"; another load of the same address may name the field.
  auto NoteLoadedField = [&](const LoadInst &LI) {
    NoteField(LI);
    if (AcrossModule)
      for (const User *U : LI.getPointerOperand()->users())
        if (auto *Other = dyn_cast<LoadInst>(U))
          NoteField(*Other);
  };
  if (auto *LI = dyn_cast<LoadInst>(Obj)) {
    AddLoadsOf(LI->getPointerOperand());
    NoteLoadedField(*LI);
    // And what is stored in the field: optimised code accesses the memory
    // through the stored pointer itself (GVN forwards it), and loads the
    // field again only to pass it on (a std::vector's begin() to
    // _M_range_insert).
    for (const User *U : LI->getPointerOperand()->users())
      if (auto *SI = dyn_cast<StoreInst>(U);
          SI && SI->getPointerOperand() == LI->getPointerOperand() &&
          SI->getValueOperand()->getType() == Obj->getType()) {
        const Value *Stored = getUnderlyingObject(SI->getValueOperand());
        if (!isa<Constant>(Stored) && Seen.insert(Stored).second)
          Work.push_back(Stored);
      }
  }
  // A choice between such pointers (GVN merges the loads of two paths).
  if (AcrossModule && (isa<PHINode>(Obj) || isa<SelectInst>(Obj))) {
    SmallVector<const Value *, 4> Objects;
    getUnderlyingObjects(Ptr, Objects);
    for (const Value *O : Objects)
      if (auto *LI = dyn_cast<LoadInst>(O))
        NoteLoadedField(*LI);
  }
  for (const User *U : Obj->users())
    if (auto *SI = dyn_cast<StoreInst>(U); SI && SI->getValueOperand() == Obj) {
      AddLoadsOf(SI->getPointerOperand());
      NoteField(*SI);
    }
  if (F && !FieldTags.empty())
    for (const Instruction &I : instructions(*F))
      if (auto *Other = dyn_cast<LoadInst>(&I);
          Other && Other->getType() == Obj->getType() &&
          FieldTags.contains(Other->getMetadata(LLVMContext::MD_tbaa)) &&
          Seen.insert(Other).second)
        Work.push_back(Other);
  // Other functions' loads of the same declared field, when this one only
  // copies through it: std::vector<double>'s operator= moves the elements
  // with memmove between pointers loaded from _M_start; the function that
  // indexes the vector reads them as doubles.
  if (AcrossModule && F && !FieldTags.empty())
    for (const Function &G : *F->getParent())
      if (&G != F)
        for (const Instruction &I : instructions(G))
          if (auto *Other = dyn_cast<LoadInst>(&I);
              Other && Other->getType() == Obj->getType() &&
              FieldTags.contains(Other->getMetadata(LLVMContext::MD_tbaa)) &&
              Seen.insert(Other).second)
            Work.push_back(Other);
  // Accesses that show no floating-point data or pointers in the copied
  // bytes must cover all of them to say so: a std::map node's key, read
  // where a copy also moves the value next to it (a zero derivative,
  // silently, before). Known where each access's offset is.
  SmallVector<std::pair<int64_t, int64_t>, 8> Covered;
  bool CoverageUnknown = false, SawKind = false;
  auto NoteAccess = [&](const Value *Base, Type *AccessTy) {
    SmallPtrSet<Type *, 4> Kinds;
    collectCopiedKinds(AccessTy, Kinds);
    SawKind |= !Kinds.empty();
    Out.insert(Kinds.begin(), Kinds.end());
    Typed = true;
    auto It = OffsetOf.find(Base);
    if (It == OffsetOf.end() || !It->second) {
      CoverageUnknown = true;
      return;
    }
    int64_t Begin = *It->second;
    Covered.push_back({Begin, Begin + int64_t(DL->getTypeStoreSize(AccessTy))});
  };
  while (!Work.empty()) {
    const Value *V = Work.pop_back_val();
    for (const User *U : V->users()) {
      if (auto *LI = dyn_cast<LoadInst>(U)) {
        if (SaysNothing(*LI, LI->getType()) || OutsideCopy(V, LI->getType()))
          continue;
        NoteAccess(V, LI->getType());
      } else if (auto *SI = dyn_cast<StoreInst>(U);
                 SI && SI->getPointerOperand() == V) {
        Type *T = SI->getValueOperand()->getType();
        if (SaysNothing(*SI, T) || OutsideCopy(V, T))
          continue;
        NoteAccess(V, T);
      } else if (auto *GEP = dyn_cast<GetElementPtrInst>(U)) {
        if (auto It = OffsetOf.find(V); It != OffsetOf.end() && It->second) {
          APInt Off(DL->getIndexTypeSizeInBits(GEP->getType()), 0);
          OffsetOf[GEP] =
              GEP->accumulateConstantOffset(*DL, Off)
                  ? std::optional<int64_t>(*It->second + Off.getSExtValue())
                  : std::nullopt;
        }
        // An object with a union (std::function's storage) accessed
        // elsewhere: those accesses are at other offsets than the copy
        // may be, and the union's own bytes have no type.
        if (SawUnion && holdsUnion(GEP->getSourceElementType()))
          *SawUnion = true;
        collectFloatLeaves(GEP->getSourceElementType(), Out);
        // Pointer arithmetic over an array of pointers (the end of a
        // std::copy of a deque's map of node pointers, returned at -O0):
        // the memory holds pointers, as a floating-point element type says
        // it holds floating-point data.
        if (GEP->getSourceElementType()->isPointerTy())
          Out.insert(GEP->getSourceElementType());
        if (Seen.insert(GEP).second)
          Work.push_back(GEP);
      } else if ((isa<PHINode>(U) || isa<SelectInst>(U)) &&
                 Seen.insert(U).second) {
        Work.push_back(U);
      } else if (Type *T = wholeLocalCopiedWith(U, V)) {
        collectCopiedKinds(T, Out);
        Typed = true;
        CoverageUnknown = true; // a declared type: all of it
      }
    }
  }
  if (Typed && !SawKind && CopyBegin && !CoverageUnknown) {
    llvm::sort(Covered);
    int64_t Reached = *CopyBegin;
    for (auto [Begin, End] : Covered)
      if (Begin <= Reached)
        Reached = std::max(Reached, End);
    if (Reached < *CopyEnd)
      return false; // bytes no access here says anything of
  }
  return Typed;
}

} // namespace ad
