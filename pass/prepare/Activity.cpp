//===- Activity.cpp - argument activity and varied values -----------------===//
#include "prepare/Activity.h"
#include "driver/CustomRules.h"
#include "driver/OpenMPRegions.h"
#include "ir/CallerObjectTypes.h"
#include "prepare/GlobalShadows.h"
#include "prepare/StreamLibrary.h"
#include "unzip/TapeRuntime.h"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace ad {

Activity Activity::defaultFor(const Function &F) {
  SmallVector<ArgRole, 8> Roles;
  // docs/api.md's defaults: float/double active, pointers with a shadow.
  for (const Argument &A : F.args())
    Roles.push_back(isDifferentiableType(A.getType()) ? ArgRole::Active
                    : A.getType()->isPointerTy()      ? ArgRole::Dup
                                                      : ArgRole::Const);
  return Activity(std::move(Roles));
}

/// Ends str() when the return role is set; no ArgRole uses it.
static constexpr char ShadowReturnMark = 'r';
/// Follows the checkpoint mark in str() for a handle; no ArgRole uses it.
static constexpr char HandleMark = 'h';
/// Precedes the level in str() when it is not 0; no ArgRole uses it.
static constexpr char LevelMark = 'L';
/// Follows the return role in str() for a checkpointed call; no ArgRole
/// uses it.
static constexpr char CheckpointMark = 'k';
/// Precedes one digit per parameter in str() when some arguments are
/// stable ('1'); no ArgRole uses it.
static constexpr char StableArgsMark = 'p';

unsigned Activity::numActive() const {
  return llvm::count(Roles, ArgRole::Active);
}

SmallVector<unsigned, 8> Activity::extraOwners() const {
  SmallVector<unsigned, 8> Owners;
  for (unsigned K = 0; K < Roles.size(); ++K)
    if (hasDerivative(K))
      Owners.push_back(K);
  return Owners;
}

std::string Activity::str() const {
  std::string S;
  for (ArgRole R : Roles)
    S.push_back(static_cast<char>(R));
  if (ShadowReturn)
    S.push_back(ShadowReturnMark);
  if (Checkpoint)
    S.push_back(CheckpointMark);
  if (ForHandle)
    S.push_back(HandleMark);
  if (StableArgs.any()) {
    S.push_back(StableArgsMark);
    for (unsigned K = 0; K < StableArgs.size(); ++K)
      S.push_back(StableArgs.test(K) ? '1' : '0');
  }
  if (Level)
    S += LevelMark + std::to_string(Level);
  return S;
}

Activity Activity::parse(StringRef S) {
  auto [Head, LevelDigits] = S.split(LevelMark);
  unsigned Level = 0;
  if (!LevelDigits.empty())
    LevelDigits.getAsInteger(10, Level);
  auto [Marked, StableDigits] = Head.split(StableArgsMark);
  Head = Marked;
  SmallBitVector Stable(StableDigits.size());
  for (unsigned K = 0; K < StableDigits.size(); ++K)
    Stable[K] = StableDigits[K] == '1';
  bool ForHandle = Head.consume_back(StringRef(&HandleMark, 1));
  bool Checkpoint = Head.consume_back(StringRef(&CheckpointMark, 1));
  bool ShadowReturn = Head.consume_back(StringRef(&ShadowReturnMark, 1));
  SmallVector<ArgRole, 8> Roles;
  for (char C : Head)
    Roles.push_back(static_cast<ArgRole>(C));
  return Activity(std::move(Roles), ShadowReturn, Level, ForHandle)
      .withCheckpoint(Checkpoint)
      .withStableArgs(std::move(Stable));
}

/// Whether \p AI (or a field of it) is where posix_memalign stores the
/// block it allocates: a pointer with a shadow, so the local needs one.
static bool receivesAllocation(const AllocaInst &AI) {
  SmallVector<const Value *, 8> Work{&AI};
  SmallPtrSet<const Value *, 8> Seen{&AI};
  while (!Work.empty()) {
    const Value *V = Work.pop_back_val();
    for (const User *U : V->users()) {
      if (isa<GetElementPtrInst>(U) && Seen.insert(U).second)
        Work.push_back(U);
      else if (isOutParamAllocationCall(U) &&
               cast<CallBase>(U)->getArgOperand(0) == V)
        return true;
    }
  }
  return false;
}

