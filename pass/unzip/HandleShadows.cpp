//===- HandleShadows.cpp - what a handle's f.fwd may do with shadows ------===//
#include "unzip/HandleShadows.h"
#include "driver/DerivedFunctions.h"
#include "driver/Differentiator.h"
#include "ir/Linearity.h"
#include "ir/ShadowMemory.h"
#include "prepare/Activity.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace ad {

/// Whether \p U carries the address in \p U's operand on to a value that
/// is again computed from the shadow (address arithmetic, choices, the
/// shadows a mixed call returns).
/// A mixed call returns {primal, shadow}: the primal part is f's own.
static bool isPrimalOfMixedCall(const Instruction &I) {
  auto *EV = dyn_cast<ExtractValueInst>(&I);
  auto *Call = EV ? dyn_cast<Instruction>(EV->getAggregateOperand()) : nullptr;
  return Call && mixedCallee(*Call) && EV->getIndices()[0] == 0;
}

static bool propagates(const Use &U,
                       function_ref<bool(const Value *)> IsLinear) {
  auto *I = cast<Instruction>(U.getUser());
  if (IsLinear(I))
    return false;
  if (isa<GetElementPtrInst>(I))
    return U.getOperandNo() == 0;
  if (auto *Sel = dyn_cast<SelectInst>(I))
    return &U != &Sel->getOperandUse(0);
  if (isa<ExtractValueInst>(I))
    return !isPrimalOfMixedCall(*I);
  if (isa<PHINode>(I) || isa<BitCastInst>(I) || isa<AddrSpaceCastInst>(I) ||
      isa<InsertValueInst>(I) || isa<FreezeInst>(I))
    return true;
  return mixedCallee(*I) != nullptr;
}

/// Whether \p U only hands the address on to code that may have it: linear
/// code (tangent loads, stores and copies, which f.lin and f.rev run on
/// the caller's shadows), a return, a mixed call (checked itself), or a
/// placeholder for the pointer stored there.
static bool endsSafely(const Use &U,
                       function_ref<bool(const Value *)> IsLinear) {
  auto *I = cast<Instruction>(U.getUser());
  return IsLinear(I) || isa<ReturnInst>(I) || isa<DbgInfoIntrinsic>(I) ||
         isPrimalOfMixedCall(*I) || mixedCallee(*I) != nullptr ||
         isHandleShadowLoad(*I);
}

static std::string whatItDoes(const Instruction &I) {
  if (isa<LoadInst>(I))
    return "reads from the caller's derivative memory something other "
           "than one pointer (a volatile or atomic read, or a struct of "
           "pointers read whole)";
  if (isa<StoreInst>(I))
    return "stores a pointer to the caller's derivative memory into memory "
           "(a pointer the function keeps in a struct, or a heap block it "
           "leaves to its caller, as a growing std::vector& argument does)";
  if (isa<CmpInst>(I) || isa<PtrToIntInst>(I))
    return "compares or converts to an integer the address of the caller's "
           "derivative memory";
  return "passes the address of the caller's derivative memory to code "
         "that may read or keep it";
}

/// A load of a pointer from the caller's shadow memory (the shadow of a
/// pointer inside a struct f is given): f.fwd cannot read it, so it asks
/// the runtime for a placeholder standing for what the load will read when
/// the handle is applied (runtime/Handle.cpp).
static bool isShadowPointerLoad(const Use &U) {
  auto *LI = dyn_cast<LoadInst>(U.getUser());
  return LI && LI->isSimple() && LI->getType()->isPointerTy() &&
         U.getOperandNo() == LI->getPointerOperandIndex();
}

/// Walks what is computed from \p Roots; loads of shadow pointers go to
/// \p Loads. False after reporting a use that does more.
static bool walkShadowUses(SmallSetVector<Value *, 16> &Derived,
                           SmallVectorImpl<LoadInst *> &Loads,
                           const DenseSet<const Value *> &Linear,
                           const DerivedInfo &Info, Differentiator &D) {
  auto IsLinear = [&](const Value *V) { return Linear.contains(V); };
  for (size_t Next = 0; Next < Derived.size(); ++Next)
    for (Use &U : Derived[Next]->uses()) {
      if (propagates(U, IsLinear)) {
        // What holds no address (the primal result of a mixed call, a
        // tangent) is not the shadow's.
        if (containsPointer(U.getUser()->getType()))
          Derived.insert(U.getUser());
        continue;
      }
      if (endsSafely(U, IsLinear))
        continue;
      auto &I = *cast<Instruction>(U.getUser());
      if (!IsLinear(&I) && isShadowPointerLoad(U)) {
        Loads.push_back(cast<LoadInst>(&I));
        continue;
      }
      D.diags().errorAt(
          I, "cannot linearize '" + displayName(*Info.Primal) +
                 "' into a handle: its derivative " + whatItDoes(I) +
                 ", while a handle is applied to different shadows each "
                 "time; use __ad_gradient or __ad_derivative for it");
      return false;
    }
  return true;
}

bool prepareHandleShadows(Function &Jvp, Differentiator &D) {
  auto Info = getDerivedInfo(Jvp);
  DenseSet<const Value *> Linear = linearInstructions(Jvp);
  unsigned N = Info->Primal->arg_size();
  SmallVector<unsigned, 8> Owners = Info->Act.extraOwners();
  SmallSetVector<Value *, 16> Derived;
  for (unsigned K = 0; K < Owners.size(); ++K)
    if (Info->Act.isDup(Owners[K]))
      Derived.insert(Jvp.getArg(N + K));
  SmallVector<LoadInst *, 4> Loads;
  while (true) {
    if (!walkShadowUses(Derived, Loads, Linear, *Info, D))
      return false;
    if (Loads.empty())
      return true;
    for (LoadInst *LI : Loads) {
      IRBuilder<> B(LI);
      CallInst *Placeholder = emitHandleShadowLoad(B, LI->getPointerOperand());
      Placeholder->setDebugLoc(LI->getDebugLoc());
      Placeholder->takeName(LI);
      LI->replaceAllUsesWith(Placeholder);
      LI->eraseFromParent();
      Derived.insert(Placeholder);
    }
    Loads.clear();
  }
}

} // namespace ad
