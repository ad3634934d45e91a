//===- AccessTypes.cpp - memory types from a function's accesses ----------===//
#include "ir/AccessTypes.h"
#include "ir/CallerObjectTypes.h"
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

namespace {
/// The walk collectAccessTypes makes from a pointer's underlying object
/// over the addresses derived from it, noting the type of every load and
/// store it reaches.
class AccessTypeWalk {
public:
  AccessTypeWalk(Value *Ptr, SmallPtrSetImpl<Type *> &Out, bool *SawUnion,
                 bool AcrossModule, bool IntoCallees);
  bool run(const Value *Len);

private:
  Value *Ptr;
  const Value *Obj;
  const Function *F = nullptr;
  const DataLayout *DL = nullptr;
  SmallPtrSetImpl<Type *> &Out;
  bool *SawUnion;
  bool AcrossModule, IntoCallees;
  // How many more callees' parameters the walk may follow: each is a walk
  // over the callee's uses of it.
  unsigned CalleeBudget = 32;
  // For a copy of a known length at a known offset in Obj: the bytes it
  // copies.
  std::optional<int64_t> CopyBegin, CopyEnd;
  // Whether each function the walk reaches is tagged at all: asked only of
  // untagged integer accesses, then once per function (a walk over it).
  DenseMap<const Function *, bool> Tagged;
  bool Typed = false;
  SmallVector<const Value *, 8> Work;
  SmallPtrSet<const Value *, 16> Seen;
  // For a copy of known bytes: the offset of each address reached from
  // Obj, where constant.
  DenseMap<const Value *, std::optional<int64_t>> OffsetOf;
  // Struct-path TBAA tags of the declared fields Obj is kept in.
  SmallPtrSet<const MDNode *, 2> FieldTags;
  // The byte ranges accesses cover, for accesses at known offsets.
  SmallVector<std::pair<int64_t, int64_t>, 8> Covered;
  bool CoverageUnknown = false, SawKind = false;

  void findCopiedBytes(const Value *Len);
  bool typeLocal(const AllocaInst &AI);
  void push(const Value *V);
  void addCursorObjects();
  void addPointersKeptInFields();
  void addLoadsOf(const Value *Field);
  void noteField(const Instruction &Access);
  void noteLoadedField(const LoadInst &LI);
  void addLoadsOfTaggedFields();
  void addTaggedLoadsIn(const Function &G);
  void walkUses();
  void visitUser(const Value *V, const User *U);
  void visitGEP(const Value *V, const GetElementPtrInst &GEP);
  void visitCallee(const Value *V, const CallBase &Call);
  void followSpillSlot(const Value *Param, const StoreInst &SI);
  bool typeByStructAddress(const Value *V, const GetElementPtrInst &GEP);
  bool saysNothing(const Instruction &Access, Type *T);
  bool outsideCopy(const Value *Base, Type *AccessTy) const;
  void noteAccess(const Value *Base, Type *AccessTy);
  bool coversCopiedBytes();
};
} // namespace

AccessTypeWalk::AccessTypeWalk(Value *Ptr, SmallPtrSetImpl<Type *> &Out,
                               bool *SawUnion, bool AcrossModule,
                               bool IntoCallees)
    : Ptr(Ptr), Obj(getUnderlyingObject(Ptr)), Out(Out), SawUnion(SawUnion),
      AcrossModule(AcrossModule), IntoCallees(IntoCallees) {
  if (auto *I = dyn_cast<Instruction>(Ptr))
    F = I->getFunction();
  else if (auto *A = dyn_cast<Argument>(Ptr))
    F = A->getParent();
  DL = F ? &F->getParent()->getDataLayout() : nullptr;
}

void AccessTypeWalk::findCopiedBytes(const Value *Len) {
  if (auto *N = dyn_cast_or_null<ConstantInt>(Len); N && DL) {
    APInt Off(DL->getIndexTypeSizeInBits(Ptr->getType()), 0);
    if (Ptr->stripAndAccumulateConstantOffsets(*DL, Off,
                                               /*AllowNonInbounds=*/true) ==
        Obj) {
      CopyBegin = Off.getSExtValue();
      CopyEnd = *CopyBegin + int64_t(N->getZExtValue());
    }
  }
}

static bool isDynamicByteBuffer(const AllocaInst &AI) {
  return !AI.isStaticAlloca() && AI.getAllocatedType()->isIntegerTy(8);
}