SmallPtrSet<const Function *, 32> reachableFunctions(Module &M,
                                                     ArrayRef<Function *> Roots,
                                                     const CustomRules &Rules) {
  SmallPtrSet<const Function *, 32> Seen;
  SmallVector<const Function *, 32> Work;
  auto Visit = [&](const Function *F) {
    if (F && !F->isDeclaration() && Seen.insert(F).second)
      Work.push_back(F);
  };
  for (Function *F : Roots) {
    Visit(F);
    Visit(Rules.customJvp(*F));
  }
  bool AddedAddressTaken = false;
  while (!Work.empty()) {
    const Function *F = Work.pop_back_val();
    for (const Instruction &I : instructions(*F)) {
      auto *CB = dyn_cast<CallBase>(&I);
      if (!CB)
        continue;
      if (const Function *Callee = CB->getCalledFunction()) {
        Visit(Callee);
        Visit(Rules.customJvp(*Callee));
      } else if (!CB->isInlineAsm() && !AddedAddressTaken) {
        AddedAddressTaken = true;
        for (Function &G : M)
          if (G.hasAddressTaken())
            Visit(&G);
      }
    }
  }
  return Seen;
}

/// A call of the stream library, which moves no derivative between its
/// arguments (`s >> x` gives x a constant).
static bool isStreamLibraryCall(const CallBase &CB) {
  const Function *F = CB.getCalledFunction();
  return F && isStreamLibraryFunction(*F);
}

/// Whether every use of parameter \p A loads from the memory it points to,
/// directly or through its spill slot (at -O0 a parameter is stored once
/// into a local that is only read back): what FunctionAttrs would find
/// readonly and nocapture from -O1. Any other use (a store through it, a
/// call, address arithmetic, a copy kept elsewhere) says no.
static bool onlyLoadedThrough(const Argument &A) {
  SmallVector<const Value *, 4> Work{&A};
  while (!Work.empty()) {
    const Value *P = Work.pop_back_val();
    for (const User *U : P->users()) {
      if (auto *LI = dyn_cast<LoadInst>(U);
          LI && LI->getPointerOperand() == P && LI->isSimple())
        continue;
      auto *SI = dyn_cast<StoreInst>(U);
      if (!SI || SI->getValueOperand() != P)
        return false;
      std::optional<SmallVector<const LoadInst *, 4>> Reloads =
          spillSlotReloads(*SI);
      if (!Reloads)
        return false;
      Work.append(Reloads->begin(), Reloads->end());
    }
  }
  return true;
}

/// Whether the call \p CB may write, through its argument \p ArgNo, into
/// the memory that argument points to (a pointer stored by a callee into a
/// local it was given: an out-parameter). Not when the callee, or for an
/// OpenMP fork the region it runs, only reads through that parameter and
/// keeps no copy of it (readonly and nocapture, as FunctionAttrs finds from
/// -O1, or only loaded through at -O0: a region reaches its shared pointer
/// variables so).
static bool mayWriteThroughArgument(const CallBase &CB, unsigned ArgNo) {
  const Function *Callee = CB.getCalledFunction();
  if (Callee && isOpenMPFork(*Callee)) {
    // Shared argument ArgNo is the region's parameter ArgNo - 1.
    const Function *Region = forkedRegion(CB);
    if (!Region || ArgNo < 3 || ArgNo - 1 >= Region->arg_size())
      return true;
    const Argument *Param = Region->getArg(ArgNo - 1);
    return !(Param->onlyReadsMemory() && Param->hasNoCaptureAttr()) &&
           !onlyLoadedThrough(*Param);
  }
  if (CB.onlyReadsMemory(ArgNo) && CB.doesNotCapture(ArgNo))
    return false;
  return !(Callee && !Callee->isDeclaration() && ArgNo < Callee->arg_size() &&
           onlyLoadedThrough(*Callee->getArg(ArgNo)));
}

