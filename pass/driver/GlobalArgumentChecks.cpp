//===- GlobalArgumentChecks.cpp - requests that pass a global in ---------===//
//
// A global the derived code uses by name has its derivative there: its
// shadow global, or none when the code only reads it. A request whose
// arguments (or pointers read from them on entry) point into such a global
// would give that memory two derivatives; it checks them before the
// derived code runs, and names its globals to the runtime so that the
// derived code can check the pointers it loads later
// (linearize/NamedGlobalChecks.cpp).
//
//===----------------------------------------------------------------------===//
#include "driver/Differentiator.h"
#include "driver/LoweringHelpers.h"
#include "driver/RequestParsing.h"
#include "prepare/GlobalShadows.h"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace ad {

/// The offsets at which \p F, in its entry block and before anything that
/// might not return, loads pointers from the memory its parameter \p A
/// points to (b->p of a struct argument; at -O0 through A's spill slot).
/// Reading them before the call is then as safe as the call itself.
static SmallVector<int64_t, 4> pointerFieldsReadOnEntry(const Argument &A) {
  const Function &F = *A.getParent();
  const DataLayout &DL = F.getDataLayout();
  // A's spill slot at -O0: a local that only A is stored into.
  const AllocaInst *Slot = nullptr;
  for (const User *U : A.users())
    if (auto *SI = dyn_cast<StoreInst>(U); SI && SI->getValueOperand() == &A)
      Slot = dyn_cast<AllocaInst>(SI->getPointerOperand());
  if (Slot && llvm::count_if(Slot->users(), [](const User *U) {
                return isa<StoreInst>(U);
              }) != 1)
    Slot = nullptr;
  SmallVector<int64_t, 4> Offsets;
  for (const Instruction &I : F.getEntryBlock()) {
    if (auto *LI = dyn_cast<LoadInst>(&I); LI && LI->getType()->isPointerTy()) {
      APInt Offset(DL.getIndexTypeSizeInBits(LI->getPointerOperandType()), 0);
      const Value *Base =
          LI->getPointerOperand()->stripAndAccumulateConstantOffsets(
              DL, Offset, /*AllowNonInbounds=*/true);
      auto *Reload = dyn_cast<LoadInst>(Base);
      bool FromA =
          Base == &A || (Slot && Reload && Reload->getPointerOperand() == Slot);
      if (FromA && !is_contained(Offsets, Offset.getSExtValue()))
        Offsets.push_back(Offset.getSExtValue());
    }
    if (!isGuaranteedToTransferExecutionToSuccessor(&I))
      break;
  }
  return Offsets;
}

/// \p G's name, for the run-time messages: one string per module.
static Constant *nameOf(IRBuilderBase &B, GlobalVariable &G) {
  Module &M = *G.getParent();
  std::string Name = ("ad.global.name." + G.getName()).str();
  if (GlobalVariable *S = M.getNamedGlobal(Name))
    return S;
  return B.CreateGlobalString(G.getName(), Name, 0, &M);
}

/// The bytes of \p G the checks cover: an array whose size this file does
/// not know (extern double t[]), at least its start.
static uint64_t checkedBytes(const DataLayout &DL, const GlobalVariable &G) {
  return std::max<uint64_t>(DL.getTypeAllocSize(G.getValueType()), 1);
}

