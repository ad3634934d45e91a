//===- LinearizeLoadStore.cpp - loads and stores of shadow memory ---------===//
//
// Through a pointer with a shadow (LinearizeShadows.cpp), the tangent of a
// load of floating-point data is the same load from the shadow, and a store
// stores the value's tangent into the shadow:
//   load p     ->  load shadow(p)            (linear)
//   store v, p ->  store dv, shadow(p)       (linear; dv = 0 for inactive v)
// A pointer stored into memory with a shadow stores its shadow into the
// shadow memory (non-linear: an address), where code that loads the pointer
// back finds it. The optimiser also moves doubles and pointers as integers
// (a generic swap, a std::unique_ptr's move, a small memset made a store):
// the shadow's bytes go along where they may be read back as floating-point
// data or pointers, and bytes whose kind cannot be told are an error rather
// than a dropped derivative.
//
//===----------------------------------------------------------------------===//
#include "LinearizeImpl.h"
#include "driver/Differentiator.h"
#include "ir/Linearity.h"
#include "ir/MemoryTypes.h"
#include "ir/TypeLeaves.h"

#include "llvm/IR/DataLayout.h"

using namespace llvm;

namespace ad {

void Linearizer::linearizeLoad(LoadInst &LI) {
  Type *T = LI.getType();
  Value *P = LI.getPointerOperand();
  if (isShadowed(P)) {
    // A struct mixing doubles and ints is not loaded as one value: its
    // shadow's int fields would be read as if they were tangents.
    if (!isDifferentiableType(T) || hasNonFloatLeaf(T)) {
      // A pointer loaded from active memory (a C++ vtable pointer, say) has
      // no shadow: reading or writing floating-point data through it is an
      // error (below and in linearizeStore), calling through it is fine.
      if (containsFloatingPoint(T))
        return fail(LI, "cannot differentiate a load of a whole struct or "
                        "array value: not supported yet");
      if (T->isIntegerTy())
        linearizeIntegerLoad(LI, P);
      return; // integers: no tangent
    }
    Value *S = shadowOf(P, LI);
    if (!S)
      return;
    auto *DL = cast<LoadInst>(LI.clone());
    DL->setOperand(0, S);
    DL->setName(LI.getName() + ".d");
    DL->insertAfter(&LI);
    markLinear(DL);
    Tangent[&LI] = DL;
    return;
  }
  if (containsFloatingPoint(T) && !isInactiveMemory(P) &&
      (!Varied.empty() || !Shadowed.empty()))
    return fail(LI, "cannot differentiate a read of memory whose derivatives "
                    "are unknown (" +
                        unknownMemory(P, D.rules()) + "): not supported yet");
}

/// The optimiser moves doubles and pointers as integers: an 8-byte memcpy
/// (a generic swap) becomes an i64 load and store, a std::unique_ptr is
/// moved as its bits. When such a load's bits are stored, the shadow
/// memory's bytes move with them, read here (before the memory may
/// change): a tangent, linear, for floating-point data; the shadow
/// pointer's bits, non-linear, for pointers. Integer data needs nothing;
/// bytes of unknown kind the size of a float, double or pointer are an
/// error when they are stored into memory with a shadow.
void Linearizer::linearizeIntegerLoad(LoadInst &LI, Value *P) {
  bool Stored = false, StoredWithShadow = false, Reinterpreted = false;
  for (const User *U : LI.users()) {
    if (auto *SI = dyn_cast<StoreInst>(U); SI && SI->getValueOperand() == &LI) {
      Stored = true;
      StoredWithShadow |= isShadowed(SI->getPointerOperand());
    }
    Reinterpreted |= isa<BitCastInst>(U) && U->getType()->isFloatingPointTy();
  }
  if ((!Stored && !Reinterpreted) || LI.isAtomic() || LI.isVolatile())
    return;
  const DataLayout &DL = LI.getDataLayout();
  uint64_t Bytes = DL.getTypeStoreSize(LI.getType());
  std::optional<Type *> Kind = inferIntegerAccessBits(LI, P, Bytes);
  // Where the bytes go may tell what they are when where they come from
  // does not (doubles copied as uint64_t out of a parameter whose callers
  // are unknown, into a caller's double array).
  if (!Kind || !*Kind)
    for (const User *U : LI.users())
      if (auto *SI = dyn_cast<StoreInst>(U);
          SI && SI->getValueOperand() == &LI &&
          isShadowed(SI->getPointerOperand()) &&
          holdsOnlyFloatingPoint(SI->getPointerOperand()))
        if (std::optional<Type *> To = inferIntegerAccessBits(
                *SI, const_cast<Value *>(SI->getPointerOperand()), Bytes);
            To && *To && (*To)->isFloatingPointTy())
          Kind = To;
  // Bytes the size of a float, double or pointer, of a kind nothing
  // tells: moving them as an integer could drop a derivative or a shadow.
  if (!Kind && StoredWithShadow && (Bytes == 4 || Bytes == 8))
    return fail(LI, "cannot differentiate: data is moved as an integer "
                    "between memory that carries derivatives, and whether "
                    "it is floating-point data, a pointer or an integer "
                    "cannot be told here: not supported yet; copy it "
                    "through a variable of its type");
  // Part of a floating-point value (a byte-wise copy or swap, a generic
  // sort's element move): its derivative cannot move in pieces.
  if (Kind && *Kind && (*Kind)->isFloatingPointTy() &&
      DL.getTypeStoreSize(*Kind) != Bytes && StoredWithShadow &&
      holdsOnlyFloatingPoint(P))
    return fail(LI, "cannot differentiate: floating-point data is moved in "
                    "pieces smaller than a value (a byte-wise copy or swap): "
                    "its derivative would be lost; copy whole values, or "
                    "use memcpy or memmove");
  if (!Kind || !*Kind || DL.getTypeStoreSize(*Kind) != Bytes)
    return;
  Value *S = shadowOf(P, LI);
  if (!S)
    return;
  Type *ReadAs = (*Kind)->isFloatingPointTy() ? *Kind : LI.getType();
  auto *Read = new LoadInst(ReadAs, S, LI.getName() + ".shadow.bits",
                            /*isVolatile=*/false, LI.getAlign());
  Read->insertAfter(&LI);
  if (ReadAs->isFloatingPointTy())
    markLinear(Read);
  ShadowBits[&LI] = Read;
}

void Linearizer::linearizeStore(StoreInst &SI) {
  Value *V = SI.getValueOperand();
  Value *P = SI.getPointerOperand();
  Type *T = V->getType();
  if (!isShadowed(P))
    return checkStoreWithoutShadow(SI);
  if (isPointerLike(T))
    return linearizePointerStore(SI);
  if (containsPointer(T))
    return fail(SI, "cannot differentiate a store of a whole struct that "
                    "holds pointers: not supported yet");
  // A pointer stored as an integer: InstCombine writes `store i64
  // (ptrtoint p)` when the slot is also written as an integer elsewhere
  // (std::vector<T *> growing, a uintptr_t cast). Code that reads the slot
  // back as a pointer finds its shadow in the shadow memory, so it goes
  // there as for a pointer store.
  if (auto *PI = dyn_cast<PtrToIntInst>(V))
    return linearizePointerBitsStore(SI, *PI);
  if (!isDifferentiableType(T) || hasNonFloatLeaf(T))
    return linearizeIntegerStore(SI);
  Value *S = shadowOf(P, SI);
  if (!S)
    return;
  // Storing an inactive value makes the memory's tangent zero.
  auto *DS = cast<StoreInst>(SI.clone());
  DS->setMetadata(LLVMContext::MD_DIAssignID, nullptr); // not a user variable
  DS->setOperand(0, tangentOf(V));
  DS->setOperand(1, S);
  DS->insertAfter(&SI);
  markLinear(DS);
}

void Linearizer::checkStoreWithoutShadow(StoreInst &SI) {
  Value *V = SI.getValueOperand();
  if (auto *Bits = ShadowBits.lookup(V); Bits && isLinear(Bits))
    return fail(SI, "cannot differentiate: floating-point data is copied "
                    "as an integer into memory without a shadow (an "
                    "integer or byte buffer): not supported yet");
  if (isVaried(V))
    return fail(SI, Twine("cannot differentiate: an active value is stored "
                          "into memory without a shadow (") +
                        memoryWithoutShadow(SI.getPointerOperand(), D.rules()) +
                        "): not supported");
  if (isShadowed(V))
    return fail(SI, "cannot differentiate: a pointer to memory that "
                    "carries derivatives is stored into memory without a "
                    "shadow (an AD_CONST pointer, or a global variable)");
}

void Linearizer::linearizePointerStore(StoreInst &SI) {
  Value *V = SI.getValueOperand();
  Type *T = V->getType();
  // The shadow memory keeps the stored pointer's shadow. A pointer that
  // never leads to a tangent (a function, a vtable, an int local) gets
  // null. Any other pointer without a shadow would make the memory hold
  // a mix the pass cannot tell apart. A struct of pointers stored whole
  // (an iterator pair) keeps its shadow struct.
  bool FromNull = T->isPointerTy() && isNullDerived(V); // its own shadow
  if (!isShadowed(V) && !pointsToNonDifferentiableData(V) && !FromNull)
    return fail(SI, "cannot differentiate: a pointer to memory without "
                    "derivatives is stored where pointers to memory with "
                    "derivatives are kept (not supported yet; pass that "
                    "memory with a shadow instead of AD_CONST)");
  Value *S = shadowOf(SI.getPointerOperand(), SI);
  Value *SV =
      isShadowed(V) || FromNull ? shadowOf(V, SI) : Constant::getNullValue(T);
  if (!S || !SV)
    return;
  auto *DS = cast<StoreInst>(SI.clone());
  DS->setMetadata(LLVMContext::MD_DIAssignID, nullptr);
  DS->setOperand(0, SV);
  DS->setOperand(1, S);
  DS->insertAfter(&SI);
}

void Linearizer::linearizePointerBitsStore(StoreInst &SI, PtrToIntInst &PI) {
  Value *Ptr = PI.getPointerOperand();
  if (!isShadowed(Ptr) && !pointsToNonDifferentiableData(Ptr))
    return fail(SI, "cannot differentiate: a pointer to memory without "
                    "derivatives is stored (as an integer) where pointers "
                    "to memory with derivatives are kept (not supported "
                    "yet; pass that memory with a shadow instead of "
                    "AD_CONST)");
  Value *S = shadowOf(SI.getPointerOperand(), SI);
  Value *SPtr = isShadowed(Ptr) ? shadowOf(Ptr, SI)
                                : Constant::getNullValue(Ptr->getType());
  if (!S || !SPtr)
    return;
  auto *DS = cast<StoreInst>(SI.clone());
  DS->setMetadata(LLVMContext::MD_DIAssignID, nullptr);
  DS->setOperand(0, IRBuilder<>(&SI).CreatePtrToInt(SPtr, PI.getType()));
  DS->setOperand(1, S);
  DS->insertAfter(&SI);
}

StoreInst *Linearizer::storeIntoShadowAfter(StoreInst &SI, Value *Shadow) {
  Value *S = shadowOf(SI.getPointerOperand(), SI);
  if (!S)
    return nullptr;
  auto *DS = new StoreInst(Shadow, S, /*isVolatile=*/false, SI.getAlign());
  DS->insertAfter(&SI);
  return DS;
}

void Linearizer::linearizeIntegerStore(StoreInst &SI) {
  Value *V = SI.getValueOperand();
  Type *T = V->getType();
  if (containsFloatingPoint(T))
    return fail(SI, "cannot differentiate a store of a whole struct or "
                    "array value: not supported yet");
  // A floating-point value stored as its bits (optimised code that also
  // moves the same bytes as integers, a generic swap): its tangent is
  // stored, as for the value itself.
  if (auto *BC = dyn_cast<BitCastInst>(V);
      BC && BC->getSrcTy()->isFloatingPointTy()) {
    if (StoreInst *DS = storeIntoShadowAfter(SI, tangentOf(BC->getOperand(0))))
      markLinear(DS);
    return;
  }
  if (FloatBits.count(V))
    return fail(SI, "cannot differentiate floating-point bit manipulation "
                    "(an active value reinterpreted as an integer, "
                    "changed, and stored): use fabs, copysign or a sign "
                    "test instead");
  // Doubles' or pointers' bytes moved as an integer: their shadow bytes,
  // read where they were loaded, go along.
  if (Value *Bits = ShadowBits.lookup(V)) {
    if (StoreInst *DS = storeIntoShadowAfter(SI, Bits); DS && isLinear(Bits))
      markLinear(DS);
    return;
  }
  // Bytes of memory with derivatives changed as integers and stored where
  // floating-point data (or bytes of unknown kind) live: Eigen's packet
  // negation with SSE at -O2 loads doubles as <2 x i64>, flips their sign
  // bits and stores them. Nothing carried their tangent to the shadow.
  if (!isa<LoadInst>(V) && bitsLoadedFromActiveMemory(V)) {
    std::optional<Type *> Kind = inferIntegerAccessBits(
        SI, SI.getPointerOperand(),
        SI.getDataLayout().getTypeStoreSize(T).getFixedValue());
    if (!Kind || (*Kind && (*Kind)->isFPOrFPVectorTy()))
      return fail(SI, "cannot differentiate floating-point data read from "
                      "memory that carries derivatives as an integer, "
                      "changed and stored (type punning, such as a sign "
                      "flip of vector lanes through integer masks): not "
                      "supported yet");
  }
  // A constant written as an integer (a small memset, which InstCombine
  // makes an integer store, or a field's initial value): the bytes hold
  // no derivative now, whatever they held before, and code may read
  // them back as floating-point data through another pointer. Their
  // tangent is zero; in f.rev this drops the cotangent reaching them.
  if (isa<Constant>(V)) {
    if (StoreInst *DS = storeIntoShadowAfter(SI, Constant::getNullValue(T)))
      markLinear(DS);
    return;
  }
  // Other integers: the shadow of integer memory is never read.
}

} // namespace ad