bool allPointersStoredInto(
    const AllocaInst &AI,
    function_ref<bool(const Value *P, bool PassedToCall)> Accept) {
  SmallVector<const Value *, 8> Work{&AI};
  SmallPtrSet<const Value *, 8> Seen{&AI};
  while (!Work.empty()) {
    const Value *V = Work.pop_back_val();
    for (const User *U : V->users()) {
      if (auto *SI = dyn_cast<StoreInst>(U)) {
        // A pointer stored as an integer counts as the pointer: from -O1
        // InstCombine stores a std::function's one-reference closure into
        // its union as `store i64 (ptrtoint p)`. Unseen, the std::function
        // had no shadow and calls through it were constant (derivative 0).
        const Value *Stored = SI->getValueOperand();
        if (auto *PI = dyn_cast<PtrToIntInst>(Stored))
          Stored = PI->getPointerOperand();
        if (SI->getPointerOperand() == V && isPointerLike(Stored->getType()) &&
            !Accept(Stored, /*PassedToCall=*/false))
          return false;
      } else if (isa<GetElementPtrInst>(U) && Seen.insert(U).second) {
        Work.push_back(U);
      } else if (auto *CB = dyn_cast<CallBase>(U)) {
        // The stream library keeps no pointer it is given (`s >> x`).
        if (isStreamLibraryCall(*CB))
          continue;
        if (llvm::none_of(CB->args(), [&](const Use &Arg) {
              return Arg.get() == V &&
                     mayWriteThroughArgument(*CB, Arg.getOperandNo());
            }))
          continue;
        for (const Use &Arg : CB->args())
          if (Arg.get() != V && Arg->getType()->isPointerTy() &&
              !Accept(Arg.get(), /*PassedToCall=*/true))
            return false;
      }
    }
  }
  return true;
}

/// No pointer is stored into \p AI in this function: only callees it is
/// passed to (a constructor) do. A local that this function fills with
/// pointers itself is judged by what it stores (computeActivity).
static bool onlyCalleesStorePointersInto(const AllocaInst &AI) {
  // Its own addresses and null, which this function stores too, say
  // nothing of other memory: std::map's header, inlined from -O1, points
  // to itself while the tree is empty.
  return allPointersStoredInto(AI, [&](const Value *P, bool PassedToCall) {
    return PassedToCall || isa<ConstantPointerNull>(P) ||
           getUnderlyingObject(P) == &AI;
  });
}

/// Bytes from alloca() (an i8 array allocation), or a union, that the
/// function reads or writes as floating point: memory for doubles, not a
/// char buffer.
static bool isFloatingPointBuffer(const AllocaInst &AI) {
  if (!(AI.isArrayAllocation() && AI.getAllocatedType()->isIntegerTy(8)) &&
      !holdsUnion(AI.getAllocatedType()))
    return false;
  SmallVector<const Value *, 8> Work{&AI};
  SmallPtrSet<const Value *, 16> Seen{&AI};
  while (!Work.empty() && Seen.size() < 64) {
    const Value *V = Work.pop_back_val();
    for (const User *U : V->users()) {
      if (auto *LI = dyn_cast<LoadInst>(U);
          LI && containsFloatingPoint(LI->getType()))
        return true;
      if (auto *SI = dyn_cast<StoreInst>(U);
          SI && SI->getPointerOperand() == V &&
          containsFloatingPoint(SI->getValueOperand()->getType()))
        return true;
      if (isa<GetElementPtrInst>(U) && Seen.insert(U).second)
        Work.push_back(U);
    }
  }
  return false;
}

bool derivesAddress(const Instruction &I) {
  if (auto *II = dyn_cast<IntrinsicInst>(&I))
    return II->getIntrinsicID() == Intrinsic::threadlocal_address;
  if (isa<ExtractValueInst>(I) || isa<InsertValueInst>(I))
    return isPointerLike(I.getType()) &&
           isPointerLike(I.getOperand(0)->getType());
  return isa<GetElementPtrInst>(I) || isa<PHINode>(I) || isa<SelectInst>(I) ||
         isa<AddrSpaceCastInst>(I) || isa<FreezeInst>(I);
}

/// Whether integer-valued \p I holds bits of a varied value: a bitcast of
/// one, or data movement and arithmetic on such bits (not a comparison,
/// which is a predicate of them).
static bool carriesFloatBits(const Instruction &I, const ActivityInfo &Info) {
  // A reinterpretation of float bits as other integers (Eigen's SSE2
  // swizzle casts <2 x i64> to <4 x i32> before shuffling) still carries
  // them: unseen, the bits turned back into a double had no tangent.
  if (isa<BitCastInst>(I))
    return Info.Varied.count(I.getOperand(0)) ||
           Info.FloatBits.count(I.getOperand(0));
  if (!isa<BinaryOperator>(I) && !isa<CastInst>(I) && !isa<PHINode>(I) &&
      !isa<SelectInst>(I) && !isa<FreezeInst>(I) &&
      !isa<ExtractElementInst>(I) && !isa<InsertElementInst>(I) &&
      !isa<ShuffleVectorInst>(I) && !isa<ExtractValueInst>(I) &&
      !isa<InsertValueInst>(I))
    return false;
  return llvm::any_of(I.operands(), [&](const Use &U) {
    return Info.FloatBits.count(U.get());
  });
}