/// A local is typed by its declaration.
bool AccessTypeWalk::typeLocal(const AllocaInst &AI) {
  // A union's type names one member: it says nothing of the others. A
  // copy of one moves doubles or pointers as the program last stored,
  // which no transpose can tell apart (union {void *p; double d;}
  // swapped: a zero gradient, silently, before).
  if (holdsUnion(AI.getAllocatedType())) {
    if (SawUnion)
      *SawUnion = true;
    return false;
  }
  // A copy of known length at a known offset moves what lies there.
  if (CopyBegin && *CopyBegin >= 0 && !AI.isArrayAllocation())
    collectCopiedKindsIn(AI.getAllocatedType(), *CopyBegin, *CopyEnd, *DL, Out);
  else
    collectCopiedKinds(AI.getAllocatedType(), Out);
  return true;
}

bool AccessTypeWalk::run(const Value *Len) {
  findCopiedBytes(Len);
  // alloca() of a run-time size is declared as bytes, which says no more
  // than malloc's memory does: its accesses type it.
  if (auto *AI = dyn_cast<AllocaInst>(Obj); AI && !isDynamicByteBuffer(*AI))
    return typeLocal(*AI);
  Work.push_back(Obj);
  Seen.insert(Obj);
  addCursorObjects();
  if (CopyBegin)
    OffsetOf[Obj] = 0;
  addPointersKeptInFields();
  addLoadsOfTaggedFields();
  walkUses();
  if (Typed && !SawKind && CopyBegin && !CoverageUnknown &&
      !coversCopiedBytes())
    return false; // bytes no access here says anything of
  return Typed;
}

void AccessTypeWalk::push(const Value *V) {
  if (Seen.insert(V).second)
    Work.push_back(V);
}

/// A cursor that a loop advances (a phi of the start and the cursor moved
/// on: std::move of a run of elements into a buffer in std::stable_sort's
/// merge sort) is not itself accessed as anything; the objects it walks
/// over are, through their other uses.
void AccessTypeWalk::addCursorObjects() {
  if (!isa<PHINode>(Obj) && !isa<SelectInst>(Obj))
    return;
  SmallVector<const Value *, 4> Objects;
  getUnderlyingObjects(Ptr, Objects);
  // Not constants (a null start): their other uses are anywhere.
  for (const Value *O : Objects)
    if (!isa<Constant>(O))
      push(O);
}

/// A pointer kept in memory (a field of a struct, at -O0 loaded again for
/// each use): what the loads of that field point to is the same memory,
/// written and read there with its types.
void AccessTypeWalk::addLoadsOf(const Value *Field) {
  for (const User *U : Field->users())
    if (auto *Other = dyn_cast<LoadInst>(U);
        Other && Other->getType() == Obj->getType())
      push(Other);
}

/// In optimised code a field is reached through a new address each time
/// (row i of a std::vector of vectors, stored in one loop and read in
/// another), but each access carries clang's struct-path TBAA tag, which
/// names the class and the field's offset: every load so tagged reads the
/// same declared field, whose pointers point to one type.
void AccessTypeWalk::noteField(const Instruction &Access) {
  const MDNode *Tag = Access.getMetadata(LLVMContext::MD_tbaa);
  if (Tag && Tag->getNumOperands() >= 3 &&
      Tag->getOperand(0) != Tag->getOperand(1))
    FieldTags.insert(Tag);
}

/// Loaded through an iterator, a field's pointer is tagged only as "any
/// pointer"; another load of the same address may name the field.
void AccessTypeWalk::noteLoadedField(const LoadInst &LI) {
  noteField(LI);
  if (AcrossModule)
    for (const User *U : LI.getPointerOperand()->users())
      if (auto *Other = dyn_cast<LoadInst>(U))
        noteField(*Other);
}

/// When Obj is a pointer loaded from a field, or stored into one: the
/// other loads of that field, and the fields' TBAA tags.
void AccessTypeWalk::addPointersKeptInFields() {
  if (auto *LI = dyn_cast<LoadInst>(Obj)) {
    addLoadsOf(LI->getPointerOperand());
    noteLoadedField(*LI);
    // And what is stored in the field: optimised code accesses the memory
    // through the stored pointer itself (GVN forwards it), and loads the
    // field again only to pass it on (a std::vector's begin() to
    // _M_range_insert).
    for (const User *U : LI->getPointerOperand()->users())
      if (auto *SI = dyn_cast<StoreInst>(U);
          SI && SI->getPointerOperand() == LI->getPointerOperand() &&
          SI->getValueOperand()->getType() == Obj->getType()) {
        const Value *Stored = getUnderlyingObject(SI->getValueOperand());
        if (!isa<Constant>(Stored))
          push(Stored);
      }
  }
  // A choice between such pointers (GVN merges the loads of two paths).
  if (AcrossModule && (isa<PHINode>(Obj) || isa<SelectInst>(Obj))) {
    SmallVector<const Value *, 4> Objects;
    getUnderlyingObjects(Ptr, Objects);
    for (const Value *O : Objects)
      if (auto *LI = dyn_cast<LoadInst>(O))
        noteLoadedField(*LI);
  }
  for (const User *U : Obj->users())
    if (auto *SI = dyn_cast<StoreInst>(U); SI && SI->getValueOperand() == Obj) {
      addLoadsOf(SI->getPointerOperand());
      noteField(*SI);
    }
}

