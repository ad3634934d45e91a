//===- ShadowMemory.cpp - allocating and copying shadow memory ------------===//
#include "ir/ShadowMemory.h"
#include "driver/DerivedFunctions.h"
#include "prepare/Activity.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/PatternMatch.h"

using namespace llvm;
using namespace llvm::PatternMatch;

namespace ad {

static constexpr StringLiteral ShadowLiveFn = "__ad_shadow_live";
static constexpr StringLiteral ElemMD = "ad.elem";
static constexpr StringLiteral CopiedTypeMD = "ad.copied.type";

static Type *intPtrTy(IRBuilderBase &B) {
  Module &M = *B.GetInsertBlock()->getModule();
  return M.getDataLayout().getIntPtrType(M.getContext());
}

Value *allocationSize(IRBuilderBase &B, CallBase &CB) {
  StringRef Name = CB.getCalledFunction()->getName();
  Type *SizeTy = intPtrTy(B);
  if (Name == "calloc")
    return B.CreateMul(B.CreateZExtOrTrunc(CB.getArgOperand(0), SizeTy),
                       B.CreateZExtOrTrunc(CB.getArgOperand(1), SizeTy));
  if (Name == "aligned_alloc")
    return B.CreateZExtOrTrunc(CB.getArgOperand(1), SizeTy);
  if (Name == "malloc" || Name.starts_with("_Znwm") ||
      Name.starts_with("_Znam"))
    return B.CreateZExtOrTrunc(CB.getArgOperand(0), SizeTy);
  return nullptr;
}

Value *emitShadowAllocation(IRBuilderBase &B, Value *Size) {
  Module &M = *B.GetInsertBlock()->getModule();
  Type *SizeTy = intPtrTy(B);
  FunctionCallee Calloc = M.getOrInsertFunction(
      "calloc", PointerType::getUnqual(M.getContext()), SizeTy, SizeTy);
  return B.CreateCall(Calloc, {ConstantInt::get(SizeTy, 1), Size});
}

static CallInst *callOnShadow(IRBuilderBase &B, StringRef Name, Value *Shadow) {
  Module &M = *B.GetInsertBlock()->getModule();
  FunctionCallee Fn =
      M.getOrInsertFunction(Name, Type::getVoidTy(M.getContext()),
                            PointerType::getUnqual(M.getContext()));
  return B.CreateCall(Fn, {Shadow});
}

CallInst *emitShadowLive(IRBuilderBase &B, Value *Shadow) {
  return callOnShadow(B, ShadowLiveFn, Shadow);
}

static bool calls(const Instruction &I, StringRef Name) {
  auto *CI = dyn_cast<CallInst>(&I);
  const Function *F = CI ? CI->getCalledFunction() : nullptr;
  return F && F->getName() == Name;
}

bool isShadowLive(const Instruction &I) { return calls(I, ShadowLiveFn); }

CallInst *emitShadowFree(IRBuilderBase &B, Value *Shadow) {
  return callOnShadow(B, "free", Shadow);
}

bool isShadowFree(const Instruction &I) { return calls(I, "free"); }

static constexpr StringLiteral ShadowFreedFn = "__ad_shadow_freed";

CallInst *emitShadowFreed(IRBuilderBase &B, Value *Shadow) {
  return callOnShadow(B, ShadowFreedFn, Shadow);
}

CallInst *emitShadowRelease(IRBuilderBase &B, Value *Shadow) {
  return callOnShadow(B, "__ad_shadow_release", Shadow);
}

Value *emitShadowFreesBegin(IRBuilderBase &B) {
  Module &M = *B.GetInsertBlock()->getModule();
  Function *NotesFrees = M.getFunction(ShadowFreedFn);
  if (!NotesFrees || NotesFrees->use_empty())
    return nullptr;
  return B.CreateCall(
      M.getOrInsertFunction("__ad_shadow_frees_begin", intPtrTy(B)));
}

void emitShadowFreesEnd(IRBuilderBase &B, Value *Mark) {
  Module &M = *B.GetInsertBlock()->getModule();
  B.CreateCall(M.getOrInsertFunction("__ad_shadow_frees_end", B.getVoidTy(),
                                     Mark->getType()),
               {Mark});
}

/// Scalar floating-point types inside \p T.
static void collectFloatLeaves(Type *T, SmallPtrSetImpl<Type *> &Out) {
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

/// What a copy of memory of type \p T moves: its floating-point types, and
/// \p T itself when it holds pointers (shadow pointers are not cotangents:
/// copies of memory holding pointers have no element-wise transpose).
static void collectCopiedKinds(Type *T, SmallPtrSetImpl<Type *> &Out) {
  collectFloatLeaves(T, Out);
  if (containsPointer(T))
    Out.insert(T);
}

/// collectCopiedKinds for bytes [\p Begin, \p End) of \p T only: a copy
/// of the double[4] that starts a struct also holding a pointer moves only
/// doubles.
static void collectCopiedKindsIn(Type *T, uint64_t Begin, uint64_t End,
                                 const DataLayout &DL,
                                 SmallPtrSetImpl<Type *> &Out) {
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

/// The floating-point types the memory of \p Ptr's underlying object is
/// declared or accessed with in this function. False when its type is not
/// known from a declaration (an argument or heap memory with no typed
/// access here). With \p AcrossModule, a pointer kept in a declared field
/// (clang's struct-path TBAA tag names it) that nothing here reads through
/// is typed by what the module's other functions read through that field.
static bool collectAccessTypes(Value *Ptr, SmallPtrSetImpl<Type *> &Out,
                               bool *SawUnion = nullptr,
                               const Value *Len = nullptr,
                               bool AcrossModule = false) {
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

/// At -O0 a parameter comes back from the stack slot it is spilled to.
static const Value *throughSpillSlot(const Value *V) {
  auto *LI = dyn_cast<LoadInst>(V);
  auto *Slot = LI ? dyn_cast<AllocaInst>(LI->getPointerOperand()) : nullptr;
  if (!Slot)
    return V;
  for (const User *U : Slot->users())
    if (auto *SI = dyn_cast<StoreInst>(U); SI &&
                                           SI->getPointerOperand() == Slot &&
                                           isa<Argument>(SI->getValueOperand()))
      return SI->getValueOperand();
  return V;
}

const Argument *returnedParameter(const Function &F) {
  if (F.isDeclaration())
    return nullptr;
  const Argument *Returned = nullptr;
  for (const BasicBlock &BB : F)
    if (auto *Ret = dyn_cast<ReturnInst>(BB.getTerminator())) {
      auto *A =
          Ret->getReturnValue()
              ? dyn_cast<Argument>(throughSpillSlot(Ret->getReturnValue()))
              : nullptr;
      if (!A || (Returned && A != Returned))
        return nullptr;
      Returned = A;
    }
  return Returned;
}

/// The function whose callers pass \p A: in f.jvp, f's parameters come
/// first, and f's callers are what matter.
static const Function &callersFunctionOf(const Argument &A) {
  const Function *F = A.getParent();
  if (auto Info = getDerivedInfo(*F))
    F = Info->Primal;
  return *F;
}

/// The element type \p Step advances pointer \p Base by, when it is
/// pointer arithmetic on it (++p or p + n of a T *: a one-index GEP over
/// T). Byte steps (i8) say nothing of what is there.
static Type *stepElementType(const Value *Step, const Value *Base) {
  auto *GEP = dyn_cast<GetElementPtrInst>(Step);
  if (!GEP || GEP->getNumIndices() != 1 || GEP->getPointerOperand() != Base)
    return nullptr;
  Type *T = GEP->getSourceElementType();
  return T->isSized() && !T->isIntegerTy(8) ? T : nullptr;
}

/// Records \p T, an element type a pointer is stepped by, in \p Elem;
/// false when another was recorded before (then nothing is known).
static bool noteStep(Type *T, Type *&Elem) {
  if (Elem && T && Elem != T)
    return false;
  if (T)
    Elem = T;
  return true;
}

/// The element type of the array that \p V walks when it is a cursor: a
/// pointer loaded from a local that the code steps by one type (++p of a
/// T * at -O0, std::__relocate_a_1's loop), or a PHI so stepped.
static Type *steppedElementType(const Value *V) {
  Type *Elem = nullptr;
  if (auto *LI = dyn_cast<LoadInst>(V)) {
    auto *Slot = dyn_cast<AllocaInst>(LI->getPointerOperand());
    if (!Slot)
      return nullptr;
    for (const User *U : Slot->users())
      if (auto *SI = dyn_cast<StoreInst>(U);
          SI && SI->getPointerOperand() == Slot)
        if (auto *GEP = dyn_cast<GetElementPtrInst>(SI->getValueOperand()))
          if (auto *Base = dyn_cast<LoadInst>(GEP->getPointerOperand());
              Base && Base->getPointerOperand() == Slot &&
              !noteStep(stepElementType(GEP, Base), Elem))
            return nullptr;
  } else if (auto *Phi = dyn_cast<PHINode>(V)) {
    for (const Value *In : Phi->incoming_values())
      if (!noteStep(stepElementType(In, Phi), Elem))
        return nullptr;
  }
  return Elem;
}

/// The struct type and field of \p Field when it is the address of a field,
/// in unoptimised code's own form: getelementptr %S, ptr %p, 0, K.
static std::optional<std::pair<StructType *, uint64_t>>
fieldOf(const Value *Field) {
  auto *GEP = dyn_cast<GetElementPtrInst>(Field);
  auto *S = GEP ? dyn_cast<StructType>(GEP->getSourceElementType()) : nullptr;
  if (!S || GEP->getNumIndices() != 2 || !match(GEP->getOperand(1), m_Zero()))
    return std::nullopt;
  auto *K = dyn_cast<ConstantInt>(GEP->getOperand(2));
  if (!K)
    return std::nullopt;
  return std::make_pair(S, K->getZExtValue());
}

/// At -O0, what the pointer field that \p V is loaded from (directly, or
/// returned by an accessor such as a C++ iterator's operator*) points to:
/// the element type the module's code steps pointers loaded from that
/// field of that struct type by (operator+ of the iterator, a one-index
/// GEP over the element). std::sort's heap and insertion steps at -O0 copy
/// elements between the references operator* returns.
static Type *fieldElementType(const Value *V) {
  // Linearized already: the primal half of the accessor's JVP.
  if (auto *EV = dyn_cast<ExtractValueInst>(V);
      EV && EV->getNumIndices() == 1 && EV->getIndices()[0] == 0 &&
      isa<CallBase>(EV->getAggregateOperand()))
    V = EV->getAggregateOperand();
  if (auto *CB = dyn_cast<CallBase>(V)) {
    const Function *Callee = CB->getCalledFunction();
    if (Callee)
      if (auto Info = getDerivedInfo(*Callee))
        Callee = Info->Primal;
    if (!Callee || Callee->isDeclaration())
      return nullptr;
    const Value *Returned = nullptr;
    for (const BasicBlock &BB : *Callee)
      if (auto *Ret = dyn_cast<ReturnInst>(BB.getTerminator())) {
        if (!Ret->getReturnValue() ||
            (Returned && Returned != Ret->getReturnValue()))
          return nullptr;
        Returned = Ret->getReturnValue();
      }
    V = Returned;
  }
  auto *LI = dyn_cast_or_null<LoadInst>(V);
  auto Field = LI ? fieldOf(LI->getPointerOperand()) : std::nullopt;
  if (!Field)
    return nullptr;
  Type *Elem = nullptr;
  for (const Function &F : *LI->getModule())
    for (const Instruction &I : instructions(F)) {
      if (fieldOf(&I) != Field)
        continue;
      for (const User *U : I.users()) {
        auto *Load = dyn_cast<LoadInst>(U);
        if (!Load || !Load->getType()->isPointerTy())
          continue;
        for (const User *Step : Load->users())
          if (!noteStep(stepElementType(Step, Load), Elem))
            return nullptr;
      }
    }
  return Elem;
}

/// Adds \p Kinds to \p Found as collectPassedObjectTypes reports them:
/// data holding pointers as one kind, ptr (a member's type may be its
/// class's ".base" variant, another IR name for the same class).
static void insertPassedKinds(const SmallPtrSetImpl<Type *> &Kinds,
                              SmallPtrSetImpl<Type *> &Found,
                              LLVMContext &Ctx) {
  for (Type *K : Kinds)
    Found.insert(K->isFloatingPointTy() ? K : PointerType::getUnqual(Ctx));
}

/// How many calls up collectPassedObjectTypes follows a parameter. A
/// value std::map::insert is given reaches the copy that constructs its
/// node seven calls down at -O0 (_M_emplace_unique, _Auto_node,
/// _M_create_node, _M_construct_node, allocator_traits::construct,
/// __new_allocator::construct).
static constexpr unsigned CallerDepth = 8;

/// The types in what every call of \p F passes as parameter \p ArgNo, if
/// each passes a local or a member (a GEP) of at least \p Bytes bytes, or
/// what its own caller passed (its parameter, or what a function that
/// returns its parameter was given), up to \p Depth calls up. Data
/// holding pointers counts as one kind, ptr: a member's type may be its
/// class's ".base" variant, another IR name for the same class. With
/// \p Bytes unknown (a copy whose length varies, such as std::valarray's
/// element copy at -O0), only objects made of floating-point data alone
/// count: whatever part is copied, that is what moves.
static bool collectPassedObjectTypes(const Function &F, unsigned ArgNo,
                                     std::optional<uint64_t> Bytes,
                                     unsigned Depth,
                                     SmallPtrSetImpl<Type *> &Found) {
  if (ArgNo >= F.arg_size())
    return false;
  const DataLayout &DL = F.getDataLayout();
  bool SawCaller = false;
  for (const Use &U : F.uses()) {
    auto *CB = dyn_cast<CallBase>(U.getUser());
    if (!CB || !CB->isCallee(&U))
      return false;
    // Calls in derived code and in the copies being differentiated are
    // copies of calls in the user's functions, with the member addresses
    // simplified away (a GEP to the first member is its object's address).
    const Function *Caller = CB->getFunction();
    if (getDerivedInfo(*Caller) || Caller->getName().ends_with(".ad.src"))
      continue;
    SawCaller = true;
    // Before and after a spill slot: a cursor's slot holds the parameter it
    // starts from and its steps.
    const Value *Passed = CB->getArgOperand(ArgNo);
    const Value *Arg = throughSpillSlot(Passed);
    for (unsigned Hop = 0; Hop < 4; ++Hop) {
      auto *Inner = dyn_cast<CallBase>(Arg);
      const Function *Callee = Inner ? Inner->getCalledFunction() : nullptr;
      const Argument *Through = Callee ? returnedParameter(*Callee) : nullptr;
      if (!Through)
        break;
      Passed = Inner->getArgOperand(Through->getArgNo());
      Arg = throughSpillSlot(Passed);
    }
    Type *T = nullptr;
    if (auto *Param = dyn_cast<Argument>(Arg)) {
      SmallPtrSet<Type *, 4> FromCallers;
      if (Depth && collectPassedObjectTypes(*Caller, Param->getArgNo(), Bytes,
                                            Depth - 1, FromCallers)) {
        Found.insert(FromCallers.begin(), FromCallers.end());
        continue;
      }
      // Where the callers do not tell (they pass a pointer loaded from a
      // std::vector's fields), a cursor's steps do: the elements a
      // relocation loop moves one by one.
      T = steppedElementType(Passed);
      if (!T)
        return false;
    } else if (auto *AI = dyn_cast<AllocaInst>(Arg);
               AI && !AI->isArrayAllocation())
      T = AI->getAllocatedType();
    else if (auto *GEP = dyn_cast<GetElementPtrInst>(Arg);
             GEP && GEP->getNumIndices() >= 2)
      T = GEP->getResultElementType();
    else
      T = steppedElementType(Passed);
    // A pointer the caller loaded from a field, or its own heap memory (a
    // std::vector's begin() passed to _M_range_insert, at -O1 and once
    // SROA took the vector apart): what the caller reads and writes
    // through it, or through that field, is what it points to.
    if (auto *Computed = dyn_cast<Instruction>(Arg); !T && Computed) {
      SmallPtrSet<Type *, 4> Accessed;
      bool SawUnion = false;
      // Only integers seen there say nothing of the bytes not read.
      if (!collectAccessTypes(const_cast<Instruction *>(Computed), Accessed,
                              &SawUnion) ||
          SawUnion || Accessed.empty())
        return false;
      insertPassedKinds(Accessed, Found, F.getContext());
      continue;
    }
    // A base-class subobject is copied without its tail padding, which a
    // derived class may reuse: the copy can be shorter than the type, and
    // what the whole type holds is a superset of what is copied.
    if (!T || !T->isSized() || holdsUnion(T))
      return false;
    if (Bytes ? DL.getTypeAllocSize(T) < *Bytes : hasNonFloatLeaf(T))
      return false;
    // What the copied bytes (all of T when the length is unknown) hold.
    SmallPtrSet<Type *, 4> Kinds;
    collectCopiedKindsIn(T, 0, Bytes ? *Bytes : DL.getTypeAllocSize(T), DL,
                         Kinds);
    insertPassedKinds(Kinds, Found, F.getContext());
  }
  return SawCaller;
}

/// When \p Ptr is a parameter: the types in the objects its callers pass
/// (collectPassedObjectTypes). A copy constructor that copies its whole
/// object with memcpy (Eigen's expressions at -O0) sees two untyped
/// pointers; its callers see the class. False otherwise.
static bool collectCallerObjectTypes(Value *Ptr, Value *Len,
                                     SmallPtrSetImpl<Type *> &Out) {
  auto *A = dyn_cast<Argument>(Ptr);
  if (!A)
    return false;
  std::optional<uint64_t> Bytes;
  if (auto *C = dyn_cast<ConstantInt>(Len))
    Bytes = C->getZExtValue();
  SmallPtrSet<Type *, 4> Found;
  if (!collectPassedObjectTypes(callersFunctionOf(*A), A->getArgNo(), Bytes,
                                CallerDepth, Found))
    return false;
  Out.insert(Found.begin(), Found.end());
  return true;
}

/// Whether \p Ptr points into a local that holds a union (a
/// std::function's storage), or is a parameter that a caller gives such a
/// local (up to \p Depth calls up): which of its members the bytes are is
/// not in any type, and accesses elsewhere in the other side's object do
/// not say either (a std::function pushed into a vector: its captured
/// double moved as a pointer, a zero gradient).
static bool pointsIntoUnion(const Value *Ptr, unsigned Depth = 4) {
  // Every object a choice or a loop's cursor may point to: collectAccessTypes
  // types a copy through them by those objects' accesses.
  SmallVector<const Value *, 4> Objects;
  getUnderlyingObjects(Ptr, Objects);
  return llvm::any_of(Objects, [&](const Value *Obj) {
    if (auto *AI = dyn_cast<AllocaInst>(Obj))
      return holdsUnion(AI->getAllocatedType());
    auto *A = dyn_cast<Argument>(Obj);
    if (!A || !Depth)
      return false;
    return llvm::any_of(callersFunctionOf(*A).uses(), [&](const Use &U) {
      auto *CB = dyn_cast<CallBase>(U.getUser());
      return CB && CB->isCallee(&U) && A->getArgNo() < CB->arg_size() &&
             pointsIntoUnion(throughSpillSlot(CB->getArgOperand(A->getArgNo())),
                             Depth - 1);
    });
  });
}

std::optional<Type *> inferShadowElementType(MemTransferInst &MT,
                                             UntypedCopy *Why) {
  if (Why)
    *Why = UntypedCopy::Unknown;
  SmallPtrSet<Type *, 2> Types;
  // Either side's object typed here (both are collected: they must agree);
  // else the member PrepareSource saw copied; else the callers' objects;
  // else the field types clang tagged the copy with. Nothing types a copy
  // to or from an object holding a union.
  bool SawUnion = false;
  bool Typed =
      collectAccessTypes(MT.getRawDest(), Types, &SawUnion, MT.getLength());
  Typed |=
      collectAccessTypes(MT.getRawSource(), Types, &SawUnion, MT.getLength());
  if (SawUnion || pointsIntoUnion(MT.getRawDest()) ||
      pointsIntoUnion(MT.getRawSource())) {
    // Unless clang made the copy as one of the members and tagged its
    // fields: std::function's manager cloning the closure it keeps in its
    // union, a lambda holding two references (two pointers).
    SmallPtrSet<Type *, 2> Tagged;
    if (collectTbaaStructKinds(MT, Tagged) && Tagged.size() <= 1)
      return Tagged.empty() ? nullptr : *Tagged.begin();
    if (Why)
      *Why = UntypedCopy::Union;
    return std::nullopt;
  }
  if (MDNode *MD = MT.getMetadata(CopiedTypeMD); MD && !Typed) {
    collectCopiedKinds(cast<ConstantAsMetadata>(MD->getOperand(0))->getType(),
                       Types);
    Typed = true;
  }
  if (!Typed)
    for (Value *Side : {MT.getRawDest(), MT.getRawSource()})
      Typed |= collectCallerObjectTypes(Side, MT.getLength(), Types);
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
  if (!Typed)
    Typed = collectTbaaStructKinds(MT, Types);
  // Pointer data of any shape (a pointer, an iterator holding one) is
  // copied the same way: as addresses. The sides may show it differently
  // (a local's field, a whole local copied into).
  SmallPtrSet<Type *, 2> Kinds;
  for (Type *T : Types)
    Kinds.insert(containsPointer(T) && !hasFloatLeaf(T)
                     ? PointerType::getUnqual(MT.getContext())
                     : T);
  Types = std::move(Kinds);
  if (Types.size() > 1) {
    if (Why)
      *Why = UntypedCopy::Mixed;
    return std::nullopt;
  }
  if (Types.size() == 1)
    return *Types.begin();
  if (Typed)
    return nullptr; // typed memory without floating-point data
  if (Type *T = tbaaFloatType(MT))
    return T;
  return std::nullopt;
}

void tagShadowElementType(Instruction &Copy, Type *Elem) {
  Copy.setMetadata(
      ElemMD, MDNode::get(Copy.getContext(),
                          {ConstantAsMetadata::get(PoisonValue::get(Elem))}));
}

CallInst *emitCopyTranspose(IRBuilderBase &B, const MemTransferInst &Copy,
                            Value *Dst, Value *Src, Value *Len) {
  MDNode *MD = Copy.getMetadata(ElemMD);
  assert(MD && "linear copy without element type");
  Type *Elem = cast<ConstantAsMetadata>(MD->getOperand(0))->getType();
  std::string Name = (isa<MemMoveInst>(Copy) ? "__ad_memmove_adjoint_"
                                             : "__ad_memcpy_adjoint_");
  Name += Elem->isFloatTy() ? "f32" : "f64";
  Module &M = *B.GetInsertBlock()->getModule();
  Type *Ptr = PointerType::getUnqual(M.getContext());
  Type *SizeTy = intPtrTy(B);
  FunctionCallee Fn = M.getOrInsertFunction(
      Name, Type::getVoidTy(M.getContext()), Ptr, Ptr, SizeTy);
  return B.CreateCall(Fn, {Dst, Src, B.CreateZExtOrTrunc(Len, SizeTy)});
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