/// Whether the pointer \p CB returns, or one taken out of the struct it
/// returns (std::get_temporary_buffer's pair<T *, ptrdiff_t>, whose
/// pointer std::stable_sort's buffer keeps at -O0), is stored where
/// pointers with shadows are kept.
static bool isStoredWhereShadowsAreKept(const CallBase &CB,
                                        const ActivityInfo &Info) {
  SmallVector<const Value *, 4> Parts{&CB};
  for (unsigned K = 0; K < Parts.size(); ++K)
    for (const User *U : Parts[K]->users()) {
      if (auto *SI = dyn_cast<StoreInst>(U)) {
        if (SI->getValueOperand() == Parts[K] &&
            Info.Shadowed.count(SI->getPointerOperand()))
          return true;
      } else if (isa<ExtractValueInst>(U) && isPointerLike(U->getType())) {
        Parts.push_back(U);
      }
    }
  return false;
}

/// Follows the pointers \p F may return back to where they come from:
/// through address arithmetic, choices, casts, struct fields and the
/// locals they are kept in (at -O0 every value is, and a returned struct
/// is copied into the return slot). Only what this function keeps in its
/// own locals is known; a call ends the way back. \p Visit sees each value
/// on the way; the walk stops when it returns true, and so does this.
static bool anyReturnSource(const Function &F,
                            function_ref<bool(const Value *)> Visit) {
  SmallVector<const Value *, 16> Work;
  for (const BasicBlock &BB : F)
    if (auto *Ret = dyn_cast<ReturnInst>(BB.getTerminator()))
      if (const Value *RV = Ret->getReturnValue();
          RV && isPointerLike(RV->getType()))
        Work.push_back(RV);
  SmallPtrSet<const Value *, 32> Seen;
  while (!Work.empty() && Seen.size() < 128) {
    const Value *V = Work.pop_back_val();
    if (!Seen.insert(V).second)
      continue;
    if (Visit(V))
      return true;
    if (isa<CallBase>(V))
      continue;
    if (auto *AI = dyn_cast<AllocaInst>(V)) {
      // The local's contents: what is stored or copied into it.
      SmallVector<const Value *, 8> Parts{AI};
      for (unsigned K = 0; K < Parts.size() && K < 32; ++K)
        for (const User *U : Parts[K]->users()) {
          if (auto *SI = dyn_cast<StoreInst>(U);
              SI && SI->getPointerOperand() == Parts[K])
            Work.push_back(SI->getValueOperand());
          else if (auto *MT = dyn_cast<MemTransferInst>(U);
                   MT && MT->getRawDest() == Parts[K])
            Work.push_back(getUnderlyingObject(MT->getRawSource()));
          else if (isa<GetElementPtrInst>(U))
            Parts.push_back(U);
          else if (isOutParamAllocationCall(U) &&
                   cast<CallBase>(U)->getArgOperand(0) == Parts[K])
            Work.push_back(U); // posix_memalign(&p, ...)
        }
    } else if (auto *LI = dyn_cast<LoadInst>(V)) {
      if (auto *Slot = dyn_cast<AllocaInst>(
              getUnderlyingObject(LI->getPointerOperand())))
        Work.push_back(Slot);
    } else if (auto *I = dyn_cast<Instruction>(V);
               I && (derivesAddress(*I) || isa<CastInst>(I))) {
      for (const Use &Op : I->operands())
        if (isPointerLike(Op->getType()))
          Work.push_back(Op.get());
    }
  }
  return false;
}