void AccessTypeWalk::addTaggedLoadsIn(const Function &G) {
  for (const Instruction &I : instructions(G))
    if (auto *Other = dyn_cast<LoadInst>(&I);
        Other && Other->getType() == Obj->getType() &&
        FieldTags.contains(Other->getMetadata(LLVMContext::MD_tbaa)))
      push(Other);
}

/// Every load of the declared fields noted, here; and in the module's
/// other functions when this one only copies through it: std::vector<double>'s
/// operator= moves the elements with memmove between pointers loaded from
/// _M_start; the function that indexes the vector reads them as doubles.
void AccessTypeWalk::addLoadsOfTaggedFields() {
  if (!F || FieldTags.empty())
    return;
  addTaggedLoadsIn(*F);
  if (AcrossModule)
    for (const Function &G : *F->getParent())
      if (&G != F)
        addTaggedLoadsIn(G);
}

void AccessTypeWalk::walkUses() {
  while (!Work.empty()) {
    const Value *V = Work.pop_back_val();
    for (const User *U : V->users())
      visitUser(V, U);
  }
}

void AccessTypeWalk::visitUser(const Value *V, const User *U) {
  if (auto *LI = dyn_cast<LoadInst>(U)) {
    if (saysNothing(*LI, LI->getType()) || outsideCopy(V, LI->getType()))
      return;
    noteAccess(V, LI->getType());
  } else if (auto *SI = dyn_cast<StoreInst>(U);
             SI && SI->getPointerOperand() == V) {
    Type *T = SI->getValueOperand()->getType();
    if (saysNothing(*SI, T) || outsideCopy(V, T))
      return;
    noteAccess(V, T);
  } else if (auto *GEP = dyn_cast<GetElementPtrInst>(U)) {
    visitGEP(V, *GEP);
  } else if (isa<PHINode>(U) || isa<SelectInst>(U)) {
    push(U);
  } else if (Type *T = wholeLocalCopiedWith(U, V)) {
    collectCopiedKinds(T, Out);
    Typed = true;
    CoverageUnknown = true; // a declared type: all of it
  } else if (auto *Call = dyn_cast<CallBase>(U); Call && IntoCallees) {
    visitCallee(V, *Call);
  } else if (auto *SI = dyn_cast<StoreInst>(U); SI && isa<Argument>(V)) {
    followSpillSlot(V, *SI);
  }
}

/// At -O0 a callee keeps its parameter in a local slot stored once and
/// loads it again for each use: those loads are the parameter.
void AccessTypeWalk::followSpillSlot(const Value *Param, const StoreInst &SI) {
  if (!IntoCallees || SI.getFunction() == F)
    return;
  std::optional<SmallVector<const LoadInst *, 4>> Reloads =
      spillSlotReloads(SI);
  if (!Reloads)
    return;
  auto It = OffsetOf.find(Param);
  bool Known = It != OffsetOf.end();
  std::optional<int64_t> Offset = Known ? It->second : std::nullopt;
  for (const LoadInst *LI : *Reloads)
    if (LI->getType()->isPointerTy()) {
      if (Known)
        OffsetOf[LI] = Offset;
      push(LI);
    }
}

/// Memory passed to a function defined in the module is accessed there
/// through the parameter with the types it holds: a heap block filled by
/// a memcpy here and read as doubles only in the callees it is passed to.
void AccessTypeWalk::visitCallee(const Value *V, const CallBase &Call) {
  const Function *Callee = Call.getCalledFunction();
  if (!Callee || Callee->isDeclaration() || Callee->isVarArg())
    return;
  for (unsigned K = 0; K < Call.arg_size(); ++K) {
    if (Call.getArgOperand(K) != V || !CalleeBudget)
      continue;
    const Argument *Param = Callee->getArg(K);
    if (Seen.contains(Param))
      continue;
    --CalleeBudget;
    if (auto It = OffsetOf.find(V); It != OffsetOf.end()) {
      std::optional<int64_t> Offset = It->second;
      OffsetOf[Param] = Offset;
    }
    push(Param);
  }
}

