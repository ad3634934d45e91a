//===- LinearizeCalls.cpp - the tangents of calls -------------------------===//
//
// Linearize.cpp's calls: library functions with a rule, calls of user
// functions (a call of g.jvp per activity pattern of the arguments),
// calls through pointers (a dispatcher over the possible targets), the
// C++ library's node-relinking functions, and calls with no derivative.
//
//===----------------------------------------------------------------------===//
#include "LinearizeImpl.h"
#include "driver/CustomRules.h"
#include "driver/DerivedFunctions.h"
#include "driver/Differentiator.h"
#include "driver/IndirectCalls.h"
#include "driver/OpenMPRegions.h"
#include "ir/Linearity.h"
#include "ir/ShadowMemory.h"
#include "linearize/JvpRules.h"
#include "linearize/Linearize.h"
#include "prepare/StreamLibrary.h"

#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Transforms/Utils/Cloning.h"

#define DEBUG_TYPE "ad-linearize"

using namespace llvm;

STATISTIC(NumCallTangents,
          "Number of varied calls of user functions given a tangent");

namespace ad {

void Linearizer::linearizeCall(CallBase &CB) {
  if (isDeallocationCall(&CB))
    return linearizeDeallocation(CB);
  if (isOutParamAllocationCall(&CB))
    return linearizeOutParamAllocation(CB);
  if (isStringBufferAllocationCall(&CB))
    return linearizeStringBufferAllocation(CB);
  // A pointer result that must have a shadow (Activity.cpp) needs the
  // callee's JVP even when no derivative flows in.
  bool ShadowedResult = isPointerLike(CB.getType()) && isShadowed(&CB);
  if (!readsActiveData(CB) && !ShadowedResult)
    return; // Inactive call: stays as primal code.
  bool TouchesGlobals = D.globals().mayTouchActive(CB);
  if (CB.isInlineAsm())
    return fail(CB, "cannot differentiate inline assembly");
  Function *Callee = CB.getCalledFunction();
  if (!Callee)
    return linearizeIndirectCall(CB, TouchesGlobals || ShadowedResult);
  if (D.rules().isInactive(*Callee)) {
    // AD_INACTIVE: a constant result. A pointer result, though given
    // memory with derivatives, gets no shadow: which memory it points to
    // is unknown, so reaching memory through it is an error (shadowOf)
    // where a null shadow would crash the derived code.
    if (isVaried(&CB) && !CB.getType()->isVoidTy())
      Tangent[&CB] = Constant::getNullValue(CB.getType());
    return;
  }
  if (D.rules().customJvp(*Callee))
    return linearizeUserCall(CB, *Callee); // AD_CUSTOM_JVP
  if (const JvpRule *R = findJvpRule(CB, &D.tli(*CB.getFunction())))
    return applyRule(CB, *R);
  if (isComplexArithmetic(*Callee))
    return linearizeComplexArithmetic(CB);
  if (isRegionTapeCode(*Callee))
    return fail(CB, "cannot differentiate a gradient of a function with an "
                    "OpenMP parallel region (not supported): its reverse "
                    "pass keeps a tape per thread; differentiate a forward "
                    "derivative (__ad_derivative) of it instead");
  if (!Callee->isDeclaration())
    return linearizeUserCall(CB, *Callee, /*FirstArgConst=*/false,
                             TouchesGlobals || ShadowedResult);
  if (isKnownInactiveFunction(Callee->getName()))
    return constantResult(CB);
  if (isStreamLibraryFunction(*Callee))
    return linearizeStreamCall(CB, *Callee);
  if (isLinkStructureFunction(Callee->getName()))
    return linearizeRelinkingCall(CB);
  bool PassesActiveMemory = llvm::any_of(
      CB.args(), [&](const Use &U) { return isShadowed(U.get()); });
  // An external function whose result does not carry a derivative and
  // that cannot write memory cannot influence the derivative; given memory
  // with derivatives, a pointer it returns might need a shadow, an integer
  // not (llvm.objectsize, which -fsanitize=undefined adds to array
  // accesses).
  if (!isDifferentiableType(CB.getType()) && Callee->onlyReadsMemory() &&
      (!PassesActiveMemory || !isPointerLike(CB.getType())))
    return;
  // Nor to the OpenMP runtime, which runs an outlined region on threads:
  // declaring it inactive would drop the region's derivative.
  if (isOpenMPRuntimeFunction(*Callee))
    return linearizeOpenMPRuntimeCall(CB, *Callee);
  // Neither suggestion below applies to resizing memory with derivatives.
  if (isReallocationCall(&CB))
    return fail(CB, "cannot differentiate '" + Callee->getName() +
                        "' of memory that carries derivatives (not "
                        "supported yet): allocate the new block with malloc, "
                        "copy the data, and free the old one");
  fail(CB, "cannot differentiate a call to '" + displayName(*Callee) +
               "': it has no derivative rule and its body is not visible "
               "in this translation unit (define it in this file, give it a "
               "forward rule with AD_CUSTOM_JVP, or declare it AD_INACTIVE "
               "if it carries no derivative)");
}

TangentBuilder::TangentBuilder(Instruction *InsertBefore,
                               const Instruction &Primal)
    : IRBuilder(InsertBefore->getContext(), ConstantFolder(),
                IRBuilderCallbackInserter(markLinear)) {
  SetInsertPoint(InsertBefore);
  // Derivative code inherits the user's fast-math choices for this operation.
  if (auto *FPOp = dyn_cast<FPMathOperator>(&Primal))
    setFastMathFlags(FPOp->getFastMathFlags());
}

void Linearizer::replaceCall(CallBase &CB, Value *With) {
  CB.replaceAllUsesWith(With);
  // The activity sets hold raw pointers: a later instruction allocated
  // where CB was must not inherit its marks (the result of an iterator
  // difference, an integer, once came out "with a shadow").
  Varied.erase(&CB);
  Shadowed.erase(&CB);
  FloatBits.erase(&CB);
  Tangent.erase(&CB);
  Shadow.erase(&CB);
  CB.eraseFromParent();
}

/// A call through a function pointer becomes a call of the dispatcher for
/// its type (IndirectCalls.h), which is differentiated like a user function.
void Linearizer::linearizeIndirectCall(CallBase &CB,
                                       bool EvenWithoutActiveArgs) {
  if (!isa<CallInst>(CB) || CB.getFunctionType()->isVarArg())
    return fail(CB, "cannot differentiate this call through a function "
                    "pointer (variadic, or an invoke)");
  Function *Dispatcher =
      getDispatcher(*J->getParent(), CB.getFunctionType(), D.rules());
  if (!Dispatcher)
    return fail(CB, "cannot differentiate a call through a function pointer: "
                    "no function with this signature whose body is visible "
                    "has its address taken in this translation unit");
  SmallVector<Value *, 8> Args{CB.getCalledOperand()};
  Args.append(CB.arg_begin(), CB.arg_end());
  CallInst *Direct =
      CallInst::Create(Dispatcher, Args, CB.getName(), CB.getIterator());
  Direct->setDebugLoc(CB.getDebugLoc());
  if (isVaried(&CB))
    Varied.insert(Direct);
  if (isShadowed(&CB))
    Shadowed.insert(Direct);
  replaceCall(CB, Direct);
  // The target is only compared with functions: it carries no derivative.
  linearizeUserCall(*Direct, *Dispatcher, /*FirstArgConst=*/true,
                    EvenWithoutActiveArgs);
}

/// Every function of a type whose address is taken is a possible target of
/// a call through a pointer of that type (a std::function's manager, a
/// logging callback), though most never are at a given call. One that
/// cannot be differentiated, or a function it calls, must not fail every
/// derivative that calls through such a pointer: errors there are kept,
/// what the attempt generated is erased, and the call is given up on
/// (giveUpOnTarget) as deep in the call tree as the error allows (a
/// std::function's manager copies its closure, which cannot be
/// differentiated at -O0, but also destroys it, which can).
Function *Linearizer::tryTargetJvp(CallBase &CB, Function &Callee,
                                   const Activity &CalleeAct,
                                   std::string &Why) {
  size_t Mark = D.generated().size();
  Function *CalleeJvp;
  SmallVector<std::string, 1> Warnings;
  {
    Diagnostics::Capture Kept(D.diags());
    ++D.speculationDepth();
    CalleeJvp = D.getJvp(Callee, CalleeAct, &CB);
    --D.speculationDepth();
    if (!Kept.errors().empty())
      Why = Kept.errors().front();
    Warnings.append(Kept.warnings().begin(), Kept.warnings().end());
  }
  if (CalleeJvp && Why.empty()) {
    for (const std::string &W : Warnings)
      D.diags().warnAtRequest(W);
    return CalleeJvp;
  }
  D.discardGeneratedSince(Mark);
  if (Why.empty())
    Why = "no reason given";
  return nullptr;
}

void Linearizer::giveUpOnTarget(CallBase &CB, Function &Target, StringRef Why) {
  D.diags().warnAtRequest(
      "'" + displayName(Target) +
      "', reached through a function pointer in the differentiated code, "
      "cannot be differentiated: " +
      Why + ". If derived code calls it, the program aborts with a message");
  IRBuilder<> B(&CB);
  emitUndifferentiableTarget(B, Target);
  constantResult(CB); // the primal call stays, never reached
}

void Linearizer::linearizeRelinkingCall(CallBase &CB) {
  // The shadow nodes mirror the primal ones (each allocated with its node,
  // each link stored with its shadow): relinking them the same way keeps
  // them so, and a node the call returns has the returned shadow node as
  // its shadow. Scalars (which side to insert on) are the same.
  auto Pointers = make_filter_range(
      CB.args(), [](const Use &U) { return U->getType()->isPointerTy(); });
  auto HasShadow = [&](const Use &U) { return isShadowed(U.get()); };
  if (llvm::none_of(Pointers, HasShadow))
    return; // a structure holding no derivatives
  if (!llvm::all_of(Pointers, [&](const Use &U) {
        return HasShadow(U) || isNullDerived(U.get());
      }))
    return fail(CB, "cannot differentiate '" +
                        displayName(*CB.getCalledFunction()) +
                        "': it links nodes that carry derivatives with nodes "
                        "that do not (not supported)");
  SmallVector<Value *, 4> Args;
  for (Use &U : CB.args()) {
    Value *S = U->getType()->isPointerTy() ? shadowOf(U.get(), CB) : U.get();
    if (!S)
      return;
    Args.push_back(S);
  }
  IRBuilder<> B(CB.getNextNode());
  CallInst *OnShadows =
      B.CreateCall(CB.getFunctionType(), CB.getCalledOperand(), Args);
  OnShadows->setAttributes(CB.getAttributes());
  OnShadows->setCallingConv(CB.getCallingConv());
  OnShadows->setDebugLoc(CB.getDebugLoc());
  if (CB.getType()->isPointerTy()) {
    Shadowed.insert(&CB);
    Shadow[&CB] = OnShadows;
  }
}

/// A call that stays primal code: its result carries no derivative, though
/// the activity analysis saw active arguments go in.
/// Stream I/O: a constant result; what `s >> x` reads is a constant, so
/// x's derivative becomes zero.
void Linearizer::linearizeStreamCall(CallBase &CB, Function &Callee) {
  constantResult(CB);
  Type *Read = streamExtractionTarget(Callee);
  Value *Target =
      CB.arg_empty() ? nullptr : CB.getArgOperand(CB.arg_size() - 1);
  if (!Read || !Target || !isShadowed(Target))
    return;
  Value *S = shadowOf(Target, CB);
  if (!S)
    return;
  IRBuilder<> B(CB.getNextNode());
  markLinear(B.CreateStore(Constant::getNullValue(Read), S));
}

void Linearizer::constantResult(CallBase &CB) {
  if (isShadowed(&CB))
    Shadow[&CB] = Constant::getNullValue(CB.getType());
  if (isVaried(&CB) && !CB.getType()->isVoidTy())
    Tangent[&CB] = Constant::getNullValue(CB.getType());
}

/// \p F's parameter \p ArgNo, and at -O0 its reloads from the local it is
/// spilled to.
static SmallVector<const Value *, 4> parameterCopies(const Function &F,
                                                     unsigned ArgNo) {
  const Argument *A = F.getArg(ArgNo);
  SmallVector<const Value *, 4> Copies{A};
  for (const User *U : A->users())
    if (auto *SI = dyn_cast<StoreInst>(U); SI && SI->getValueOperand() == A)
      if (auto *Slot = dyn_cast<AllocaInst>(SI->getPointerOperand()))
        for (const User *SlotUser : Slot->users())
          if (isa<LoadInst>(SlotUser))
            Copies.push_back(SlotUser);
  return Copies;
}

/// Whether \p F stores its parameter \p ArgNo into memory, itself or
/// through the functions it passes it to (up to \p Depth calls deep): a
/// constructor initialising a pointer member, Eigen handing a functor
/// object down to the kernel that keeps a reference to it, or
/// std::unordered_map's operator[] putting its key's address in a tuple
/// five calls down at -O0. A pointer through
/// which no tangent is ever loaded (null, an empty functor object) is passed
/// there with a null shadow: the memory may be shadow memory, which must
/// then hold the stored pointer's shadow.
static bool storesParameter(const Function &F, unsigned ArgNo,
                            unsigned Depth = 8) {
  if (F.isDeclaration() || ArgNo >= F.arg_size())
    return false;
  SmallVector<const Value *, 4> Copies = parameterCopies(F, ArgNo);
  for (unsigned K = 0; K < Copies.size() && K < 16; ++K)
    for (const Use &U : Copies[K]->uses()) {
      if (auto *SI = dyn_cast<StoreInst>(U.getUser());
          SI && U.getOperandNo() == 0 &&
          !isa<AllocaInst>(SI->getPointerOperand()))
        return true;
      auto *CB = dyn_cast<CallBase>(U.getUser());
      const Function *Callee = CB ? CB->getCalledFunction() : nullptr;
      if (!Callee || !CB->isArgOperand(&U) || Callee == &F)
        continue;
      // Passed through std::move or std::forward (at -O0, calls that
      // return their parameter): the result is the same pointer.
      const Argument *Through = returnedParameter(*Callee);
      if (Through && Through->getArgNo() == CB->getArgOperandNo(&U)) {
        Copies.push_back(CB);
        continue;
      }
      if (Depth && storesParameter(*Callee, CB->getArgOperandNo(&U), Depth - 1))
        return true;
    }
  return false;
}

/// Whether \p F loads pointers, or stores floating-point data, through its
/// pointer parameter \p ArgNo (through address arithmetic and choices):
/// std::vector's _M_realloc_insert relocates the elements around its
/// position argument, and _M_fill_insert fills from it, which is null when
/// the vector is empty. Those pointers are stored where pointers with
/// shadows are kept, and that data has derivatives, so the parameter needs
/// a shadow, even a null one.
static bool needsShadowEvenIfNull(const Function &F, unsigned ArgNo) {
  if (F.isDeclaration() || ArgNo >= F.arg_size())
    return false;
  SmallVector<const Value *, 8> Work(parameterCopies(F, ArgNo));
  SmallPtrSet<const Value *, 16> Seen(Work.begin(), Work.end());
  while (!Work.empty() && Seen.size() < 256) {
    const Value *V = Work.pop_back_val();
    for (const User *U : V->users()) {
      if (auto *LI = dyn_cast<LoadInst>(U)) {
        if (LI->getType()->isPointerTy())
          return true;
        continue;
      }
      if (auto *SI = dyn_cast<StoreInst>(U)) {
        if (SI->getPointerOperand() == V &&
            hasFloatLeaf(SI->getValueOperand()->getType()))
          return true;
        continue;
      }
      // A copy into it (the insertion point of std::vector's range
      // insert, which is null + 0 for an empty vector at -O1).
      if (auto *MT = dyn_cast<MemTransferInst>(U)) {
        if (MT->getRawDest() == V)
          return true;
        continue;
      }
      if ((isa<GetElementPtrInst>(U) || isa<PHINode>(U) ||
           isa<SelectInst>(U)) &&
          Seen.insert(U).second)
        Work.push_back(U);
    }
  }
  return false;
}

/// Whether the pointer \p CB returns is only used to read and write
/// integers (through address arithmetic and choices, and compared): the
/// size std::max picks of two sizes, one kept in an object with
/// derivatives. Its shadow is never needed then. An integer read through it
/// that is stored, reinterpreted or passed on might be bytes of a double
/// or of a pointer, whose shadow bytes would have to go along.
static bool onlyIntegersAccessedThrough(const CallBase &CB) {
  SmallVector<const Value *, 8> Work{&CB};
  SmallPtrSet<const Value *, 16> Seen{&CB};
  while (!Work.empty()) {
    const Value *V = Work.pop_back_val();
    for (const User *U : V->users()) {
      if (auto *LI = dyn_cast<LoadInst>(U)) {
        if (!LI->getType()->isIntegerTy() ||
            llvm::any_of(LI->users(), [](const User *IU) {
              return isa<StoreInst>(IU) || isa<CastInst>(IU) ||
                     isa<CallBase>(IU);
            }))
          return false;
      } else if (auto *SI = dyn_cast<StoreInst>(U)) {
        if (SI->getValueOperand() == V ||
            !SI->getValueOperand()->getType()->isIntegerTy())
          return false;
      } else if (isa<ICmpInst>(U)) {
        continue;
      } else if (isa<GetElementPtrInst>(U) || isa<PHINode>(U) ||
                 isa<SelectInst>(U) || isa<FreezeInst>(U)) {
        if (Seen.insert(U).second)
          Work.push_back(U);
      } else {
        return false;
      }
    }
  }
  return true;
}

/// A constant that reads as zero tangents and null pointer shadows from a
/// zeroed twin (GlobalShadows::canHaveZeroTwin): a C++ VTT, from which a
/// base class's constructor takes the vtable pointers it stores into an
/// object with a shadow.
static bool hasZeroTwin(const Value *V) {
  const GlobalVariable *GV = isa<Constant>(V) ? globalBaseOf(V) : nullptr;
  return GV && GlobalShadows::canHaveZeroTwin(*GV);
}

void Linearizer::linearizeUserCall(CallBase &CB, Function &Callee,
                                   bool FirstArgConst,
                                   bool EvenWithoutActiveArgs) {
  if (CB.getFunctionType() != Callee.getFunctionType() || Callee.isVarArg())
    return fail(CB, "cannot differentiate a call of '" + displayName(Callee) +
                        "' through a mismatched or variadic prototype");
  SmallVector<ArgRole, 8> Roles = calleeArgRoles(CB, Callee, FirstArgConst);
  // A pointer result that may point to memory with derivatives, used for
  // more than integers: the callee must return its shadow, even if its
  // own analysis would not find one (memory from an allocator object that
  // carries none, kept where pointers with shadows are kept).
  bool NeedsResultShadow = isPointerLike(CB.getType()) && isShadowed(&CB) &&
                           differentiatedFromBody(&Callee, D.rules()) &&
                           !onlyIntegersAccessedThrough(CB);
  // A checkpointed callee with a rule of its own follows the rule. A
  // handle's f.lin and f.rev run many times: there the call is taped.
  Activity CalleeAct =
      Activity(Roles, NeedsResultShadow, Act.level(), Act.forHandle())
          .withCheckpoint(D.rules().isCheckpointed(Callee) &&
                          !D.rules().customJvp(Callee) && !NeedsResultShadow &&
                          !Act.forHandle());
  // Only zero tangents flow in, none through globals, and no shadow is
  // needed of the result: the call stays primal code.
  if (CalleeAct.numActive() == 0 && !llvm::is_contained(Roles, ArgRole::Dup) &&
      !EvenWithoutActiveArgs)
    return;
  Function *CalleeJvp = calleeJvp(CB, Callee, CalleeAct);
  if (!CalleeJvp)
    return;
  ++NumCallTangents;
  SmallVector<Value *, 8> Args(CB.args());
  if (!appendDerivativeArgs(CB, CalleeAct, Args))
    return;
  replaceByJvpCall(CB, *CalleeJvp, Args);
}

SmallVector<ArgRole, 8>
Linearizer::calleeArgRoles(CallBase &CB, Function &Callee, bool FirstArgConst) {
  // An argument whose tangent is a constant zero is constant for the
  // callee; a pointer with a shadow is passed with it.
  SmallVector<ArgRole, 8> Roles;
  for (Use &U : CB.args()) {
    Value *V = U.get();
    if (FirstArgConst && U.getOperandNo() == 0)
      Roles.push_back(ArgRole::Const);
    else if (isShadowed(V) ||
             (V->getType()->isPointerTy() && pointsToNonDifferentiableData(V) &&
              storesParameter(Callee, U.getOperandNo())) ||
             ((isNullDerived(V) || hasZeroTwin(V)) &&
              needsShadowEvenIfNull(Callee, U.getOperandNo())))
      Roles.push_back(ArgRole::Dup);
    else if (isVaried(V) && isDifferentiableType(V->getType()) &&
             !isa<Constant>(tangentOf(V)))
      Roles.push_back(ArgRole::Active);
    else
      Roles.push_back(ArgRole::Const);
  }
  return Roles;
}

Function *Linearizer::calleeJvp(CallBase &CB, Function &Callee,
                                const Activity &CalleeAct) {
  if (isDispatcher(Primal) || D.speculationDepth()) {
    std::string Why;
    Function *CalleeJvp = tryTargetJvp(CB, Callee, CalleeAct, Why);
    if (!CalleeJvp)
      giveUpOnTarget(CB, Callee, Why);
    return CalleeJvp;
  }
  Function *CalleeJvp = D.getJvp(Callee, CalleeAct, &CB);
  if (!CalleeJvp)
    Failed = true;
  return CalleeJvp;
}

bool Linearizer::appendDerivativeArgs(CallBase &CB, const Activity &CalleeAct,
                                      SmallVectorImpl<Value *> &Args) {
  for (Use &U : CB.args()) {
    if (CalleeAct.isActive(U.getOperandNo()))
      Args.push_back(tangentOf(U.get()));
    else if (CalleeAct.isDup(U.getOperandNo())) {
      // Built on first use for a pointer loaded from memory or the
      // address of an active global; the same place in its zeroed twin
      // for a constant with one; the address itself for one computed from
      // null; null for a pointer without tangents.
      Value *S =
          isShadowed(U.get()) || hasZeroTwin(U.get()) || isNullDerived(U.get())
              ? shadowOf(U.get(), CB)
              : Constant::getNullValue(U.get()->getType());
      if (!S)
        return false;
      Args.push_back(S);
    }
  }
  return true;
}

void Linearizer::replaceByJvpCall(CallBase &CB, Function &CalleeJvp,
                                  ArrayRef<Value *> Args) {
  IRBuilder<> B(&CB);
  CallInst *Mixed = B.CreateCall(&CalleeJvp, Args);
  Mixed->setDebugLoc(CB.getDebugLoc());
  if (isPointerLike(CB.getType()) && Mixed->getType() != CB.getType()) {
    // A pointer into active memory (or a struct of such) and its shadow.
    Value *Y = B.CreateExtractValue(Mixed, 0, CB.getName());
    Value *S = B.CreateExtractValue(Mixed, 1, CB.getName() + ".shadow");
    replaceCall(CB, Y);
    Shadowed.insert(Y);
    Shadow[Y] = S;
    return;
  }
  if (!isDifferentiableType(CB.getType())) {
    // Effects on memory only (or an integer result): no tangent to return.
    replaceCall(CB, Mixed);
    return;
  }
  Value *Y = B.CreateExtractValue(Mixed, 0, CB.getName());
  auto *DY =
      cast<Instruction>(B.CreateExtractValue(Mixed, 1, CB.getName() + ".d"));
  markLinear(DY);
  replaceCall(CB, Y);
  Varied.insert(Y);
  Tangent[Y] = DY;
}

} // namespace ad
