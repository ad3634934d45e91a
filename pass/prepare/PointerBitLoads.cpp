//===- PointerBitLoads.cpp - pointers loaded as integers ------------------===//
#include "prepare/PointerBitLoads.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Metadata.h"

using namespace llvm;

namespace ad {

/// Whether clang tagged \p LI as the access of a pointer ("any pointer",
/// or "p1 int" and the like with -fpointer-tbaa).
static bool taggedAsPointer(const LoadInst &LI) {
  MDNode *Tag = LI.getMetadata(LLVMContext::MD_tbaa);
  auto *Access = Tag && Tag->getNumOperands() >= 2
                     ? dyn_cast<MDNode>(Tag->getOperand(1))
                     : nullptr;
  auto *Name = Access && Access->getNumOperands()
                   ? dyn_cast<MDString>(Access->getOperand(0))
                   : nullptr;
  if (!Name)
    return false;
  StringRef N = Name->getString();
  return N == "any pointer" ||
         (N.size() > 2 && N[0] == 'p' && isDigit(N[1]) && N[2] == ' ');
}

static bool isPointerBitLoad(const LoadInst &LI) {
  const DataLayout &DL = LI.getDataLayout();
  return LI.isSimple() && LI.getType()->isIntegerTy() && !LI.use_empty() &&
         DL.getTypeSizeInBits(LI.getType()) ==
             DL.getPointerSizeInBits(LI.getPointerAddressSpace()) &&
         taggedAsPointer(LI) && llvm::all_of(LI.users(), [&](const User *U) {
           auto *IP = dyn_cast<IntToPtrInst>(U);
           return IP && IP->getType()->getPointerAddressSpace() ==
                            LI.getPointerAddressSpace();
         });
}

void rewritePointerBitLoads(Function &F) {
  SmallVector<LoadInst *, 4> Found;
  for (Instruction &I : instructions(F))
    if (auto *LI = dyn_cast<LoadInst>(&I); LI && isPointerBitLoad(*LI))
      Found.push_back(LI);
  for (LoadInst *LI : Found) {
    Type *PtrTy = LI->user_back()->getType();
    auto *Ptr =
        new LoadInst(PtrTy, LI->getPointerOperand(), LI->getName() + ".ptr",
                     /*isVolatile=*/false, LI->getAlign(), LI->getIterator());
    Ptr->copyMetadata(*LI);
    for (User *U : make_early_inc_range(LI->users())) {
      U->replaceAllUsesWith(Ptr);
      cast<Instruction>(U)->eraseFromParent();
    }
    LI->eraseFromParent();
  }
}

} // namespace ad