/// Tells the runtime which of \p Globals, used by name by the \p Derived
/// functions of \p R, the pointers they load must not lead into, and with
/// which shadows they may (NamedGlobalChecks.cpp): a constant table of
/// {global, bytes, its shadow or null, name}, ended by a null global. Only
/// where derived code checks pointers at all.
static void nameGlobalsForChecks(IRBuilder<> &B, const Request &R,
                                 ArrayRef<GlobalVariable *> Globals,
                                 ArrayRef<Function *> Derived,
                                 Differentiator &D) {
  Module &M = D.module();
  if (!M.getFunction(PointerIntoGlobalCheckFn))
    return;
  LLVMContext &Ctx = M.getContext();
  const DataLayout &DL = M.getDataLayout();
  Type *Ptr = PointerType::getUnqual(Ctx);
  Type *SizeTy = DL.getIntPtrType(Ctx);
  auto *EntryTy = StructType::get(Ctx, {Ptr, SizeTy, Ptr, Ptr});
  DenseMap<GlobalVariable *, GlobalVariable *> ShadowOf;
  for (GlobalVariable *S : globalShadowsUsedBy(Derived, D))
    if (GlobalVariable *G = D.globals().primalOf(S))
      ShadowOf[G] = S;
  SmallVector<Constant *, 4> Entries;
  for (GlobalVariable *G : Globals) {
    Constant *Own = ShadowOf.lookup(G);
    Entries.push_back(ConstantStruct::get(
        EntryTy, {G, ConstantInt::get(SizeTy, checkedBytes(DL, *G)),
                  Own ? Own : ConstantPointerNull::get(cast<PointerType>(Ptr)),
                  nameOf(B, *G)}));
  }
  Entries.push_back(Constant::getNullValue(EntryTy));
  auto *TableTy = ArrayType::get(EntryTy, Entries.size());
  auto *Table = new GlobalVariable(
      M, TableTy, /*isConstant=*/true, GlobalValue::PrivateLinkage,
      ConstantArray::get(TableTy, Entries), "ad.named.globals");
  B.CreateCall(M.getOrInsertFunction(NamedGlobalsSetFn, B.getVoidTy(),
                                     B.getInt32Ty(), Ptr),
               {B.getInt32(R.Act.level()), Table});
}

/// A pointer argument with a shadow that points into a global the derived
/// code uses by name would give that memory two derivatives: a wrong one.
/// A global whose shadow the derived code keeps itself (x == G in f(x)
/// that also writes G by name) has two shadows; one it only reads by name
/// (a regulariser reading theta[i] in loss(theta)) is read as constant
/// data, without the argument's derivative. It cannot be ruled out here, so
/// the request checks at run time, before the derived code runs, for each
/// of the \p Globals the \p Derived functions use by name, and aborts with
/// a message. So are the pointers f reads on entry from the memory such an
/// argument points to (Box b = {G}; f(&b)).
void checkArgumentsOutsideGlobals(IRBuilder<> &B, const Request &R,
                                  ArrayRef<Function *> Derived,
                                  Differentiator &D) {
  SmallSetVector<GlobalVariable *, 4> Globals;
  for (Function *F : Derived)
    Globals.set_union(D.globals().dataUsedByNameFrom(*F));
  nameGlobalsForChecks(B, R, Globals.getArrayRef(), Derived, D);
  if (Globals.empty())
    return;
  Module &M = D.module();
  LLVMContext &Ctx = M.getContext();
  Type *Ptr = PointerType::getUnqual(Ctx);
  // What is checked: each AD_DUP pointer, and the pointers read from it.
  SmallVector<Value *, 8> Checked;
  for (unsigned K = 0; K < R.Args.size(); ++K) {
    if (!R.Act.isDup(K) || !R.Args[K]->getType()->isPointerTy())
      continue;
    Checked.push_back(R.Args[K]);
    for (int64_t Offset : pointerFieldsReadOnEntry(*R.Fn->getArg(K)))
      Checked.push_back(B.CreateLoad(
          Ptr, B.CreateConstGEP1_64(B.getInt8Ty(), R.Args[K], Offset),
          "ad.field"));
  }
  if (Checked.empty())
    return;
  Type *SizeTy = M.getDataLayout().getIntPtrType(Ctx);
  FunctionCallee Check = M.getOrInsertFunction(
      "__ad_check_not_in_global", Type::getVoidTy(Ctx), Ptr, Ptr, SizeTy, Ptr);
  for (GlobalVariable *G : Globals) {
    Constant *Name = nameOf(B, *G);
    uint64_t Bytes = checkedBytes(M.getDataLayout(), *G);
    for (Value *P : Checked)
      B.CreateCall(Check, {P, G, ConstantInt::get(SizeTy, Bytes), Name});
  }
}

} // namespace ad
