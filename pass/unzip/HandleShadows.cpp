//===- HandleShadows.cpp - what a handle's f.fwd may do with shadows ------===//
#include "unzip/HandleShadows.h"
#include "driver/DerivedFunctions.h"
#include "driver/Differentiator.h"
#include "prepare/Activity.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace ad {

/// Whether \p U carries the address in \p U's operand on to a value that
/// is again computed from the shadow (address arithmetic, choices, the
/// shadows a mixed call returns).
static bool propagates(const Use &U,
                       function_ref<bool(const Value *)> IsLinear) {
  auto *I = cast<Instruction>(U.getUser());
  if (IsLinear(I))
    return false;
  if (isa<GetElementPtrInst>(I))
    return U.getOperandNo() == 0;
  if (auto *Sel = dyn_cast<SelectInst>(I))
    return &U != &Sel->getOperandUse(0);
  if (isa<PHINode>(I) || isa<BitCastInst>(I) || isa<AddrSpaceCastInst>(I) ||
      isa<InsertValueInst>(I) || isa<ExtractValueInst>(I) || isa<FreezeInst>(I))
    return true;
  return mixedCallee(*I) != nullptr;
}

/// Whether \p U only hands the address on to code that may have it: linear
/// code (tangent loads, stores and copies, which f.lin and f.rev run on
/// the caller's shadows), a return, or a mixed call (checked itself).
static bool endsSafely(const Use &U,
                       function_ref<bool(const Value *)> IsLinear) {
  auto *I = cast<Instruction>(U.getUser());
  return IsLinear(I) || isa<ReturnInst>(I) || isa<DbgInfoIntrinsic>(I) ||
         mixedCallee(*I) != nullptr;
}

static std::string whatItDoes(const Instruction &I) {
  if (isa<LoadInst>(I))
    return "reads a pointer out of the caller's derivative memory (a "
           "pointer inside a struct the function was given)";
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

bool checkHandleShadowUses(Function &Jvp,
                           function_ref<bool(const Value *)> IsLinear,
                           Differentiator &D) {
  auto Info = getDerivedInfo(Jvp);
  unsigned N = Info->Primal->arg_size();
  SmallVector<unsigned, 8> Owners = Info->Act.extraOwners();
  SmallSetVector<Value *, 16> Derived;
  for (unsigned K = 0; K < Owners.size(); ++K)
    if (Info->Act.isDup(Owners[K]))
      Derived.insert(Jvp.getArg(N + K));
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
      D.diags().errorAt(
          I, "cannot linearize '" + displayName(*Info->Primal) +
                 "' into a handle: its derivative " + whatItDoes(I) +
                 ", while a handle is applied to different shadows each "
                 "time; use __ad_gradient or __ad_derivative for it");
      return false;
    }
  return true;
}

} // namespace ad
