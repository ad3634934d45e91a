//===- LinearizeMemory.cpp - shadow memory in the JVP ---------------------===//
//
// Tangents of memory live in shadow memory (docs/design.md, "Memory and
// shadows"). Every pointer that can reach active data has a shadow pointer,
// computed by the same address arithmetic; that arithmetic is non-linear
// (addresses never carry derivatives), so Unzip keeps it in f.fwd and tapes the
// shadow addresses that linear code uses. The linear instructions are the loads
// and stores of tangents through shadows, and copies and fills of shadow
// memory:
//   load p     ->  load shadow(p)            (linear)
//   store v, p ->  store dv, shadow(p)       (linear; dv = 0 for inactive v)
//   memcpy     ->  memcpy of the shadows     (linear)
//   memset     ->  zero the shadow           (linear)
// Shadows of local arrays are zeroed allocas (Unzip moves them into the
// tape so they outlive f.fwd); shadows of heap memory are calloc'd, marked
// live with __ad_shadow_live (whose transpose frees them when the reverse
// pass is done with them), and freed with the primal in forward mode.
//
//===----------------------------------------------------------------------===//
#include "LinearizeImpl.h"
#include "driver/DerivedFunctions.h"
#include "driver/Diagnostics.h"
#include "driver/Differentiator.h"
#include "ir/Linearity.h"
#include "ir/ShadowMemory.h"
#include "unzip/TapeRuntime.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/InstIterator.h"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace ad {

bool isNullDerived(const Value *P) {
  return P->getType()->isPointerTy() &&
         isa<ConstantPointerNull>(getUnderlyingObject(P));
}

/// A struct of pointers and integers that has only integers in it yet
/// ({rows, cols, data} with the data pointer inserted next).
static bool holdsNoAddress(const Value *V) {
  if (isa<UndefValue>(V) || isa<ConstantAggregateZero>(V))
    return true;
  auto *IV = dyn_cast<InsertValueInst>(V);
  return IV && !containsPointer(IV->getInsertedValueOperand()->getType()) &&
         holdsNoAddress(IV->getAggregateOperand());
}

/// Whether every return of \p F returns a null pointer.
static bool returnsOnlyNull(const Function &F) {
  if (F.isDeclaration() || !F.getReturnType()->isPointerTy())
    return false;
  bool Returns = false;
  for (const BasicBlock &BB : F)
    if (auto *Ret = dyn_cast<ReturnInst>(BB.getTerminator())) {
      if (!isa<ConstantPointerNull>(Ret->getReturnValue()))
        return false;
      Returns = true;
    }
  return Returns;
}

Value *Linearizer::shadowOf(Value *P, const Instruction &User) {
  if (Value *S = Shadow.lookup(P))
    return S;
  // Address arithmetic and choices: built where first needed, right after
  // the address itself (linearizeInstruction). Phis have theirs already.
  if (auto *I = dyn_cast<Instruction>(P);
      I && isShadowed(I) && derivesAddress(*I) && !isa<PHINode>(I)) {
    linearizeAddress(*I);
    return Shadow.lookup(P);
  }
  // A null pointer (the end of a list, a missing child) points nowhere in
  // the shadow either, and neither does an address computed from it (an
  // empty std::vector's end, null + size, at -O2); undef and poison stay
  // what they are, and so does a struct with no address in it yet.
  if (isa<UndefValue>(P) || isNullDerived(P) || holdsNoAddress(P))
    return P;
  // An address inside a global the derived code writes: the same address
  // inside its shadow global.
  if (auto *C = dyn_cast<Constant>(P); C && D.globals().isShadowed(C))
    return Shadow[P] = D.globals().shadowOf(C);
  // A pointer loaded from memory with a shadow: its shadow is the pointer
  // at the same place in the shadow memory (non-linear: an address).
  if (auto *LI = dyn_cast<LoadInst>(P); LI && isShadowed(LI)) {
    Value *Addr = shadowOf(LI->getPointerOperand(), User);
    if (!Addr)
      return nullptr;
    auto *SL = cast<LoadInst>(LI->clone());
    SL->setOperand(0, Addr);
    SL->setName(LI->getName() + ".shadow");
    SL->insertAfter(LI);
    Shadow[LI] = SL;
    checkLoadedPointer(*LI, *SL);
    return SL;
  }
  // Constant data chosen next to memory with derivatives (a static const
  // ghost value where an array ends: i > 0 ? &u[i - 1] : &kZero): zero
  // tangents, read from a zeroed twin.
  if (auto *C = dyn_cast<Constant>(P))
    if (const GlobalVariable *GV = globalBaseOf(C);
        GV && GlobalShadows::canHaveZeroTwin(*GV))
      return Shadow[P] = D.globals().zeroTwinOf(C);
  auto *CB = dyn_cast<CallBase>(getUnderlyingObject(P));
  const Function *Callee = CB ? CB->getCalledFunction() : nullptr;
  // A function of this file that always returns null (Eigen's
  // gemv_static_vector_if<..., Dynamic>::data(), chosen next to the
  // operand's data at -O0) points nowhere in the shadow either.
  if (Callee && returnsOnlyNull(*Callee) && CB == P)
    return Shadow[P] = Constant::getNullValue(P->getType());
  if (Callee && D.rules().isInactive(*Callee)) {
    fail(User, "cannot differentiate: this pointer comes from '" +
                   displayName(*Callee) +
                   "', declared AD_INACTIVE, and may point to memory that "
                   "carries derivatives (an AD_INACTIVE function's pointer "
                   "result has no shadow): define the function in this file "
                   "and do not declare it inactive, so that its body is "
                   "differentiated");
    return nullptr;
  }
  fail(User, "cannot differentiate: this pointer may point to memory that "
             "carries derivatives or to memory that does not (pass every "
             "pointer to active data with a shadow)");
  return nullptr;
}

