//===- LinearizeAllocation.cpp - shadows of allocated memory --------------===//
//
// Shadows of allocations: heap blocks (malloc and its kin,
// posix_memalign's out-parameter), variable-length arrays and alloca()
// get shadows of the same size, which are released where the primal
// storage is given back (forward mode) or when the reverse pass is done
// with them.
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

/// The llvm.stackrestore calls that give back the storage of the dynamic
/// alloca \p AI: those restoring the innermost llvm.stacksave taken before
/// it (the start of the scope of a variable-length array).
static SmallPtrSet<const Instruction *, 4> stackPops(AllocaInst &AI,
                                                     const DominatorTree &DT) {
  IntrinsicInst *Save = nullptr;
  for (Instruction &I : instructions(*AI.getFunction()))
    if (auto *II = dyn_cast<IntrinsicInst>(&I);
        II && II->getIntrinsicID() == Intrinsic::stacksave &&
        DT.dominates(II, &AI) && (!Save || DT.dominates(Save, II)))
      Save = II;
  SmallPtrSet<const Instruction *, 4> Pops;
  if (Save)
    for (User *U : Save->users())
      if (auto *II = dyn_cast<IntrinsicInst>(U);
          II && II->getIntrinsicID() == Intrinsic::stackrestore)
        Pops.insert(II);
  return Pops;
}

/// The first pops or returns on the paths from \p From. A path that
/// reaches \p AI first (another execution of it) ends there; whether one
/// does is \p ReachesAlloca.
static SetVector<Instruction *>
firstReleasesAfter(Instruction &From, const AllocaInst &AI,
                   const SmallPtrSetImpl<const Instruction *> &Pops,
                   bool &ReachesAlloca) {
  SetVector<Instruction *> Found;
  SmallVector<BasicBlock::iterator, 8> Work{std::next(From.getIterator())};
  SmallPtrSet<BasicBlock *, 16> Entered;
  ReachesAlloca = false;
  while (!Work.empty()) {
    BasicBlock::iterator It = Work.pop_back_val();
    for (BasicBlock *BB = It->getParent(); It != BB->end(); ++It) {
      if (&*It == &AI) {
        ReachesAlloca = true;
        break;
      }
      if (Pops.count(&*It) || isa<ReturnInst>(*It)) {
        Found.insert(&*It);
        break;
      }
      if (It->isTerminator())
        for (BasicBlock *Succ : successors(BB))
          if (Entered.insert(Succ).second)
            Work.push_back(Succ->begin());
    }
  }
  return Found;
}

/// Where the shadow of the dynamic alloca \p AI is freed: before the
/// stack restores that pop AI, or before the returns if nothing pops it,
/// so that each execution of AI frees its shadow exactly once. Empty if
/// the paths do not say so (an alloca in a loop that never gives its
/// storage back, a scope left both ways).
static SmallVector<Instruction *, 4>
dynamicAllocaEnds(AllocaInst &AI, const DominatorTree &DT) {
  SmallPtrSet<const Instruction *, 4> Pops = stackPops(AI, DT);
  bool Repeats;
  SetVector<Instruction *> Ends = firstReleasesAfter(AI, AI, Pops, Repeats);
  bool Returns = llvm::any_of(Ends, IsaPred<ReturnInst>);
  if (Repeats || Ends.empty() ||
      (Returns && !llvm::all_of(Ends, IsaPred<ReturnInst>)))
    return {};
  // A pop run again before AI is would free the shadow twice.
  bool Again;
  if (!Returns)
    for (Instruction *End : Ends)
      if (!llvm::all_of(firstReleasesAfter(*End, AI, Pops, Again),
                        IsaPred<ReturnInst>))
        return {};
  return SmallVector<Instruction *, 4>(Ends.begin(), Ends.end());
}

/// A variable-length array or alloca(): its shadow is zeroed heap memory
/// of the same size, a heap block as far as the later stages are
/// concerned: in reverse mode it must outlive f.fwd, which a stack
/// shadow could not. It is freed where the stack gives AI's storage back
/// (forward mode), or noted there and freed where f.rev walks back past
/// AI (reverse mode).
/// For a handle, the shadows of f's heap memory belong to the handle: they
/// are noted on it when f.fwd allocates them, cleared before each
/// application and freed with the handle (runtime/Handle.cpp).
Value *Linearizer::allocateShadow(IRBuilderBase &B, Value *Size, Value *Align) {
  if (!Act.forHandle())
    return emitShadowAllocation(B, Size, Align);
  Module &M = *B.GetInsertBlock()->getModule();
  Type *SizeTy = Size->getType();
  FunctionCallee Alloc = M.getOrInsertFunction("__ad_linear_shadow_alloc",
                                               B.getPtrTy(), SizeTy, SizeTy);
  Value *A =
      Align ? B.CreateZExtOrTrunc(Align, SizeTy) : ConstantInt::get(SizeTy, 0);
  return B.CreateCall(Alloc, {Size, A});
}

/// The shadow dies with the primal memory (forward mode; a no-op in
/// reverse mode), except a handle's, which later applications read.
void Linearizer::releaseShadow(IRBuilderBase &B, Value *S) {
  if (!Act.forHandle())
    markLinear(emitShadowFree(B, S));
}