/// Whether \p F may return memory that it, or a function of this file it
/// calls, allocates: a helper that makes a buffer, a list node, or a
/// {rows, cols, data} handle. An accessor, which returns an address inside
/// an object it is given, does not.
static bool returnsAllocatedMemory(const Function &F, unsigned Depth,
                                   DenseMap<const Function *, bool> &Memo) {
  if (auto It = Memo.find(&F); It != Memo.end())
    return It->second;
  Memo[&F] = false; // recursion: the other returns decide
  bool Found = anyReturnSource(F, [&](const Value *V) {
    if (isAllocationCall(V) || isOutParamAllocationCall(V))
      return true;
    auto *CB = dyn_cast<CallBase>(V);
    const Function *Callee = CB ? CB->getCalledFunction() : nullptr;
    return Callee && !Callee->isDeclaration() && Depth &&
           returnsAllocatedMemory(*Callee, Depth - 1, Memo);
  });
  Memo[&F] = Found;
  return Found;
}

bool differentiatedFromBody(const Function *Callee, const CustomRules &Rules) {
  return Callee && !Callee->isDeclaration() && !Rules.isInactive(*Callee) &&
         !Rules.customJvp(*Callee);
}

namespace {

/// The forward data flow that computeActivity runs to a fixed point: loops
/// and PHIs need more than one sweep, and the iteration is cheap. Each
/// sweep visits every instruction once and applies the phases below to it.
class ActivityPropagation {
public:
  ActivityPropagation(const Function &F, const Activity &A,
                      const GlobalShadows &Globals, const CustomRules &Rules)
      : F(F), A(A), Globals(Globals), Rules(Rules) {}

  ActivityInfo run();

private:
  void seedArgumentsAndGlobals();
  void collectReturnedCalls();
  void propagateShadow(const Instruction &I);
  bool allocaNeedsShadow(const AllocaInst &AI) const;
  bool chosenWithShadowedPointer(const Value &Obj) const;
  bool callResultNeedsShadow(const CallBase &CB) const;
  void shadowLocalsReachedByActiveData(const Instruction &I);
  SmallVector<const Value *, 4>
  activeDataDestinations(const Instruction &I) const;
  void propagateFloatBits(const Instruction &I);
  void propagateVaried(const Instruction &I);
  void mark(SmallPtrSetImpl<const Value *> &Set, const Value *V) {
    if (Set.insert(V).second)
      Changed = true;
  }
  bool onlyCalleesFill(const AllocaInst &AI);

  const Function &F;
  const Activity &A;
  const GlobalShadows &Globals;
  const CustomRules &Rules;
  ActivityInfo Info;
  bool Changed = true;
  // Whether only callees store pointers into a local: a walk over its
  // uses, asked once per active store or call that reaches it (every
  // v[i] = ... of a local vector), so remembered.
  DenseMap<const AllocaInst *, bool> FilledByCallees;
  mutable DenseMap<const Function *, bool> AllocatingHelpers;
  SmallPtrSet<const CallBase *, 4> ReturnedCalls;
};

} // namespace

ActivityInfo ActivityPropagation::run() {
  seedArgumentsAndGlobals();
  collectReturnedCalls();
  while (Changed) {
    Changed = false;
    for (const Instruction &I : instructions(F)) {
      if (isPointerLike(I.getType()))
        propagateShadow(I);
      shadowLocalsReachedByActiveData(I);
      propagateFloatBits(I);
      propagateVaried(I);
    }
  }
  return std::move(Info);
}

void ActivityPropagation::seedArgumentsAndGlobals() {
  for (const Argument &Arg : F.args()) {
    if (A.isActive(Arg.getArgNo()))
      Info.Varied.insert(&Arg);
    if (A.isDup(Arg.getArgNo()))
      Info.Shadowed.insert(&Arg);
  }
  for (const Instruction &I : instructions(F))
    for (const Value *Op : I.operands())
      if (Globals.isShadowed(Op))
        Info.Shadowed.insert(Op);
}

bool ActivityPropagation::onlyCalleesFill(const AllocaInst &AI) {
  auto [It, New] = FilledByCallees.try_emplace(&AI, false);
  if (New)
    It->second = onlyCalleesStorePointersInto(AI);
  return It->second;
}

/// The caller needs the shadow of what f returns: the calls whose results
/// f returns must give theirs (Linearize asks their JVPs with the same
/// role), and the rest follows forward (address arithmetic on them, the
/// locals they are kept in). Memory allocated here has a shadow anyway.
/// So do the locals it is loaded from: at -O0 a returned iterator is
/// built in one by its constructor (std::unordered_map's end(), which
/// holds null).
void ActivityPropagation::collectReturnedCalls() {
  if (!A.shadowReturn())
    return;
  anyReturnSource(F, [&](const Value *V) {
    if (auto *CB = dyn_cast<CallBase>(V))
      ReturnedCalls.insert(CB);
    else if (auto *AI = dyn_cast<AllocaInst>(V);
             AI && containsPointer(AI->getAllocatedType()))
      Info.Shadowed.insert(AI);
    return false;
  });
}