bool Linearizer::isInactiveMemory(const Value *P) const {
  SmallPtrSet<const Value *, 8> Visited;
  return isInactiveMemory(P, Visited);
}

bool Linearizer::isInactiveMemory(
    const Value *P, SmallPtrSetImpl<const Value *> &Visited) const {
  if (!Visited.insert(P).second)
    return true; // a cycle through PHIs: the other inputs decide
  SmallVector<const Value *, 4> Objects;
  getUnderlyingObjects(P, Objects, /*LI=*/nullptr, /*MaxLookup=*/0);
  return llvm::all_of(Objects, [&](const Value *Obj) {
    // Globals the derived code never writes are constant data (a global
    // it writes has a shadow: GlobalShadows.h).
    if (auto *GV = dyn_cast<GlobalVariable>(Obj))
      return !D.globals().isShadowed(GV);
    if (auto *A = dyn_cast<Argument>(Obj))
      return A->getArgNo() < Src.arg_size() &&
             Act.role(A->getArgNo()) == ArgRole::Const;
    // A local without a shadow that holds only pointers into inactive
    // memory (an iterator over AD_CONST data, passed to its operators).
    if (auto *AI = dyn_cast<AllocaInst>(Obj))
      return !isShadowed(AI) &&
             !containsFloatingPoint(AI->getAllocatedType()) &&
             storedPointersAreInactive(*AI, Visited);
    // Memory reached through a pointer kept in inactive memory is inactive
    // too (the storage of an AD_CONST std::vector), and so is memory
    // reached through a pointer kept in a local without a shadow, if every
    // pointer stored there is (an iterator over AD_CONST data).
    if (auto *LI = dyn_cast<LoadInst>(Obj)) {
      const Value *From = LI->getPointerOperand();
      if (isShadowed(From))
        return false;
      if (auto *AI = dyn_cast<AllocaInst>(getUnderlyingObject(From)))
        return storedPointersAreInactive(*AI, Visited);
      return isInactiveMemory(From, Visited);
    }
    // ... and memory reached through a pointer a call returns when it was
    // only given inactive memory (x[i] of an AD_CONST vector at -O0).
    if (auto *CB = dyn_cast<CallBase>(Obj))
      return !isShadowed(CB) && llvm::all_of(CB->args(), [&](const Use &U) {
        return !U->getType()->isPointerTy() ||
               (!isShadowed(U.get()) && isInactiveMemory(U.get(), Visited));
      });
    return false;
  });
}

bool Linearizer::storedPointersAreInactive(
    const AllocaInst &AI, SmallPtrSetImpl<const Value *> &Visited) const {
  return allPointersStoredInto(AI, [&](const Value *P, bool PassedToCall) {
    return (!PassedToCall || !isShadowed(P)) && isInactiveMemory(P, Visited);
  });
}

