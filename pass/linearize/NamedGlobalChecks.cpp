//===- NamedGlobalChecks.cpp - pointers into globals used by name ---------===//
//
// A global the differentiated code uses by name has one derivative there:
// its shadow global, or none when the code only reads it (constant data).
// Memory reached through a pointer has the derivative its shadow pointer
// says. When such a pointer leads into the global (a list whose third node
// holds &G, filled by the caller), the same memory has two derivatives and
// the gradient is wrong without a word. A request checks its arguments and
// the pointers read from them on entry (MarkerLowering.cpp); this checks
// every other pointer the derived code loads from memory with a shadow, at
// run time, where it is loaded: into such a global it must come with that
// global's own shadow at the same place, which is what the derived code
// stores when it takes the global's address itself. Derived functions are
// shared by requests that use different globals by name, so each request
// tells the runtime its own when it starts.
//
//===----------------------------------------------------------------------===//
#include "LinearizeImpl.h"
#include "driver/Differentiator.h"
#include "prepare/GlobalShadows.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace ad {

/// The pointers inside \p V, a loaded pointer, vector of pointers or struct
/// with pointer fields, next to the same ones inside its shadow \p S.
static SmallVector<std::pair<Value *, Value *>, 2>
pointerParts(IRBuilderBase &B, Value *V, Value *S) {
  SmallVector<std::pair<Value *, Value *>, 2> Parts;
  Type *T = V->getType();
  if (T->isPointerTy()) {
    Parts.push_back({V, S});
  } else if (auto *VT = dyn_cast<FixedVectorType>(T);
             VT && VT->getElementType()->isPointerTy()) {
    for (unsigned K = 0; K < VT->getNumElements(); ++K)
      Parts.push_back(
          {B.CreateExtractElement(V, K), B.CreateExtractElement(S, K)});
  } else if (auto *ST = dyn_cast<StructType>(T)) {
    for (unsigned K = 0; K < ST->getNumElements(); ++K)
      if (ST->getElementType(K)->isPointerTy())
        Parts.push_back(
            {B.CreateExtractValue(V, K), B.CreateExtractValue(S, K)});
  }
  return Parts;
}

void Linearizer::checkLoadedPointer(LoadInst &LI, LoadInst &ShadowLoad) {
  // No request that reaches this code uses such a global by name.
  if (D.globals().dataUsedByNameInReach().empty())
    return;
  // A pointer variable's own slot (every one at -O0) holds what this
  // function stored there: an argument, checked by its caller or the
  // request, or a pointer checked where it was loaded.
  if (auto *Slot = dyn_cast<AllocaInst>(LI.getPointerOperand());
      Slot && Slot->getAllocatedType()->isPointerTy())
    return;
  Module &M = *LI.getModule();
  IRBuilder<> B(ShadowLoad.getNextNode());
  Type *Ptr = B.getPtrTy();
  FunctionCallee Check = M.getOrInsertFunction(
      PointerIntoGlobalCheckFn,
      FunctionType::get(B.getVoidTy(), {B.getInt32Ty(), Ptr, Ptr}, false));
  if (auto *F = dyn_cast<Function>(Check.getCallee())) {
    // It reads and writes nothing the program can see: loads around it
    // stay where the optimiser wants them.
    F->setOnlyAccessesInaccessibleMemory();
    F->setDoesNotThrow();
  }
  // Which globals, and their shadows, only the request knows: it names
  // them for its nesting level when it starts (MarkerLowering.cpp).
  for (auto [P, S] : pointerParts(B, &LI, &ShadowLoad))
    B.CreateCall(Check, {B.getInt32(Act.level()), P, S});
}

} // namespace ad