/// Which pointer-like values have a shadow.
void ActivityPropagation::propagateShadow(const Instruction &I) {
  if (auto *AI = dyn_cast<AllocaInst>(&I)) {
    if (allocaNeedsShadow(*AI))
      mark(Info.Shadowed, &I);
  } else if (isAllocationCall(&I) || isStringBufferAllocationCall(&I) ||
             tapeRecordCall(&I)) {
    // Records of inner derived code: every one has a shadow, found by its
    // address, so that a push and the pop of the same record agree.
    mark(Info.Shadowed, &I);
  } else if (auto *LI = dyn_cast<LoadInst>(&I)) {
    // A pointer kept in memory with a shadow: its shadow is kept in
    // the shadow memory.
    if (Info.Shadowed.count(LI->getPointerOperand()))
      mark(Info.Shadowed, &I);
  } else if (auto *CB = dyn_cast<CallBase>(&I); CB && !derivesAddress(I)) {
    if (callResultNeedsShadow(*CB))
      mark(Info.Shadowed, &I);
  } else if (derivesAddress(I) && llvm::any_of(I.operands(), [&](const Use &U) {
               return isPointerLike(U->getType()) &&
                      Info.Shadowed.count(U.get());
             })) {
    mark(Info.Shadowed, &I);
  }
}

/// Memory that can hold derivatives, or pointers to such memory (a closure
/// capturing by reference, a struct of pointers) once a pointer with a
/// shadow is stored there. A local holding only pointers into inactive
/// memory (an iterator over AD_CONST data) has no shadow.
bool ActivityPropagation::allocaNeedsShadow(const AllocaInst &AI) const {
  return containsFloatingPoint(AI.getAllocatedType()) ||
         isFloatingPointBuffer(AI) || receivesAllocation(AI) ||
         chosenWithShadowedPointer(AI) ||
         (containsPointer(AI.getAllocatedType()) &&
          !allPointersStoredInto(AI, [&](const Value *P, bool) {
            return !Info.Shadowed.count(P);
          }));
}

/// Whether an address into \p Obj meets, in a phi or select, a pointer with
/// a shadow: a scratch buffer used in place of the caller's data when that
/// is missing (Eigen's `p = data ? data : alloca(n)` in its products). The
/// code after the choice reads both alike, so the buffer needs a shadow
/// too.
bool ActivityPropagation::chosenWithShadowedPointer(const Value &Obj) const {
  SmallVector<const Value *, 8> Work{&Obj};
  SmallPtrSet<const Value *, 16> Seen{&Obj};
  while (!Work.empty() && Seen.size() < 64) {
    const Value *V = Work.pop_back_val();
    for (const User *U : V->users()) {
      if (isa<GetElementPtrInst>(U) && Seen.insert(U).second) {
        Work.push_back(U);
        continue;
      }
      if (!isa<PHINode>(U) && !isa<SelectInst>(U))
        continue;
      if (llvm::any_of(U->operands(), [&](const Use &Op) {
            return Op.get() != V && Info.Shadowed.count(Op.get());
          }))
        return true;
      if (Seen.insert(U).second)
        Work.push_back(U);
    }
  }
  return false;
}

/// A pointer returned by a call that was given active memory (an accessor
/// such as std::vector::operator[] at -O0), or that may reach active
/// globals (a getter of a global buffer), is assumed to point into it; the
/// callee's JVP returns its shadow. So is one from a function in this file
/// that is stored where pointers with shadows are kept: storage from an
/// allocating helper (std::valarray's __valarray_get_storage at -O0), or
/// returned by f to a caller that needs its shadow.
/// A call through a pointer of the type of an allocator whose address the
/// module takes (malloc in a table of allocation functions): the
/// dispatcher may call it, and then returns the shadow of the block.
static bool mayCallAllocator(const CallBase &CB) {
  if (!CB.isIndirectCall() || !isPointerLike(CB.getType()))
    return false;
  return llvm::any_of(*CB.getModule(), [&](const Function &F) {
    return F.getFunctionType() == CB.getFunctionType() &&
           isAllocatorFunction(F) && F.hasAddressTaken();
  });
}