bool pointsToNonDifferentiableData(const Value *V) {
  // A constant struct of pointers: each of its pointers.
  if (auto *CA = dyn_cast<ConstantAggregate>(V))
    return llvm::all_of(CA->operands(), [](const Use &U) {
      return pointsToNonDifferentiableData(U.get());
    });
  // Null, functions and vtables; not a global's floating-point data, which
  // derivative code would read through the shadow (a table of constants
  // kept in a struct next to active pointers).
  if (isa<Constant>(V)) {
    auto *GV = dyn_cast<GlobalVariable>(getUnderlyingObject(V));
    return !GV || !containsFloatingPoint(GV->getValueType());
  }
  if (!V->getType()->isPointerTy())
    return false; // a struct of pointers computed here
  SmallVector<const Value *, 4> Objects;
  getUnderlyingObjects(V, Objects, /*LI=*/nullptr, /*MaxLookup=*/0);
  return llvm::all_of(Objects, [](const Value *Obj) {
    // A choice between functions (or other such constants).
    if (isa<Constant>(Obj))
      return pointsToNonDifferentiableData(Obj);
    // An entry of a constant table of functions (an activation chosen by
    // index, kept in a struct next to its weight).
    if (auto *LI = dyn_cast<LoadInst>(Obj)) {
      auto *GV = dyn_cast<GlobalVariable>(
          getUnderlyingObject(LI->getPointerOperand()));
      return GV && GV->isConstant() && GV->hasDefinitiveInitializer() &&
             pointsToNonDifferentiableData(GV->getInitializer());
    }
    auto *AI = dyn_cast<AllocaInst>(Obj);
    return AI && !containsFloatingPoint(AI->getAllocatedType()) &&
           !containsPointer(AI->getAllocatedType());
  });
}

void Linearizer::createShadowPhis() {
  for (BasicBlock &BB : *J)
    for (PHINode &Phi : BB.phis())
      if (isShadowed(&Phi)) {
        auto *SP = PHINode::Create(Phi.getType(), Phi.getNumIncomingValues(),
                                   Phi.getName() + ".shadow");
        SP->insertBefore(BB.getFirstNonPHIIt());
        Shadow[&Phi] = SP;
        ShadowPhis.push_back({&Phi, SP});
      }
}

bool Linearizer::completeShadowPhis() {
  // Only the shadow phis something uses get their incoming shadows, and
  // those their incoming values are (built on demand, they may use more
  // shadow phis): a choice between an address with a shadow and one
  // without (std::max of a size kept in an object with derivatives and of
  // a local integer) is fine as long as only integers are read through
  // it. The others go.
  SmallPtrSet<PHINode *, 8> Filled;
  for (bool Progress = true; Progress;) {
    Progress = false;
    for (auto [Phi, SP] : ShadowPhis) {
      if (SP->use_empty() || !Filled.insert(SP).second)
        continue;
      Progress = true;
      for (unsigned K = 0; K < Phi->getNumIncomingValues(); ++K) {
        Value *S = shadowOf(Phi->getIncomingValue(K), *Phi);
        if (!S)
          return false;
        SP->addIncoming(S, Phi->getIncomingBlock(K));
      }
    }
  }
  for (auto [Phi, SP] : ShadowPhis)
    if (!Filled.count(SP)) {
      Shadow.erase(Phi);
      SP->eraseFromParent();
    }
  ShadowPhis.clear();
  return true;
}

void Linearizer::linearizeAddress(Instruction &I) {
  if (auto *AI = dyn_cast<AllocaInst>(&I)) {
    if (!AI->isStaticAlloca())
      return linearizeDynamicAlloca(*AI);
    // A zeroed twin: the shadow of memory no code has written is zero.
    IRBuilder<> B(AI->getNextNode());
    AllocaInst *S = B.CreateAlloca(AI->getAllocatedType(), AI->getArraySize(),
                                   AI->getName() + ".shadow");
    S->setAlignment(AI->getAlign());
    markWith(S, ShadowAllocaMD);
    const DataLayout &DL = J->getParent()->getDataLayout();
    Value *Bytes = B.getInt64(*S->getAllocationSize(DL));
    B.CreateMemSet(S, B.getInt8(0), Bytes, S->getAlign());
    // A handle applies f.lin and f.rev many times on this shadow (a field of
    // its tape): each application starts from zero, as f.fwd leaves it.
    if (Act.forHandle())
      B.CreateCall(J->getParent()->getOrInsertFunction(
                       "__ad_linear_clear_on_apply", B.getVoidTy(),
                       B.getPtrTy(), B.getInt64Ty()),
                   {S, Bytes});
    Shadow[&I] = S;
    return;
  }
  if (isAllocationCall(&I))
    return linearizeAllocation(cast<CallBase>(I));
  if (auto Record = tapeRecordCall(&I))
    return linearizeTapeRecord(cast<CallBase>(I), *Record);
  // Address arithmetic and choices between addresses: the same operation on
  // the shadows (non-linear code).
  Instruction *S = I.clone();
  auto *Call = dyn_cast<CallBase>(S); // llvm.threadlocal.address
  for (Use &U : S->operands())
    if (isPointerLike(U->getType()) && !(Call && Call->isCallee(&U))) {
      Value *Sh = shadowOf(U.get(), I);
      if (!Sh) {
        S->deleteValue();
        return;
      }
      U.set(Sh);
    }
  S->setName(I.getName() + ".shadow");
  S->insertAfter(&I);
  Shadow[&I] = S;
}

