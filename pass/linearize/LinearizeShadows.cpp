//===- LinearizeShadows.cpp - shadows of pointers in the JVP --------------===//
//
// Tangents of memory live in shadow memory (docs/design.md, "Memory and
// shadows"). Every pointer that can reach active data has a shadow pointer,
// computed by the same address arithmetic; that arithmetic is non-linear
// (addresses never carry derivatives), so Unzip keeps it in f.fwd and tapes
// the shadow addresses that linear code uses. This file builds the shadows
// of pointers: a zeroed twin beside a local (Unzip moves it into the tape so
// that it outlives f.fwd), the same arithmetic or choice on the shadows
// beside address arithmetic and choices, a pointer loaded from the shadow
// memory beside a pointer loaded from memory with a shadow, a shadow phi
// beside a phi, and a global's shadow or zeroed twin. Heap memory's shadows
// are LinearizeAllocation.cpp's; the loads, stores and copies through the
// shadows are LinearizeLoadStore.cpp's and LinearizeMemIntrinsics.cpp's.
//
//===----------------------------------------------------------------------===//
#include "LinearizeImpl.h"
#include "driver/CustomRules.h"
#include "driver/DerivedFunctions.h"
#include "driver/Differentiator.h"
#include "ir/AllocationCalls.h"
#include "ir/Linearity.h"
#include "ir/ShadowMemory.h"
#include "ir/TypeLeaves.h"
#include "prepare/GlobalShadows.h"
#include "unzip/TapeRuntime.h"

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

} // namespace ad
