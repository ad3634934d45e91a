//===- RereadableLoads.cpp - loads f.rev may read again -------------------===//
#include "unzip/RereadableLoads.h"
#include "driver/DerivedFunctions.h"
#include "ir/LLVMCompat.h"
#include "linearize/JvpRules.h"
#include "prepare/Activity.h"
#include "unzip/CallWrites.h"
#include "unzip/TapeRuntime.h"

#include "llvm/ADT/Statistic.h"
#include "llvm/Analysis/CFG.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/MemoryLocation.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DebugProgramInstruction.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "ad-unzip"

using namespace llvm;

STATISTIC(NumReread, "Number of loaded residuals read again, not taped");

namespace ad {

static std::string describeWrite(const Instruction &W);
static bool writesOnlyOtherParams(const Instruction &W, const Argument &Obj,
                                  LoopInfo &LI, const TargetLibraryInfo &TLI);

/// Writers of one object beyond this many: the load is taped rather than
/// asked about each (reachability queries cost a CFG walk each).
static constexpr unsigned MaxWritersPerObject = 32;

RereadableLoads::RereadableLoads(Function &Jvp, unsigned NumPrimalArgs,
                                 bool Enabled, SmallBitVector StableArgs,
                                 function_ref<bool(const Value *)> IsLinear,
                                 DominatorTree &DT, LoopInfo &LI,
                                 AssumptionCache &AC, TargetLibraryInfo &TLI,
                                 const ExcusedWrites *Excused)
    : Jvp(Jvp), NumPrimalArgs(NumPrimalArgs),
      Enabled(Enabled || StableArgs.any()), StableArgs(std::move(StableArgs)),
      DT(DT), LI(LI), TLI(TLI), Excused(Excused) {
  if (!this->Enabled)
    return;
  Alias = std::make_unique<FunctionAliasAnalysis>(Jvp, TLI, AC, DT);
  AA = &Alias->AA;
  auto IsShadowParam = [&](const Value *Obj) {
    auto *A = dyn_cast<Argument>(Obj);
    return A && A->getArgNo() >= NumPrimalArgs;
  };
  for (const Instruction &I : instructions(Jvp)) {
    // A math call writes errno at most (exp is memory(write) under
    // -fmath-errno, clang's default), lgamma also signgam, which is not a
    // stable object: no memory the loads here may read.
    if (!I.mayWriteToMemory() || IsLinear(&I) ||
        writesOnlyMathLibraryState(I, &TLI))
      continue;
    // malloc, calloc, operator new: they write the block they return (which
    // no load before them can read) and the allocator's own state, never an
    // existing object. The declarations the pass adds (a shadow's calloc)
    // may carry no attributes that tell alias analysis so. Deallocations
    // stay writers: freeing a parameter's memory ends it.
    if (isAllocationCall(&I))
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
  // A record of inner derived code is reused once it is popped.
  if (isRuntimeTapeMemory(Obj))
    return false;
  if (auto *A = dyn_cast<Argument>(Obj))
    return A->getParent() == &Jvp && A->getArgNo() < NumPrimalArgs &&
           A->getType()->isPointerTy() && !A->hasPassPointeeByValueCopyAttr() &&
           (!inCallee() || (A->getArgNo() < StableArgs.size() &&
                            StableArgs.test(A->getArgNo())));
  // The caller of a callee may write any global after the call.
  if (inCallee())
    return false;
  // signgam is written by lgamma calls, which do not count as writes.
  auto *GV = dyn_cast<GlobalVariable>(Obj);
  return GV && GV->getName() != "signgam";
}

/// Whether \p W may modify the memory at \p Whole. Of its caller's primal
/// memory, a mixed call writes only what its primal writes (CallWrites.h).
static bool mayModify(const Instruction &W, const MemoryLocation &Whole,
                      AAResults &AA, const TargetLibraryInfo &TLI) {
  if (auto *Call = dyn_cast<CallBase>(&W))
    if (auto Written = primalOperandsWrittenBy(*Call, TLI))
      return llvm::any_of(Written->set_bits(), [&](unsigned K) {
        return !AA.isNoAlias(
            MemoryLocation::getBeforeOrAfter(Call->getArgOperand(K)), Whole);
      });
  return isModSet(AA.getModRefInfo(&W, Whole));
}

const SmallVector<const Instruction *, 4> &
RereadableLoads::writersOf(const Value *Obj) {
  auto [It, New] = Writers.try_emplace(Obj);
  if (!New)
    return It->second;
  MemoryLocation Whole = MemoryLocation::getBeforeOrAfter(Obj);
  // A stable argument of a callee is memory its call site proved apart
  // from every other argument the callee writes through (whyNotDisjoint).
  auto *StableArg = inCallee() ? dyn_cast<Argument>(Obj) : nullptr;
  SmallVector<const Instruction *, 4> Found;
  for (const Instruction *W : Writes)
    if (mayModify(*W, Whole, *AA, TLI) &&
        !(StableArg && isStableObject(StableArg) &&
          writesOnlyOtherParams(*W, *StableArg, LI, TLI)))
      Found.push_back(W);
  return Writers[Obj] = std::move(Found);
}

std::optional<RereadableLoads::Blocker>
RereadableLoads::blockerOf(const LoadInst &L,
                           SmallVectorImpl<const Instruction *> *Overwriting) {
  SmallVector<const Value *, 4> Objs;
  getUnderlyingObjects(L.getPointerOperand(), Objs, &LI);
  auto Unstable = llvm::find_if(
      Objs, [&](const Value *Obj) { return !isStableObject(Obj); });
  if (Objs.empty() || Unstable != Objs.end())
    return Blocker{Blocker::NotStable,
                   Unstable != Objs.end() ? *Unstable : nullptr};
  const SmallPtrSet<const Instruction *, 4> *ExcusedHere = nullptr;
  if (Excused)
    if (auto It = Excused->find(&L); It != Excused->end())
      ExcusedHere = &It->second;
  std::optional<Blocker> First;
  for (const Value *Obj : Objs) {
    const SmallVector<const Instruction *, 4> &Ws = writersOf(Obj);
    if (Ws.size() > MaxWritersPerObject)
      return Blocker{Blocker::TooManyWriters, Obj};
    for (const Instruction *W : Ws) {
      if (ExcusedHere && ExcusedHere->count(W))
        continue;
      if (!isPotentiallyReachable(&L, W, /*ExclusionSet=*/nullptr, &DT, &LI))
        continue;
      LLVM_DEBUG(dbgs() << "ad-unzip: taped, may be overwritten later by " << *W
                        << ": " << L << "\n");
      if (!First)
        First = Blocker{Blocker::Overwritten, Obj, W};
      if (!Overwriting)
        return First;
      if (!llvm::is_contained(*Overwriting, W))
        Overwriting->push_back(W);
    }
  }
  return First;
}

bool RereadableLoads::canReread(const Instruction &I) {
  auto *L = dyn_cast<LoadInst>(&I);
  if (!Enabled || !L)
    return false;
  if (!L->isSimple()) {
    Blockers.try_emplace(L, Blocker{Blocker::NotSimple});
    return false;
  }
  auto [It, New] = Answers.try_emplace(L, false);
  if (!New)
    return It->second;
  if (std::optional<Blocker> B = blockerOf(*L, /*Overwriting=*/nullptr)) {
    Blockers[L] = *B;
    return false;
  }
  LLVM_DEBUG(dbgs() << "ad-unzip: read again in f.rev: " << *L << "\n");
  ++NumReread;
  return Answers[L] = true;
}

std::optional<SmallVector<const Instruction *, 4>>
RereadableLoads::overwriters(const LoadInst &L) {
  if (!Enabled || !L.isSimple())
    return std::nullopt;
  SmallVector<const Instruction *, 4> Ws;
  std::optional<Blocker> B = blockerOf(L, &Ws);
  if (!B || B->K != Blocker::Overwritten)
    return std::nullopt;
  return Ws;
}

std::optional<RereadableLoads::Refusal> RereadableLoads::whyChangedAfter(
    const Value *Ptr, const Instruction &At,
    function_ref<bool(const Instruction &)> Ignore) {
  if (!Enabled)
    return Refusal{"", "and the function that calls it is also called from "
                       "differentiated code or through a pointer, so that "
                       "memory may change before the reverse pass"};
  SmallVector<const Value *, 4> Objs;
  getUnderlyingObjects(Ptr, Objs, &LI);
  for (const Value *Obj : Objs) {
    if (!isStableObject(Obj))
      return Refusal{isa<AllocaInst>(Obj) ? "a local variable"
                                          : describeObject(Obj),
                     "which is not a pointer parameter or a global of the "
                     "requested function, so it may change before the "
                     "reverse pass"};
    for (const Instruction *W : writersOf(Obj))
      if (W != &At && !Ignore(*W) &&
          isPotentiallyReachable(&At, W, /*ExclusionSet=*/nullptr, &DT, &LI))
        return Refusal{describeObject(Obj),
                       "and " + describeWrite(*W) + " may overwrite it"};
  }
  return std::nullopt;
}

std::optional<RereadableLoads::Refusal>
RereadableLoads::whyChangedAfterCall(const CallBase &Call, unsigned ArgNo,
                                     unsigned NumArgs) {
  const Value *Ptr = Call.getArgOperand(ArgNo);
  if (auto Why =
          whyChangedAfter(Ptr, Call, [](const Instruction &) { return false; }))
    return Why;
  if (auto Why = whyNotDisjoint(Call, ArgNo, NumArgs))
    return Why;
  // Run again (a later iteration, a loop around it), the call writes what
  // the callee writes: the memory it read last time must not be among it.
  const BasicBlock *BB = Call.getParent();
  bool RunsAgain = llvm::any_of(successors(BB), [&](const BasicBlock *S) {
    return isPotentiallyReachable(S, BB, /*ExclusionSet=*/nullptr, &DT, &LI);
  });
  if (!RunsAgain)
    return std::nullopt;
  SmallVector<const Value *, 4> Objs;
  getUnderlyingObjects(Ptr, Objs, &LI);
  for (const Value *Obj : Objs)
    if (llvm::is_contained(writersOf(Obj), &Call))
      return Refusal{describeObject(Obj),
                     "and " + describeWrite(Call) +
                         " may overwrite it when it runs again"};
  return std::nullopt;
}

std::optional<RereadableLoads::Refusal>
RereadableLoads::whyNotDisjoint(const CallBase &Call, unsigned ArgNo,
                                unsigned NumArgs) {
  std::optional<SmallBitVector> Written = primalOperandsWrittenBy(Call, TLI);
  SmallVector<const Value *, 4> Objs;
  getUnderlyingObjects(Call.getArgOperand(ArgNo), Objs, &LI);
  for (unsigned J = 0; J < NumArgs; ++J) {
    const Value *Other = Call.getArgOperand(J);
    if (J == ArgNo || !Other->getType()->isPointerTy() ||
        (Written && (J >= Written->size() || !Written->test(J))))
      continue;
    MemoryLocation OtherWhole = MemoryLocation::getBeforeOrAfter(Other);
    for (const Value *Obj : Objs)
      if (!AA->isNoAlias(MemoryLocation::getBeforeOrAfter(Obj), OtherWhole))
        return Refusal{describeObject(Obj),
                       "and argument " + std::to_string(J + 1) +
                           " of the call may point into it"};
  }
  return std::nullopt;
}

/// Whether \p W writes only through pointer parameters of \p Jvp other
/// than \p Obj: stores and calls whose written addresses all come from
/// them.
static bool writesOnlyOtherParams(const Instruction &W, const Argument &Obj,
                                  LoopInfo &LI, const TargetLibraryInfo &TLI) {
  auto FromOtherParams = [&](const Value *Ptr) {
    SmallVector<const Value *, 4> Objs;
    getUnderlyingObjects(Ptr, Objs, &LI);
    return !Objs.empty() && llvm::all_of(Objs, [&](const Value *O) {
      auto *A = dyn_cast<Argument>(O);
      return A && A != &Obj && A->getType()->isPointerTy() &&
             !A->hasPassPointeeByValueCopyAttr();
    });
  };
  if (auto *SI = dyn_cast<StoreInst>(&W))
    return FromOtherParams(SI->getPointerOperand());
  auto *Call = dyn_cast<CallBase>(&W);
  if (!Call)
    return false;
  std::optional<SmallBitVector> Written = primalOperandsWrittenBy(*Call, TLI);
  return Written && llvm::all_of(Written->set_bits(), [&](unsigned K) {
           return FromOtherParams(Call->getArgOperand(K));
         });
}

/// The source names of \p F's first \p N parameters, from their debug
/// variables ("" where there is none: without -g, or -Rpass's line tables
/// only). One walk of F.
static SmallVector<std::string, 8> parameterNames(const Function &F,
                                                  unsigned N) {
  SmallVector<std::string, 8> Names(N);
  auto Note = [&](const DILocalVariable *Var, const DILocation *Loc) {
    // Not the parameters of inlined functions.
    if (Var && Var->getArg() && Var->getArg() <= N &&
        (!Loc || !Loc->getInlinedAt()))
      Names[Var->getArg() - 1] = Var->getName().str();
  };
  if (const DISubprogram *SP = F.getSubprogram())
    for (const DINode *Node : SP->getRetainedNodes())
      Note(dyn_cast<DILocalVariable>(Node), nullptr);
  for (const Instruction &I : instructions(F)) {
    for (const DbgVariableRecord &DVR : filterDbgVars(I.getDbgRecordRange()))
      Note(DVR.getVariable(), DVR.getDebugLoc().get());
    if (auto *DVI = dyn_cast<DbgVariableIntrinsic>(&I))
      Note(DVI->getVariable(), DVI->getDebugLoc().get());
  }
  return Names;
}

std::string RereadableLoads::describeObject(const Value *Obj) const {
  if (auto *A = dyn_cast_or_null<Argument>(Obj)) {
    if (!ParamNames)
      ParamNames = parameterNames(Jvp, NumPrimalArgs);
    StringRef Name = A->getArgNo() < NumPrimalArgs
                         ? StringRef((*ParamNames)[A->getArgNo()])
                         : StringRef();
    return Name.empty() ? "parameter " + std::to_string(A->getArgNo() + 1)
                        : ("'" + Name + "'").str();
  }
  if (auto *G = dyn_cast_or_null<GlobalValue>(Obj))
    return "'" + G->getName().str() + "'";
  return "";
}

/// "the store at line 14", "the call of 'g' at line 9".
static std::string describeWrite(const Instruction &W) {
  std::string What = "a write";
  if (isa<StoreInst>(W))
    What = "the store";
  else if (auto *CB = dyn_cast<CallBase>(&W))
    if (const Function *Callee = CB->getCalledFunction())
      What = "the call of '" + displayName(*Callee) + "'";
  if (const DebugLoc &DL = W.getDebugLoc(); DL && DL.getLine())
    return What + " at line " + std::to_string(DL.getLine());
  return What;
}

RereadableLoads::Refusal RereadableLoads::whyNot(const Instruction &I) const {
  if (!isa<LoadInst>(I))
    return {};
  if (!Enabled)
    return {"", "the function is also called from differentiated code or "
                "through a pointer, so its memory may have changed when the "
                "reverse pass runs"};
  auto It = Blockers.find(&I);
  if (It == Blockers.end())
    return {};
  const Blocker &B = It->second;
  std::string Obj = describeObject(B.Obj);
  switch (B.K) {
  case Blocker::NotSimple:
    return {Obj, "the load is volatile or atomic"};
  case Blocker::NotStable:
    if (inCallee() && (isa_and_nonnull<Argument>(B.Obj) ||
                       isa_and_nonnull<GlobalValue>(B.Obj)))
      return {Obj, "the caller may write it after the call, before the "
                   "reverse pass"};
    return {Obj, "it reads memory that is not a pointer parameter or a "
                 "global (a local, or a pointer loaded from memory), which "
                 "may not outlive the forward pass unchanged"};
  case Blocker::TooManyWriters:
    return {Obj, "more than " + std::to_string(MaxWritersPerObject) +
                     " writes may modify " + (Obj.empty() ? "it" : Obj)};
  case Blocker::Overwritten:
    return {Obj, describeWrite(*B.Writer) + " may overwrite " +
                     (Obj.empty() ? "it" : Obj)};
  }
  return {};
}

} // namespace ad