/// A record of inner derived code's tape (or a shadow of one, when a level
/// between differentiated it): its shadow is the record's in the region of
/// this level's forward mode, which unzipping moves to its reverse mode's
/// (TapeRuntime.h). Looked up by address, it needs no release.
void Linearizer::linearizeTapeRecord(CallBase &CB, TapeRecordCall Record) {
  std::optional<unsigned> Region =
      forwardShadowRegion(Record.Region, Act.level());
  if (!Region)
    return fail(CB, "cannot differentiate this use of the ADPass runtime's "
                    "tape: derivatives nest more than four levels deep "
                    "through loops, or the code calls the runtime itself");
  IRBuilder<> B(CB.getNextNode());
  Shadow[&CB] =
      emitTapeShadow(B, Record.Level, recordAddress(CB), *Region, Act.level());
}

/// What memory without a shadow that active data reaches is, for errors.
static std::string memoryWithoutShadow(const Value *P,
                                       const CustomRules &Rules) {
  const Value *Obj = getUnderlyingObject(P);
  if (isa<AllocaInst>(Obj))
    return "a local variable that holds no floating-point data, such as an "
           "integer or char buffer";
  if (isa<IntToPtrInst>(Obj))
    return "a pointer made from an integer (uintptr_t arithmetic), which does "
           "not say what memory it points to; compute the address with "
           "pointer arithmetic instead";
  auto *CB = dyn_cast<CallBase>(Obj);
  if (const Function *Callee = CB ? CB->getCalledFunction() : nullptr) {
    if (isReallocationCall(CB))
      return "memory that '" + Callee->getName().str() +
             "' resized; allocate the new block with malloc, copy the data, "
             "and free the old one";
    if (Rules.isInactive(*Callee))
      return "memory that '" + displayName(*Callee) +
             "' returned, which is declared AD_INACTIVE";
    // The thrown object reaches the handler through the C++ runtime,
    // which carries no derivative with it.
    if (Callee->getName() == "__cxa_allocate_exception")
      return "the object of a throw expression: a thrown value cannot carry "
             "a derivative; throw a value without one (an error code, a "
             "message) and pass derivatives outside the exception";
    if (Callee->isDeclaration())
      return "memory that '" + displayName(*Callee) +
             "' returned, whose body is not visible in this translation unit";
  }
  return "an AD_CONST pointer, or a global variable that holds pointers or "
         "whose size this file does not know";
}

/// What memory without a known shadow that a read reaches is, for errors.
static std::string unknownMemory(const Value *P, const CustomRules &Rules) {
  SmallVector<const Value *, 4> Objects;
  getUnderlyingObjects(P, Objects);
  for (const Value *Obj : Objects) {
    auto *CB = dyn_cast<CallBase>(Obj);
    const Function *Callee = CB ? CB->getCalledFunction() : nullptr;
    if (Callee && (Rules.isInactive(*Callee) || Callee->isDeclaration()))
      return memoryWithoutShadow(CB, Rules);
  }
  return "memory reached through a pointer loaded from memory, such as an "
         "array of row pointers or a std::vector's storage";
}

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

