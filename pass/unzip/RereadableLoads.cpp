//===- RereadableLoads.cpp - loads f.rev may read again -------------------===//
#include "unzip/RereadableLoads.h"
#include "ir/LLVMCompat.h"
#include "linearize/JvpRules.h"

#include "llvm/ADT/Statistic.h"
#include "llvm/Analysis/CFG.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/MemoryLocation.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "ad-unzip"

using namespace llvm;

STATISTIC(NumReread, "Number of loaded residuals read again, not taped");

namespace ad {

/// Writers of one object beyond this many: the load is taped rather than
/// asked about each (reachability queries cost a CFG walk each).
static constexpr unsigned MaxWritersPerObject = 32;

RereadableLoads::RereadableLoads(Function &Jvp, unsigned NumPrimalArgs,
                                 bool Enabled,
                                 function_ref<bool(const Value *)> IsLinear,
                                 DominatorTree &DT, LoopInfo &LI,
                                 AssumptionCache &AC, TargetLibraryInfo &TLI)
    : Jvp(Jvp), NumPrimalArgs(NumPrimalArgs), Enabled(Enabled), DT(DT), LI(LI),
      TLI(TLI), TBAA(AD_TBAA_RESULT_ARGS) {
  if (!Enabled)
    return;
  BasicAA =
      std::make_unique<BasicAAResult>(Jvp.getDataLayout(), Jvp, TLI, AC, &DT);
  AA = std::make_unique<AAResults>(TLI);
  AA->addAAResult(*BasicAA);
  AA->addAAResult(TBAA);
  auto IsShadowParam = [&](const Value *Obj) {
    auto *A = dyn_cast<Argument>(Obj);
    return A && A->getArgNo() >= NumPrimalArgs;
  };
  for (const Instruction &I : instructions(Jvp)) {
    // A math call writes errno at most (exp is memory(write) under
    // -fmath-errno, clang's default): no memory of the program's.
    if (!I.mayWriteToMemory() || IsLinear(&I) || isScalarMathCall(I, &TLI))
      continue;
    // Writes of shadow memory only (a shadow pointer kept in the shadow of
    // a struct): a shadow is never primal memory.
    if (auto *SI = dyn_cast<StoreInst>(&I)) {
      SmallVector<const Value *, 4> Objs;
      getUnderlyingObjects(SI->getPointerOperand(), Objs, &LI);
      if (!Objs.empty() && llvm::all_of(Objs, IsShadowParam))
        continue;
    }
    Writes.push_back(&I);
  }
}

RereadableLoads::~RereadableLoads() = default;

bool RereadableLoads::isStableObject(const Value *Obj) const {
  if (auto *A = dyn_cast<Argument>(Obj))
    return A->getParent() == &Jvp && A->getArgNo() < NumPrimalArgs &&
           A->getType()->isPointerTy() && !A->hasPassPointeeByValueCopyAttr();
  return isa<GlobalVariable>(Obj);
}

const SmallVector<const Instruction *, 4> &
RereadableLoads::writersOf(const Value *Obj) {
  auto [It, New] = Writers.try_emplace(Obj);
  if (!New)
    return It->second;
  MemoryLocation Whole = MemoryLocation::getBeforeOrAfter(Obj);
  SmallVector<const Instruction *, 4> Found;
  for (const Instruction *W : Writes)
    if (isModSet(AA->getModRefInfo(W, Whole)))
      Found.push_back(W);
  return Writers[Obj] = std::move(Found);
}

bool RereadableLoads::canReread(const Instruction &I) {
  auto *L = dyn_cast<LoadInst>(&I);
  if (!Enabled || !L || !L->isSimple())
    return false;
  auto [It, New] = Answers.try_emplace(L, false);
  if (!New)
    return It->second;
  SmallVector<const Value *, 4> Objs;
  getUnderlyingObjects(L->getPointerOperand(), Objs, &LI);
  if (Objs.empty() || !llvm::all_of(Objs, [&](const Value *Obj) {
        return isStableObject(Obj);
      }))
    return false;
  for (const Value *Obj : Objs) {
    const SmallVector<const Instruction *, 4> &Ws = writersOf(Obj);
    if (Ws.size() > MaxWritersPerObject)
      return false;
    for (const Instruction *W : Ws)
      if (isPotentiallyReachable(L, W, /*ExclusionSet=*/nullptr, &DT, &LI)) {
        LLVM_DEBUG(dbgs() << "ad-unzip: taped, may be overwritten later by "
                          << *W << ": " << *L << "\n");
        return false;
      }
  }
  LLVM_DEBUG(dbgs() << "ad-unzip: read again in f.rev: " << *L << "\n");
  ++NumReread;
  return Answers[L] = true;
}

} // namespace ad
