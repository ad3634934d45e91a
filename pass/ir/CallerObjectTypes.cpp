//===- CallerObjectTypes.cpp - memory types from a parameter's callers ----===//
#include "ir/CallerObjectTypes.h"
#include "driver/DerivedFunctions.h"
#include "ir/AccessTypes.h"
#include "ir/MemoryTypes.h"
#include "prepare/Activity.h"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/PatternMatch.h"

using namespace llvm;
using namespace llvm::PatternMatch;

namespace ad {

const Value *throughSpillSlot(const Value *V) {
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

std::optional<SmallVector<const LoadInst *, 4>>
spillSlotReloads(const StoreInst &SI) {
  auto *Slot = dyn_cast<AllocaInst>(SI.getPointerOperand());
  if (!Slot)
    return std::nullopt;
  SmallVector<const LoadInst *, 4> Reloads;
  for (const User *U : Slot->users()) {
    if (U == &SI)
      continue;
    auto *LI = dyn_cast<LoadInst>(U);
    if (!LI)
      return std::nullopt;
    Reloads.push_back(LI);
  }
  return Reloads;
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

const Function &callersFunctionOf(const Argument &A) {
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

Type *fieldElementType(const Value *V) {
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

/// What \p Passed stands for in the caller: the value behind its spill
/// slot (at -O0), and behind calls of functions that return their
/// parameter (std::move), up to four deep. \p Passed becomes the last
/// value passed, before its spill slot: a cursor's slot holds the
/// parameter it starts from and its steps, which steppedElementType reads.
static const Value *throughReturnedParameters(const Value *&Passed) {
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
  return Arg;
}

/// The type a caller declares the object \p Arg with: a local, or a member
/// (a GEP into a struct or array), or null.
static Type *declaredObjectType(const Value *Arg) {
  if (auto *AI = dyn_cast<AllocaInst>(Arg); AI && !AI->isArrayAllocation())
    return AI->getAllocatedType();
  if (auto *GEP = dyn_cast<GetElementPtrInst>(Arg);
      GEP && GEP->getNumIndices() >= 2)
    return GEP->getResultElementType();
  return nullptr;
}

namespace {
/// collectPassedObjectTypes for one parameter: the kinds each call passes,
/// added to Found. Each add returns false when that call's object is not
/// known, and then nothing is.
struct PassedObjects {
  const Function &F;
  std::optional<uint64_t> Bytes;
  unsigned Depth;
  SmallPtrSetImpl<Type *> &Found;

  bool addPassed(const CallBase &CB, const Value *Passed);
  bool addFromCallersOf(const Function &Caller, const Argument &Param,
                        const Value *Passed);
  bool addAccessedKinds(const Instruction &Computed);
  bool addObjectKinds(Type *T);
};
} // namespace

bool PassedObjects::addPassed(const CallBase &CB, const Value *Passed) {
  const Value *Arg = throughReturnedParameters(Passed);
  if (auto *Param = dyn_cast<Argument>(Arg))
    return addFromCallersOf(*CB.getFunction(), *Param, Passed);
  Type *T = declaredObjectType(Arg);
  if (!T)
    T = steppedElementType(Passed);
  if (auto *Computed = dyn_cast<Instruction>(Arg); !T && Computed)
    return addAccessedKinds(*Computed);
  return addObjectKinds(T);
}

/// The caller passes its own parameter on: what its callers pass.
bool PassedObjects::addFromCallersOf(const Function &Caller,
                                     const Argument &Param,
                                     const Value *Passed) {
  SmallPtrSet<Type *, 4> FromCallers;
  if (Depth && collectPassedObjectTypes(Caller, Param.getArgNo(), Bytes,
                                        Depth - 1, FromCallers)) {
    Found.insert(FromCallers.begin(), FromCallers.end());
    return true;
  }
  // Where the callers do not tell (they pass a pointer loaded from a
  // std::vector's fields), a cursor's steps do: the elements a relocation
  // loop moves one by one.
  return addObjectKinds(steppedElementType(Passed));
}

/// A pointer the caller loaded from a field, or its own heap memory (a
/// std::vector's begin() passed to _M_range_insert, at -O1 and once SROA
/// took the vector apart): what the caller reads and writes through it, or
/// through that field, is what it points to.
bool PassedObjects::addAccessedKinds(const Instruction &Computed) {
  SmallPtrSet<Type *, 4> Accessed;
  bool SawUnion = false;
  // Only integers seen there say nothing of the bytes not read.
  if (!collectAccessTypes(const_cast<Instruction *>(&Computed), Accessed,
                          &SawUnion) ||
      SawUnion || Accessed.empty())
    return false;
  insertPassedKinds(Accessed, Found, F.getContext());
  return true;
}

/// An object of type \p T: what its copied bytes (all of T when the
/// length is unknown) hold.
bool PassedObjects::addObjectKinds(Type *T) {
  const DataLayout &DL = F.getDataLayout();
  // A base-class subobject is copied without its tail padding, which a
  // derived class may reuse: the copy can be shorter than the type, and
  // what the whole type holds is a superset of what is copied.
  if (!T || !T->isSized() || holdsUnion(T))
    return false;
  if (Bytes ? DL.getTypeAllocSize(T) < *Bytes : hasNonFloatLeaf(T))
    return false;
  SmallPtrSet<Type *, 4> Kinds;
  collectCopiedKindsIn(T, 0, Bytes ? *Bytes : DL.getTypeAllocSize(T), DL,
                       Kinds);
  insertPassedKinds(Kinds, Found, F.getContext());
  return true;
}

bool collectPassedObjectTypes(const Function &F, unsigned ArgNo,
                              std::optional<uint64_t> Bytes, unsigned Depth,
                              SmallPtrSetImpl<Type *> &Found) {
  if (ArgNo >= F.arg_size())
    return false;
  PassedObjects Objects{F, Bytes, Depth, Found};
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
    if (!Objects.addPassed(*CB, CB->getArgOperand(ArgNo)))
      return false;
  }
  return SawCaller;
}

bool collectCallerObjectTypes(Value *Ptr, Value *Len,
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

bool pointsIntoUnion(const Value *Ptr, unsigned Depth) {
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

} // namespace ad