/// A local declared as bytes (char buffers, and what SROA makes of the
/// slice of a copied struct that holds fields of several types). alloca()
/// of a run-time size is bytes too, but as for malloc's, that says nothing
/// of what it holds: the accesses around the copy tell.
static bool isUntypedStorage(const Value *P) {
  auto *AI = dyn_cast<AllocaInst>(getUnderlyingObject(P));
  if (!AI || !AI->isStaticAlloca())
    return false;
  Type *T = AI->getAllocatedType();
  while (auto *AT = dyn_cast<ArrayType>(T))
    T = AT->getElementType();
  return T->isIntegerTy(8);
}

/// A local's lifetime starts with contents no code wrote: a zero tangent.
/// Its shadow is one alloca for all its lifetimes (a variable declared in a
/// loop body) and would still hold the derivatives of the previous
/// iteration's value where code the pass cannot see writes the new one (an
/// AD_INACTIVE function filling an out-parameter); in reverse mode the
/// cotangent left at the start of a lifetime would flow into the previous
/// one. Clang marks lifetimes from -O1.
void Linearizer::linearizeLifetimeStart(IntrinsicInst &LS) {
  // (size, pointer) up to LLVM 20, (pointer) since.
  Value *P = LS.getArgOperand(LS.arg_size() - 1);
  auto *AI = dyn_cast<AllocaInst>(P->stripPointerCasts());
  if (!AI || !isShadowed(P))
    return;
  Value *S = shadowOf(P, LS);
  if (!S)
    return;
  const DataLayout &DL = J->getParent()->getDataLayout();
  auto *Size =
      LS.arg_size() == 2 ? dyn_cast<ConstantInt>(LS.getArgOperand(0)) : nullptr;
  std::optional<TypeSize> Whole = AI->getAllocationSize(DL);
  if ((!Size || Size->isMinusOne()) && (!Whole || Whole->isScalable()))
    return;
  IRBuilder<> B(LS.getNextNode());
  Value *Len = Size && !Size->isMinusOne() ? static_cast<Value *>(Size)
                                           : B.getInt64(Whole->getFixedValue());
  markLinear(B.CreateMemSet(S, B.getInt8(0), Len, AI->getAlign()));
}

/// Memory of a constant global without pointers: no derivatives (constant
/// globals are inactive), and no shadow pointers to move.
static bool isConstantPointerFreeData(const Value *P) {
  auto *GV = dyn_cast<GlobalVariable>(getUnderlyingObject(P));
  return GV && GV->isConstant() && GV->hasDefinitiveInitializer() &&
         !containsPointer(GV->getValueType());
}

void Linearizer::linearizeMemIntrinsic(MemIntrinsic &MI) {
  if (auto *MS = dyn_cast<MemSetInst>(&MI))
    return linearizeMemSet(*MS);
  auto &MT = cast<MemTransferInst>(MI);
  // PrepareSource's note on the copied type is for this decision only.
  auto Forget = make_scope_exit([&] { forgetCopiedMemberType(MT); });
  bool DstShadowed = isShadowed(MT.getRawDest());
  bool SrcShadowed = isShadowed(MT.getRawSource());
  if (!DstShadowed && !SrcShadowed)
    return;
  if (!checkCopyKeepsDerivatives(MT, DstShadowed, SrcShadowed))
    return;
  // Constant data (a string literal into a std::string's buffer, a table
  // of initial values): whatever the destination's type, its tangent
  // becomes zero, and no pointer moves.
  if (!SrcShadowed && isConstantPointerFreeData(MT.getRawSource()))
    return copyShadowMemory(MT, Type::getInt8Ty(MT.getContext()), false);
  std::optional<Type *> Elem = copiedShadowElementType(MT);
  if (!Elem || !*Elem)
    return; // reported, or no floating-point data: nothing to differentiate
  if (!DstShadowed)
    return fail(MT, Twine("cannot differentiate: active data is copied into "
                          "memory without a shadow (") +
                        memoryWithoutShadow(MT.getRawDest(), D.rules()) + ")");
  copyShadowMemory(MT, *Elem, SrcShadowed);
}

void Linearizer::linearizeMemSet(MemSetInst &MS) {
  Value *Dst = MS.getRawDest();
  if (!isShadowed(Dst))
    return;
  // Whatever constant is written, its tangent is zero.
  IRBuilder<> B(MS.getNextNode());
  Value *S = shadowOf(Dst, MS);
  if (S)
    markLinear(
        B.CreateMemSet(S, B.getInt8(0), MS.getLength(), MS.getDestAlign()));
}

