//===- Activity.cpp - argument activity and varied values -----------------===//
#include "Activity.h"

#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace ad {

bool isDifferentiableType(const Type *T) {
  if (auto *VT = dyn_cast<VectorType>(T))
    T = VT->getElementType();
  return T->isFloatingPointTy() && !T->isX86_FP80Ty() && !T->isFP128Ty() &&
         !T->isPPC_FP128Ty();
}

Activity Activity::defaultFor(const Function &F) {
  SmallVector<ArgRole, 8> Roles;
  for (const Argument &A : F.args())
    Roles.push_back(isDifferentiableType(A.getType()) ? ArgRole::Active
                                                      : ArgRole::Const);
  return Activity(std::move(Roles));
}

unsigned Activity::numActive() const {
  return llvm::count(Roles, ArgRole::Active);
}

std::string Activity::str() const {
  std::string S;
  for (ArgRole R : Roles)
    S.push_back(static_cast<char>(R));
  return S;
}

Activity Activity::parse(StringRef S) {
  SmallVector<ArgRole, 8> Roles;
  for (char C : S)
    Roles.push_back(static_cast<ArgRole>(C));
  return Activity(std::move(Roles));
}

SmallPtrSet<const Value *, 32> computeVariedValues(const Function &F,
                                                   const Activity &A) {
  SmallPtrSet<const Value *, 32> Varied;
  for (const Argument &Arg : F.args())
    if (A.isActive(Arg.getArgNo()))
      Varied.insert(&Arg);

  // Forward data flow to a fixed point; PHIs make one sweep insufficient
  // once loops are allowed, and the iteration is cheap.
  bool Changed = true;
  while (Changed) {
    Changed = false;
    for (const Instruction &I : instructions(F)) {
      if (Varied.count(&I) || !isDifferentiableType(I.getType()))
        continue;
      bool UsesVaried = llvm::any_of(I.operands(), [&](const Use &U) {
        return Varied.count(U.get());
      });
      if (UsesVaried) {
        Varied.insert(&I);
        Changed = true;
      }
    }
  }
  return Varied;
}

} // namespace ad