bool ActivityPropagation::callResultNeedsShadow(const CallBase &CB) const {
  const Function *Callee = CB.getCalledFunction();
  if (isStreamLibraryCall(CB))
    return false; // it returns the stream, which holds no derivatives
  bool GivenActiveMemory = llvm::any_of(
      CB.args(), [&](const Use &U) { return Info.Shadowed.count(U.get()); });
  bool KeptWithShadows = differentiatedFromBody(Callee, Rules) &&
                         isStoredWhereShadowsAreKept(CB, Info);
  bool Returned =
      ReturnedCalls.count(&CB) && differentiatedFromBody(Callee, Rules);
  // Storage from an allocating helper chosen in place of memory with
  // shadows (Eigen's aligned_malloc for a GEMM block, when the caller gave
  // no buffer, at -O0): the choice needs the shadows of both.
  bool ChosenWithShadows =
      differentiatedFromBody(Callee, Rules) && chosenWithShadowedPointer(CB) &&
      returnsAllocatedMemory(*Callee, /*Depth=*/3, AllocatingHelpers);
  return Globals.mayTouchActive(CB) || GivenActiveMemory || KeptWithShadows ||
         Returned || ChosenWithShadows || mayCallAllocator(CB);
}

/// Where \p I puts active data through pointers without a shadow: the
/// objects under the address of a store of a varied value or of a copy
/// from memory with a shadow, or under the pointers without a shadow given
/// to a call that is given derivatives or whose pointer result needs a
/// shadow.
SmallVector<const Value *, 4>
ActivityPropagation::activeDataDestinations(const Instruction &I) const {
  SmallVector<const Value *, 4> Destinations;
  if (auto *SI = dyn_cast<StoreInst>(&I);
      SI && Info.Varied.count(SI->getValueOperand()))
    Destinations.push_back(getUnderlyingObject(SI->getPointerOperand()));
  else if (auto *MT = dyn_cast<MemTransferInst>(&I);
           MT && Info.Shadowed.count(MT->getRawSource()))
    Destinations.push_back(getUnderlyingObject(MT->getRawDest()));
  else if (auto *CB = dyn_cast<CallBase>(&I);
           CB && !isa<IntrinsicInst>(CB) &&
           ((isPointerLike(CB->getType()) && Info.Shadowed.count(CB) &&
             differentiatedFromBody(CB->getCalledFunction(), Rules)) ||
            llvm::any_of(CB->args(),
                         [&](const Use &U) {
                           return Info.Varied.count(U.get()) ||
                                  Info.Shadowed.count(U.get());
                         })) &&
           !isStreamLibraryCall(*CB))
    for (const Use &U : CB->args())
      if (U->getType()->isPointerTy() && !Info.Shadowed.count(U.get()))
        Destinations.push_back(getUnderlyingObject(U.get()));
  return Destinations;
}

