//===- CallWrites.cpp - what memory of its caller a call may write --------===//
#include "unzip/CallWrites.h"
#include "driver/DerivedFunctions.h"
#include "linearize/JvpRules.h"
#include "prepare/Activity.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace ad {

namespace {

/// One walk over a function and its callees, depth-first; a recursive call
/// says nothing (its writes are what is being found).
class WrittenParams {
public:
  explicit WrittenParams(const TargetLibraryInfo &TLI) : TLI(TLI) {}

  std::optional<SmallBitVector> of(const Function &G, unsigned Depth) {
    if (auto It = Done.find(&G); It != Done.end())
      return It->second;
    if (G.isDeclaration() || Depth > MaxDepth || !Active.insert(&G).second)
      return std::nullopt;
    SmallBitVector Written(G.arg_size());
    bool Known = llvm::all_of(instructions(G), [&](const Instruction &I) {
      return noteWrites(I, Written, Depth);
    });
    Active.erase(&G);
    std::optional<SmallBitVector> Result;
    if (Known)
      Result = Written;
    return Done[&G] = Result;
  }

private:
  static constexpr unsigned MaxDepth = 8;
  const TargetLibraryInfo &TLI;
  SmallPtrSet<const Function *, 8> Active;
  DenseMap<const Function *, std::optional<SmallBitVector>> Done;

  /// Notes in \p Written the parameters a write through \p Ptr may reach;
  /// false when it may reach other memory the caller sees.
  static bool noteWrite(const Value *Ptr, SmallBitVector &Written) {
    SmallVector<const Value *, 4> Objs;
    getUnderlyingObjects(Ptr, Objs);
    for (const Value *Obj : Objs) {
      if (isa<AllocaInst>(Obj) || isAllocationCall(Obj))
        continue; // the function's own memory
      auto *A = dyn_cast<Argument>(Obj);
      if (!A)
        return false;
      if (!A->hasPassPointeeByValueCopyAttr())
        Written.set(A->getArgNo());
    }
    return !Objs.empty();
  }

  bool noteWrites(const Instruction &I, SmallBitVector &Written,
                  unsigned Depth) {
    if (!I.mayWriteToMemory() || writesOnlyMathLibraryState(I, &TLI) ||
        isAllocationCall(&I))
      return true;
    if (auto *SI = dyn_cast<StoreInst>(&I))
      return noteWrite(SI->getPointerOperand(), Written);
    if (auto *MI = dyn_cast<AnyMemIntrinsic>(&I))
      return noteWrite(MI->getRawDest(), Written);
    // Markers that write no memory a program can read.
    if (auto *II = dyn_cast<IntrinsicInst>(&I))
      return II->isLifetimeStartOrEnd() || isa<DbgInfoIntrinsic>(II) ||
             II->getIntrinsicID() == Intrinsic::assume ||
             II->getIntrinsicID() == Intrinsic::experimental_noalias_scope_decl;
    auto *Call = dyn_cast<CallBase>(&I);
    if (!Call)
      return false; // atomics, fences
    if (isDeallocationCall(Call))
      return noteWrite(Call->getArgOperand(0), Written);
    const Function *Callee = Call->getCalledFunction();
    if (!Callee || Callee->isVarArg())
      return false;
    std::optional<SmallBitVector> CalleeWritten = of(*Callee, Depth + 1);
    if (!CalleeWritten)
      return false;
    for (unsigned K : CalleeWritten->set_bits())
      if (K >= Call->arg_size() || !noteWrite(Call->getArgOperand(K), Written))
        return false;
    return true;
  }
};

} // namespace

std::optional<SmallBitVector> paramsWrittenBy(const Function &G,
                                              const TargetLibraryInfo &TLI) {
  return WrittenParams(TLI).of(G, 0);
}

std::optional<SmallBitVector>
primalOperandsWrittenBy(const CallBase &Call, const TargetLibraryInfo &TLI) {
  const Function *Jvp = mixedCallee(Call);
  auto Info = Jvp ? getDerivedInfo(*Jvp) : std::nullopt;
  if (!Info || Info->Kind != DerivedKind::Jvp || !Info->Primal ||
      Info->Primal->arg_size() > Call.arg_size())
    return std::nullopt;
  return paramsWrittenBy(*Info->Primal, TLI);
}

} // namespace ad