void Linearizer::linearizeDynamicAlloca(AllocaInst &AI) {
  DominatorTree DT(*AI.getFunction());
  SmallVector<Instruction *, 4> Ends = dynamicAllocaEnds(AI, DT);
  if (Ends.empty())
    return fail(AI, "cannot differentiate through this variable-length "
                    "array or alloca(): its storage is not given back once "
                    "per allocation (an alloca() in a loop, or a scope left "
                    "both with and without restoring the stack); not "
                    "supported, use malloc and free");
  const DataLayout &DL = AI.getDataLayout();
  IRBuilder<> B(AI.getNextNode());
  Type *SizeTy = DL.getIntPtrType(AI.getContext());
  Value *Size = B.CreateMul(
      B.CreateZExtOrTrunc(AI.getArraySize(), SizeTy),
      ConstantInt::get(SizeTy, DL.getTypeAllocSize(AI.getAllocatedType())));
  Value *Align = AI.getAlign().value() > 16
                     ? ConstantInt::get(SizeTy, AI.getAlign().value())
                     : nullptr;
  Value *S = allocateShadow(B, Size, Align);
  S->setName(AI.getName() + ".shadow");
  Shadow[&AI] = S;
  markLinear(emitShadowLive(B, S));
  // Where AI does not dominate an end (a return after an alloca() in one
  // branch), the shadow comes through a local that is null on the paths
  // that skip AI, so that free() and its note in f.rev do nothing there.
  AllocaInst *Slot = nullptr;
  if (!llvm::all_of(Ends,
                    [&](Instruction *E) { return DT.dominates(&AI, E); })) {
    BasicBlock &Entry = AI.getFunction()->getEntryBlock();
    IRBuilder<> EB(&Entry, Entry.getFirstInsertionPt());
    Slot =
        EB.CreateAlloca(S->getType(), nullptr, AI.getName() + ".shadow.slot");
    EB.CreateStore(Constant::getNullValue(S->getType()), Slot);
    B.CreateStore(S, Slot);
  }
  for (Instruction *End : Ends) {
    B.SetInsertPoint(End);
    Value *Freed =
        DT.dominates(&AI, End) ? S : B.CreateLoad(S->getType(), Slot);
    releaseShadow(B, Freed);
  }
}

void Linearizer::linearizeAllocation(CallBase &CB) {
  IRBuilder<> B(CB.getNextNode());
  Value *Size = allocationSize(B, CB);
  if (!Size)
    return fail(CB, "cannot differentiate this allocation function: not "
                    "supported yet");
  Value *S = allocateShadow(B, Size, allocationAlignment(B, CB));
  S->setName(CB.getName() + ".shadow");
  Shadow[&CB] = S;
  // Linear: transposes to freeing the shadow once f.rev has walked back
  // past the allocation.
  markLinear(emitShadowLive(B, S));
}

/// A std::string's heap buffer from libstdc++ (_M_create): a shadow of as
/// many bytes, the capacity being known only once the call has chosen it.
/// Characters carry no derivative, but a program may keep a double's bytes
/// there (a string used as a byte buffer), and the pointer to the buffer
/// is kept next to pointers with shadows (a std::map's node). The shadow
/// is freed with the buffer, as any heap block's is.
void Linearizer::linearizeStringBufferAllocation(CallBase &CB) {
  if (!isShadowed(&CB))
    return;
  if (isa<InvokeInst>(CB))
    return fail(CB, "cannot differentiate this std::string allocation: it "
                    "may throw into a handler (not supported)");
  IRBuilder<> B(CB.getNextNode());
  // _M_create(this, size_type &capacity, size_type old_capacity).
  Type *SizeTy = CB.getArgOperand(2)->getType();
  Value *Capacity = B.CreateLoad(SizeTy, CB.getArgOperand(1));
  Value *Size = B.CreateAdd(Capacity, ConstantInt::get(SizeTy, 1));
  Value *S = allocateShadow(B, Size, /*Align=*/nullptr);
  S->setName(CB.getName() + ".shadow");
  Shadow[&CB] = S;
  markLinear(emitShadowLive(B, S));
}

/// posix_memalign(&p, align, size): the shadow block is stored into the
/// shadow of p, so that p's shadow, loaded later, finds it. On failure the
/// primal p keeps its value, and so does its shadow; the shadow block made
/// for nothing is freed at once (primal code, free(NULL) otherwise).
/// Stored where pointers have no shadow (a field of AD_CONST memory), the
/// block has none either, and active data stored into it is an error.
void Linearizer::linearizeOutParamAllocation(CallBase &CB) {
  Value *Out = CB.getArgOperand(0);
  if (!isShadowed(Out))
    return;
  Value *OutShadow = shadowOf(Out, CB);
  if (!OutShadow)
    return;
  IRBuilder<> B(CB.getNextNode());
  Value *S =
      allocateShadow(B, allocationSize(B, CB), allocationAlignment(B, CB));
  S->setName("memalign.shadow");
  Type *Ptr = S->getType();
  Value *Null = Constant::getNullValue(Ptr);
  Value *Failed = B.CreateICmpNE(&CB, Constant::getNullValue(CB.getType()));
  if (!Act.forHandle()) // a handle's shadows are the handle's to free
    emitShadowFree(B, B.CreateSelect(Failed, S, Null));
  Value *Old = B.CreateLoad(Ptr, OutShadow);
  B.CreateStore(B.CreateSelect(Failed, Old, S), OutShadow);
  markLinear(emitShadowLive(B, B.CreateSelect(Failed, Null, S)));
}

void Linearizer::linearizeDeallocation(CallBase &CB) {
  Value *P = CB.getArgOperand(0);
  if (!isShadowed(P))
    return;
  Value *S = shadowOf(P, CB);
  if (!S)
    return;
  // In forward mode the shadow dies with the primal memory. The free is
  // linear: Unzip leaves it to f.lin (f.rev still needs the shadow) and
  // its transpose is a no-op.
  IRBuilder<> B(CB.getNextNode());
  releaseShadow(B, S);
}

} // namespace ad