void AccessTypeWalk::visitGEP(const Value *V, const GetElementPtrInst &GEP) {
  if (auto It = OffsetOf.find(V); It != OffsetOf.end() && It->second) {
    APInt Off(DL->getIndexTypeSizeInBits(GEP.getType()), 0);
    OffsetOf[&GEP] =
        GEP.accumulateConstantOffset(*DL, Off)
            ? std::optional<int64_t>(*It->second + Off.getSExtValue())
            : std::nullopt;
  }
  // An object with a union (std::function's storage) accessed elsewhere:
  // those accesses are at other offsets than the copy may be, and the
  // union's own bytes have no type.
  if (SawUnion && holdsUnion(GEP.getSourceElementType()))
    *SawUnion = true;
  // The struct's floating-point fields, unless the copied bytes are known
  // to lie within it: then only what lies there.
  if (!typeByStructAddress(V, GEP))
    collectFloatLeaves(GEP.getSourceElementType(), Out);
  // Pointer arithmetic over an array of pointers (the end of a std::copy of
  // a deque's map of node pointers, returned at -O0): the memory holds
  // pointers, as a floating-point element type says it holds floating-point
  // data.
  if (GEP.getSourceElementType()->isPointerTy())
    Out.insert(GEP.getSourceElementType());
  push(&GEP);
}

/// A field address computed from \p V as a struct (`gep %T, ptr V, 0, k`)
/// says that a %T lies at V, as a local's declaration says what it holds:
/// a copy of known bytes within it moves what the struct has there. An
/// object passed by reference whose copy constructor copies its first
/// fields with one memcpy (Eigen's Block of a Map: a pointer and a size,
/// at -O0) is typed by the fields the constructor addresses next.
bool AccessTypeWalk::typeByStructAddress(const Value *V,
                                         const GetElementPtrInst &GEP) {
  auto *ST = dyn_cast<StructType>(GEP.getSourceElementType());
  auto *First = dyn_cast<ConstantInt>(GEP.idx_begin()->get());
  auto It = OffsetOf.find(V);
  if (!ST || !ST->isSized() || !CopyBegin || !First || !First->isZero() ||
      It == OffsetOf.end() || !It->second || holdsUnion(ST))
    return false;
  // Not into its tail padding, where a derived class may keep a float.
  const StructLayout *SL = DL->getStructLayout(ST);
  unsigned Last = ST->getNumElements() - 1;
  int64_t FieldsEnd =
      ST->getNumElements()
          ? SL->getElementOffset(Last) +
                DL->getTypeStoreSize(ST->getElementType(Last)).getFixedValue()
          : 0;
  int64_t Begin = *CopyBegin - *It->second, End = *CopyEnd - *It->second;
  if (Begin < 0 || End > FieldsEnd)
    return false;
  collectCopiedKindsIn(ST, Begin, End, *DL, Out);
  Typed = true;
  CoverageUnknown = true; // a declared type: all of the copied bytes
  return true;
}

/// In optimised code clang tags every access of a scalar with its type
/// (TBAA); an untagged integer access is a lowered memcpy (a std::vector
/// moving its doubles as i64), which says nothing about the data. At -O0
/// nothing is tagged, and integer accesses are the program's own.
bool AccessTypeWalk::saysNothing(const Instruction &Access, Type *T) {
  const Function *In = Access.getFunction();
  if (!In || !T->isIntegerTy() || Access.hasMetadata(LLVMContext::MD_tbaa))
    return false;
  auto [It, New] = Tagged.try_emplace(In, false);
  if (New)
    It->second = llvm::any_of(instructions(*In), [](const Instruction &I) {
      return I.hasMetadata(LLVMContext::MD_tbaa);
    });
  return It->second;
}

/// An access that lies wholly outside the copied bytes says nothing of
/// them (an int field stored after doubles were copied into the array
/// before it; the copy was typed as integers and moved no derivative,
/// silently).
bool AccessTypeWalk::outsideCopy(const Value *Base, Type *AccessTy) const {
  auto It = OffsetOf.find(Base);
  if (!CopyBegin || It == OffsetOf.end() || !It->second)
    return false;
  int64_t Begin = *It->second;
  int64_t End = Begin + int64_t(DL->getTypeStoreSize(AccessTy));
  return End <= *CopyBegin || Begin >= *CopyEnd;
}

void AccessTypeWalk::noteAccess(const Value *Base, Type *AccessTy) {
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
}

/// Accesses that show no floating-point data or pointers in the copied
/// bytes must cover all of them to say so: a std::map node's key, read
/// where a copy also moves the value next to it (a zero derivative,
/// silently, before). Known where each access's offset is.
bool AccessTypeWalk::coversCopiedBytes() {
  llvm::sort(Covered);
  int64_t Reached = *CopyBegin;
  for (auto [Begin, End] : Covered)
    if (Begin <= Reached)
      Reached = std::max(Reached, End);
  return Reached >= *CopyEnd;
}

bool collectAccessTypes(Value *Ptr, SmallPtrSetImpl<Type *> &Out,
                        bool *SawUnion, const Value *Len, bool AcrossModule,
                        bool IntoCallees) {
  return AccessTypeWalk(Ptr, Out, SawUnion, AcrossModule, IntoCallees).run(Len);
}

} // namespace ad