/// Active data stored (or copied) through a pointer that a call returned
/// (operator[] of a local std::vector at -O0), or given to a call together
/// with such pointers (std::fill(v.begin(), v.end(), x)): the locals
/// holding pointers that those calls were given get shadows, so that the
/// calls are differentiated and see shadow addresses. Their pointers are
/// stored by callees (the vector's constructor), which this function does
/// not see. Through nested accessors too (m[i][j] of a vector of vectors),
/// and through the pointers loaded from such locals. Likewise the locals
/// given to a call of this file whose pointer result needs a shadow (a
/// std::__allocated_ptr guard, whose get() returns the memory
/// std::make_shared allocated, at -O0): its JVP finds that shadow through
/// them.
void ActivityPropagation::shadowLocalsReachedByActiveData(
    const Instruction &I) {
  SmallVector<const Value *, 4> Destinations = activeDataDestinations(I);
  SmallPtrSet<const Value *, 4> Seen;
  while (!Destinations.empty() && Seen.size() < 16) {
    const Value *Obj = Destinations.pop_back_val();
    if (!Seen.insert(Obj).second)
      continue;
    if (auto *AI = dyn_cast<AllocaInst>(Obj)) {
      if (Info.Shadowed.count(AI) || !containsPointer(AI->getAllocatedType()))
        continue;
      if (onlyCalleesFill(*AI)) {
        mark(Info.Shadowed, AI);
        continue;
      }
      // Filled here: with what calls returned (handles {rows, cols,
      // data} that a constructor function made, kept in an array),
      // which may be what needs the shadow.
      allPointersStoredInto(*AI, [&](const Value *P, bool PassedToCall) {
        if (!PassedToCall)
          Destinations.push_back(getUnderlyingObject(P));
        return true;
      });
    } else if (auto *CB = dyn_cast<CallBase>(Obj)) {
      // A function of this file that returns memory it allocated (a
      // helper around malloc, whose result SROA took out of the struct
      // field that held it at -O0; a list's push): its JVP returns the
      // shadow of that memory. An accessor is given the object it
      // reads, whose shadow is looked for instead.
      const Function *Callee = CB->getCalledFunction();
      if (differentiatedFromBody(Callee, Rules) &&
          returnsAllocatedMemory(*Callee, /*Depth=*/3, AllocatingHelpers))
        mark(Info.Shadowed, CB);
      for (const Use &U : CB->args())
        if (U->getType()->isPointerTy())
          Destinations.push_back(getUnderlyingObject(U.get()));
    } else if (auto *LI = dyn_cast<LoadInst>(Obj)) {
      // The data pointer loaded from a local std::vector whose
      // constructor stays out of line (-Os).
      Destinations.push_back(getUnderlyingObject(LI->getPointerOperand()));
    } else if (auto *EV = dyn_cast<ExtractValueInst>(Obj)) {
      // A field of a struct returned by value ({rows, cols, data} from
      // a constructor function at -O0).
      Destinations.push_back(EV->getAggregateOperand());
    } else if (isa<PHINode>(Obj) || isa<SelectInst>(Obj)) {
      // The head of a list that grows in a loop.
      for (const Use &U : cast<Instruction>(Obj)->operands())
        if (U->getType()->isPointerTy())
          Destinations.push_back(getUnderlyingObject(U.get()));
    }
  }
}

/// Integers, and structs with integer fields (the bits may be packed into
/// one: x86-64 returns struct {double d; float f; int k;} as {double,
/// i64}).
void ActivityPropagation::propagateFloatBits(const Instruction &I) {
  if ((I.getType()->isIntOrIntVectorTy() ||
       (I.getType()->isAggregateType() && hasNonFloatLeaf(I.getType()))) &&
      carriesFloatBits(I, Info))
    mark(Info.FloatBits, &I);
}

/// Which values of a differentiable type depend on active data.
void ActivityPropagation::propagateVaried(const Instruction &I) {
  if (!isDifferentiableType(I.getType()))
    return;
  if (auto *LI = dyn_cast<LoadInst>(&I)) {
    if (Info.Shadowed.count(LI->getPointerOperand()))
      mark(Info.Varied, &I);
    return;
  }
  // Bytes of memory with a shadow loaded as an integer and reinterpreted
  // (the optimiser merges `memcpy(&key, &x[i], 8)` with the read of
  // x[i]): Linearize reads the tangent from the shadow's bytes.
  if (auto *BC = dyn_cast<BitCastInst>(&I)) {
    auto *LI = dyn_cast<LoadInst>(BC->getOperand(0));
    if (LI && LI->getType()->isIntegerTy() &&
        Info.Shadowed.count(LI->getPointerOperand()))
      mark(Info.Varied, &I);
    return;
  }
  // A call reads memory through the pointers it is given, and may
  // read active globals. Not through the function pointer it calls
  // (loaded from a closure with a shadow): Linearize, which asks the
  // same of the arguments only, would leave the call primal code and
  // its varied result without a tangent.
  auto *CB = dyn_cast<CallBase>(&I);
  auto Inputs = CB ? CB->args() : I.operands();
  bool UsesVaried = (CB && Globals.mayTouchActive(*CB)) ||
                    llvm::any_of(Inputs, [&](const Use &U) {
                      return Info.Varied.count(U.get()) ||
                             (CB && Info.Shadowed.count(U.get()));
                    });
  if (UsesVaried)
    mark(Info.Varied, &I);
}

ActivityInfo computeActivity(const Function &F, const Activity &A,
                             const GlobalShadows &Globals,
                             const CustomRules &Rules) {
  return ActivityPropagation(F, A, Globals, Rules).run();
}

} // namespace ad
