//===- OpenMPRegions.cpp - derived OpenMP parallel regions ----------------===//
#include "driver/OpenMPRegions.h"
#include "driver/DerivedFunctions.h"
#include "driver/Diagnostics.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"

using namespace llvm;

namespace ad {

static constexpr const char *RegionMD = "ad.omp.region";

bool isOpenMPRuntimeFunction(const Function &F) {
  return F.isDeclaration() && (F.getName().starts_with("__kmpc_") ||
                               F.getName().starts_with("omp_"));
}

bool isOpenMPFork(const Function &F) {
  return F.getName() == "__kmpc_fork_call";
}

Function *forkedRegion(const CallBase &Fork) {
  return Fork.arg_size() > 2
             ? dyn_cast<Function>(Fork.getArgOperand(2)->stripPointerCasts())
             : nullptr;
}

bool isWorksharingLoopStart(const Function &F) {
  return F.getName().starts_with("__kmpc_for_static_init_") ||
         F.getName().starts_with("__kmpc_dispatch_init_");
}

bool isSupportedInRegion(const Function &F) {
  StringRef N = F.getName();
  return isWorksharingLoopStart(F) || N == "__kmpc_for_static_fini" ||
         N.starts_with("__kmpc_dispatch_next_") ||
         N.starts_with("__kmpc_dispatch_fini_") ||
         N == "__kmpc_dispatch_deinit" || N == "__kmpc_global_thread_num" ||
         N == "__kmpc_reduce_nowait" || N == "__kmpc_end_reduce_nowait" ||
         N == "omp_get_thread_num" || N == "omp_get_num_threads";
}

std::string describeOpenMPCall(const Function &F) {
  StringRef N = F.getName();
  static const std::pair<StringRef, StringRef> Constructs[] = {
      {"__kmpc_barrier", "barrier"},
      {"__kmpc_critical", "critical"},
      {"__kmpc_end_critical", "critical"},
      {"__kmpc_single", "single"},
      {"__kmpc_master", "master"},
      {"__kmpc_masked", "masked"},
      {"__kmpc_ordered", "ordered"},
      {"__kmpc_omp_task", "task"},
      {"__kmpc_omp_taskwait", "taskwait"},
      {"__kmpc_taskgroup", "taskgroup"},
      {"__kmpc_reduce", "reduction (other than +, or in a worksharing loop "
                        "inside a parallel region)"},
      {"__kmpc_fork_call", "nested parallel region"},
      {"__kmpc_flush", "flush"},
      {"__kmpc_atomic", "atomic"}};
  for (auto [Prefix, Construct] : Constructs)
    if (N.starts_with(Prefix))
      return Construct.str();
  return N.str();
}

void noteParallelRegion(Function &Region, Value &Loc) {
  Region.setMetadata(
      RegionMD, MDNode::get(Region.getContext(), ValueAsMetadata::get(&Loc)));
}

bool isParallelRegion(const Function &F) { return F.getMetadata(RegionMD); }

static constexpr const char *InRegionMD = "ad.omp.in.region";

void noteRunsInParallelRegion(Function &F) {
  F.setMetadata(InRegionMD, MDNode::get(F.getContext(), {}));
}

/// Whether \p F is the body of a region forked in its module or a function
/// such a body calls. Asked of the module rather than of the regions
/// linearized so far: an earlier request may derive a function that a
/// later one finds inside a region.
static bool reachableFromForkedBody(const Function &F) {
  const Function *Fork = F.getParent()->getFunction("__kmpc_fork_call");
  if (!Fork)
    return false;
  SmallVector<const Function *, 8> Work;
  SmallPtrSet<const Function *, 8> Seen;
  for (const User *U : Fork->users())
    if (auto *CB = dyn_cast<CallBase>(U))
      if (Function *Body = forkedRegion(*CB); Body && Seen.insert(Body).second)
        Work.push_back(Body);
  while (!Work.empty()) {
    const Function *G = Work.pop_back_val();
    if (G == &F)
      return true;
    for (const Instruction &I : instructions(*G))
      if (auto *CB = dyn_cast<CallBase>(&I))
        if (const Function *Callee = CB->getCalledFunction();
            Callee && !Callee->isDeclaration() && Seen.insert(Callee).second)
          Work.push_back(Callee);
  }
  return false;
}

bool runsInParallelRegion(const Function &F) {
  return isParallelRegion(F) || F.getMetadata(InRegionMD) ||
         reachableFromForkedBody(F);
}

bool isRegionTapeCode(const Function &F) {
  auto Info = getDerivedInfo(F);
  return Info && Info->Kind != DerivedKind::Jvp &&
         runsInParallelRegion(*Info->Primal);
}

/// The source location \p Region's fork passed.
static Value *forkLocation(const Function &Region) {
  auto *MD = Region.getMetadata(RegionMD);
  return cast<ValueAsMetadata>(MD->getOperand(0))->getValue();
}

namespace {
/// The runtime's functions the forks call.
struct RegionRuntime {
  explicit RegionRuntime(Module &M);
  FunctionCallee Fork, Begin, Enter, Leave, Threads, End, ThreadNum, NumThreads,
      GlobalThreadNum, PushNumThreads;
};
} // namespace

RegionRuntime::RegionRuntime(Module &M) {
  LLVMContext &C = M.getContext();
  Type *Ptr = PointerType::getUnqual(C), *I32 = Type::getInt32Ty(C),
       *I64 = Type::getInt64Ty(C), *Void = Type::getVoidTy(C);
  Fork = M.getOrInsertFunction("__kmpc_fork_call",
                               FunctionType::get(Void, {Ptr, I32, Ptr}, true));
  Begin = M.getOrInsertFunction("__ad_omp_region_begin", Ptr, I64);
  Enter = M.getOrInsertFunction("__ad_omp_region_enter", Ptr, Ptr, I32, I32,
                                I32, I32);
  Leave = M.getOrInsertFunction("__ad_omp_region_leave", Void, Ptr, I32, I32);
  Threads = M.getOrInsertFunction("__ad_omp_region_threads", I32, Ptr);
  End = M.getOrInsertFunction("__ad_omp_region_end", Void, Ptr);
  ThreadNum = M.getOrInsertFunction("omp_get_thread_num", I32);
  NumThreads = M.getOrInsertFunction("omp_get_num_threads", I32);
  GlobalThreadNum = M.getOrInsertFunction("__kmpc_global_thread_num", I32, Ptr);
  PushNumThreads =
      M.getOrInsertFunction("__kmpc_push_num_threads", Void, Ptr, I32, I32);
}

/// `fork(loc, n, Microtask, Args...)` before \p At.
static CallInst *emitFork(IRBuilder<> &B, RegionRuntime &RT, Value *Loc,
                          Function &Microtask, ArrayRef<Value *> Args) {
  SmallVector<Value *, 8> ForkArgs{Loc, B.getInt32(Args.size()), &Microtask};
  ForkArgs.append(Args.begin(), Args.end());
  return B.CreateCall(RT.Fork, ForkArgs);
}

/// The function each thread of the team runs for \p Derived (f.fwd or
/// f.rev of a region): `team(gtid, btid, params...)` installs the thread's
/// tapes from the region object kept at the tape parameter \p TapeParam,
/// calls \p Derived with its own static tape in that place, and puts the
/// thread's tapes back.
static Function *teamWrapper(Function &Derived, unsigned TapeParam,
                             bool Reverse, unsigned Level, RegionRuntime &RT) {
  std::string Name = (Derived.getName() + ".team").str();
  Module &M = *Derived.getParent();
  if (Function *F = M.getFunction(Name))
    return F;
  LLVMContext &C = M.getContext();
  Type *Ptr = PointerType::getUnqual(C);
  SmallVector<Type *, 8> Params{Ptr, Ptr};
  unsigned Skip = Reverse ? 0 : 2; // f.fwd has the thread ids already
  for (unsigned K = Skip; K < Derived.arg_size(); ++K)
    Params.push_back(Derived.getArg(K)->getType());
  auto *Team =
      Function::Create(FunctionType::get(Type::getVoidTy(C), Params, false),
                       GlobalValue::InternalLinkage, Name, M);
  copyCodegenAttributes(*Team, Derived);
  IRBuilder<> B(BasicBlock::Create(C, "entry", Team));
  Value *Region =
      B.CreateLoad(Ptr, Team->getArg(2 + TapeParam - Skip), "region");
  Value *Tid = B.CreateCall(RT.ThreadNum, {}, "tid");
  Value *Size = B.CreateCall(RT.NumThreads, {}, "team.size");
  Value *Tape = B.CreateCall(
      RT.Enter, {Region, B.getInt32(Level), Tid, Size, B.getInt32(Reverse)},
      "thread.tape");
  SmallVector<Value *, 8> Args;
  if (!Reverse)
    Args.append({Team->getArg(0), Team->getArg(1)});
  for (unsigned K = 2; K < Team->arg_size(); ++K)
    Args.push_back(K - 2 + Skip == TapeParam ? Tape : Team->getArg(K));
  B.CreateCall(&Derived, Args);
  B.CreateCall(RT.Leave, {Region, B.getInt32(Level), Tid});
  B.CreateRetVoid();
  return Team;
}

/// Replaces the call \p CB of a derived function of a region by a fork.
static void forkCall(CallInst &CB, const DerivedInfo &Info, RegionRuntime &RT) {
  Function &Derived = *CB.getCalledFunction();
  Value *Loc = forkLocation(*Info.Primal);
  IRBuilder<> B(&CB);
  B.SetCurrentDebugLocation(CB.getDebugLoc());
  unsigned Level = Info.Act.level();
  const DataLayout &DL = CB.getModule()->getDataLayout();
  SmallVector<Value *, 8> Args;
  if (Info.Kind == DerivedKind::Jvp) {
    Args.append(CB.arg_begin() + 2, CB.arg_end());
    emitFork(B, RT, Loc, Derived, Args);
  } else if (Info.Kind == DerivedKind::Fwd) {
    // The caller's tape keeps the region object where the region's tape
    // would be (the tape has a pointer field for it: TapePlan.cpp).
    unsigned TapeParam = CB.arg_size() - 1;
    auto *TapeTy = StructType::getTypeByName(
        CB.getContext(), derivedName(*Info.Primal, "tape", Info.Act));
    Value *Region = B.CreateCall(
        RT.Begin, {B.getInt64(DL.getTypeAllocSize(TapeTy))}, "region");
    B.CreateStore(Region, CB.getArgOperand(TapeParam));
    Args.append(CB.arg_begin() + 2, CB.arg_end());
    emitFork(B, RT, Loc, *teamWrapper(Derived, TapeParam, false, Level, RT),
             Args);
  } else {
    // The same team size as f.fwd's, so each thread finds its tapes.
    Value *Region = B.CreateLoad(B.getPtrTy(), CB.getArgOperand(0), "region");
    Value *Size = B.CreateCall(RT.Threads, {Region}, "team.size");
    Value *Gtid = B.CreateCall(RT.GlobalThreadNum, {Loc}, "gtid");
    B.CreateCall(RT.PushNumThreads, {Loc, Gtid, Size});
    Args.append(CB.arg_begin(), CB.arg_end());
    emitFork(B, RT, Loc, *teamWrapper(Derived, 0, true, Level, RT), Args);
    B.CreateCall(RT.End, {Region});
  }
  CB.eraseFromParent();
}

/// Whether \p CB calls a derived function of a region as the stages left
/// it: f.jvp and f.fwd with the null thread ids of LinearizeOpenMP.cpp.
static std::optional<DerivedInfo> regionCall(const CallInst &CB) {
  Function *Callee = CB.getCalledFunction();
  auto Info = Callee ? getDerivedInfo(*Callee) : std::nullopt;
  if (!Info || !isParallelRegion(*Info->Primal) ||
      Info->Kind == DerivedKind::Lin)
    return std::nullopt;
  if (Info->Kind == DerivedKind::Rev)
    return Info;
  if (CB.arg_size() < 2 || !isa<ConstantPointerNull>(CB.getArgOperand(0)))
    return std::nullopt;
  return Info;
}

void forkParallelRegions(Module &M, Diagnostics &Diags) {
  // From the derived regions to their calls: walking every call of every
  // derived function costs a name lookup per call (long straight f.rev).
  SmallVector<std::pair<CallInst *, DerivedInfo>, 4> Calls;
  for (Function &Region : M) {
    auto RegionInfo = getDerivedInfo(Region);
    if (!RegionInfo || !isParallelRegion(*RegionInfo->Primal))
      continue;
    for (User *U : Region.users())
      if (auto *CB = dyn_cast<CallInst>(U);
          CB && CB->getCalledFunction() == &Region &&
          getDerivedInfo(*CB->getFunction()))
        if (auto Info = regionCall(*CB))
          Calls.push_back({CB, *Info});
  }
  if (Calls.empty())
    return;
  RegionRuntime RT(M);
  for (auto &[CB, Info] : Calls)
    forkCall(*CB, Info, RT);
}

} // namespace ad
