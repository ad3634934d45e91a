//===- InactiveMemory.cpp - memory the JVP reads without derivatives ------===//
//
// A pointer without a shadow is fine only where the memory it reaches
// carries no derivatives. A read of floating-point data through it has a
// zero tangent when that memory is constant data to the derived code (a
// global it never writes, an AD_CONST argument, memory reached only through
// those); a pointer stored into memory with a shadow gets a null shadow when
// no tangent is ever read through it (a function, a vtable, an integer
// local). Anything else is an error, since a zero would be a silently wrong
// derivative, and the errors name the memory in the user's terms (an
// AD_INACTIVE function's result, a std::vector's storage, an integer
// buffer).
//
//===----------------------------------------------------------------------===//
#include "LinearizeImpl.h"
#include "driver/CustomRules.h"
#include "driver/DerivedFunctions.h"
#include "driver/Differentiator.h"
#include "ir/AllocationCalls.h"
#include "ir/TypeLeaves.h"
#include "prepare/GlobalShadows.h"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/GlobalVariable.h"

using namespace llvm;

namespace ad {

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

std::string memoryWithoutShadow(const Value *P, const CustomRules &Rules) {
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

std::string unknownMemory(const Value *P, const CustomRules &Rules) {
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

} // namespace ad