bool Linearizer::checkCopyKeepsDerivatives(MemTransferInst &MT,
                                           bool DstShadowed, bool SrcShadowed) {
  Value *Dst = MT.getRawDest(), *Src = MT.getRawSource();
  // A local of byte type between memory with derivatives and anything:
  // a char buffer, or a slice of a copied struct that the optimiser typed
  // as bytes. What it holds cannot be told from it, and skipping the copy
  // (no floating-point type found) or zeroing past it would be silent.
  if ((DstShadowed && isUntypedStorage(Src)) ||
      (SrcShadowed && isUntypedStorage(Dst))) {
    fail(MT, "cannot differentiate this memory copy: it moves data "
             "with derivatives through untyped local storage (a char "
             "buffer, or a struct copy the optimiser cut into bytes); "
             "copy the fields, or through a variable of the struct's "
             "type");
    return false;
  }
  // Memory that may carry derivatives copied to or from a local holding
  // only integers: type punning (memcpy(&bits, &x[i], 8), then back into a
  // double). The integer side must not decide that no floating-point data
  // moves; the other side's own type does.
  if (DstShadowed == SrcShadowed)
    return true;
  auto *AI = dyn_cast<AllocaInst>(getUnderlyingObject(DstShadowed ? Src : Dst));
  if (!AI || containsFloatingPoint(AI->getAllocatedType()) ||
      containsPointer(AI->getAllocatedType()))
    return true;
  auto *Len = dyn_cast<ConstantInt>(MT.getLength());
  std::optional<Type *> Kind = inferIntegerAccessBits(
      MT, DstShadowed ? Dst : Src, Len ? Len->getZExtValue() : 0);
  if (!Kind || (*Kind && (*Kind)->isFloatingPointTy())) {
    fail(MT, "cannot differentiate this memory copy: it moves "
             "floating-point data to or from an integer variable "
             "(type punning), which would lose its derivative: "
             "not supported");
    return false;
  }
  return true;
}

std::optional<Type *> Linearizer::copiedShadowElementType(MemTransferInst &MT) {
  UntypedCopy Why;
  std::optional<Type *> Elem = inferShadowElementType(MT, &Why);
  if (Elem)
    return Elem;
  switch (Why) {
  case UntypedCopy::Mixed:
    fail(MT, "cannot differentiate this memory copy: it moves data "
             "of more than one kind (two of float, double and long "
             "double, or pointers and floating-point data); copy "
             "element by element instead");
    break;
  case UntypedCopy::Union:
    fail(MT, "cannot differentiate this memory copy: it moves a "
             "union, whose bytes may be floating-point data or "
             "pointers (such as the storage of a std::function "
             "moved or copied, into a std::vector say): not "
             "supported; keep such objects out of the "
             "differentiated code, or pass them by reference");
    break;
  case UntypedCopy::Unknown:
    fail(MT, "cannot differentiate this memory copy: what it moves "
             "(float, double or pointer data) cannot be told from "
             "this function or its callers; copy element by "
             "element instead");
    break;
  }
  return std::nullopt;
}

void Linearizer::copyShadowMemory(MemTransferInst &MT, Type *Elem,
                                  bool SrcShadowed) {
  IRBuilder<> B(MT.getNextNode());
  Value *SDst = shadowOf(MT.getRawDest(), MT);
  if (!SDst)
    return;
  if (!SrcShadowed) {
    // Copying constant data: the destination's tangent becomes zero.
    markLinear(
        B.CreateMemSet(SDst, B.getInt8(0), MT.getLength(), MT.getDestAlign()));
    return;
  }
  Value *SSrc = shadowOf(MT.getRawSource(), MT);
  if (!SSrc)
    return;
  auto *Copy = cast<MemTransferInst>(MT.clone());
  Copy->setMetadata(LLVMContext::MD_DIAssignID, nullptr);
  Copy->setDest(SDst);
  Copy->setSource(SSrc);
  Copy->insertAfter(&MT);
  // Memory that holds only pointers (a C++ iterator copied whole): its
  // shadow holds shadow pointers, which are addresses, not cotangents. The
  // copy of them is non-linear, as a pointer store is (linearizeStore),
  // and stays in f.fwd; transposing it as floating-point data would add
  // the pointers' bits.
  if (containsPointer(Elem) && !hasFloatLeaf(Elem))
    return;
  markLinear(Copy);
  tagShadowElementType(*Copy, Elem);
}

} // namespace ad
