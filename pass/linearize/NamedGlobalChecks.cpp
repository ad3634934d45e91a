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
// stores when it takes the global's address itself.
//
//===----------------------------------------------------------------------===//
#include "LinearizeImpl.h"
#include "driver/Differentiator.h"

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

/// \p G's name as a C string, one per module.
static Constant *nameOf(IRBuilderBase &B, GlobalVariable &G) {
  Module &M = *G.getParent();
  std::string Name = ("ad.global.name." + G.getName()).str();
  if (GlobalVariable *S = M.getNamedGlobal(Name))
    return S;
  return B.CreateGlobalString(G.getName(), Name, 0, &M);
}

void Linearizer::checkLoadedPointer(LoadInst &LI, LoadInst &ShadowLoad) {
  ArrayRef<GlobalVariable *> Named = D.globals().dataUsedByNameInReach();
  if (Named.empty())
    return;
  Module &M = *LI.getModule();
  const DataLayout &DL = M.getDataLayout();
  IRBuilder<> B(ShadowLoad.getNextNode());
  Type *Ptr = B.getPtrTy();
  Type *SizeTy = DL.getIntPtrType(M.getContext());
  FunctionCallee Check = M.getOrInsertFunction(
      "__ad_check_pointer_into_global",
      FunctionType::get(B.getVoidTy(), {Ptr, Ptr, Ptr, SizeTy, Ptr, Ptr},
                        false));
  if (auto *F = dyn_cast<Function>(Check.getCallee())) {
    // It reads and writes nothing the program can see: loads around it
    // stay where the optimiser wants them.
    F->setOnlyAccessesInaccessibleMemory();
    F->setDoesNotThrow();
  }
  for (auto [P, S] : pointerParts(B, &LI, &ShadowLoad))
    for (GlobalVariable *G : Named) {
      // Without a shadow global, the code reads G as constant data: no
      // pointer with a shadow may lead there.
      Constant *Own = D.globals().isShadowed(G)
                          ? D.globals().shadowOf(G)
                          : ConstantPointerNull::get(B.getPtrTy());
      uint64_t Bytes =
          std::max<uint64_t>(DL.getTypeAllocSize(G->getValueType()), 1);
      B.CreateCall(Check, {P, S, G, ConstantInt::get(SizeTy, Bytes), Own,
                           nameOf(B, *G)});
    }
}

} // namespace ad
