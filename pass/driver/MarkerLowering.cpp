//===- MarkerLowering.cpp - __ad_gradient / __ad_derivative calls ---------===//
#include "driver/MarkerLowering.h"
#include "driver/CustomRules.h"
#include "driver/DerivedFunctions.h"
#include "driver/Differentiator.h"
#include "driver/HandleLowering.h"
#include "driver/LoweringHelpers.h"
#include "driver/TapeRemarks.h"
#include "driver/UnwindingRequests.h"
#include "ir/ExplicitUnwinding.h"
#include "ir/ShadowMemory.h"
#include "linearize/Linearize.h"
#include "prepare/GlobalShadows.h"
#include "unzip/TapeRuntime.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Transforms/Utils/Local.h"
#include <functional>

#define DEBUG_TYPE "ad"

using namespace llvm;

STATISTIC(NumGradients, "Number of __ad_gradient requests lowered");
STATISTIC(NumDerivatives, "Number of __ad_derivative requests lowered");

namespace ad {

/// A variant declared in C++ without extern "C" (g2 __ad_gradient_2(...)
/// AD_MARKER;) has a mangled name; it gets its plain name back, which is
/// how requests are recognised (it was left to clang's "compile with
/// -fpass-plugin" error, with the plugin loaded).
static void unmangleMarkerName(Function &F) {
  if (!F.isDeclaration() || !F.getName().starts_with("_Z"))
    return;
  std::string Mangled = F.getName().str(); // the demangler points into it
  ItaniumPartialDemangler Demangler;
  if (Demangler.partialDemangle(Mangled.c_str()) || !Demangler.isFunction())
    return;
  size_t Size = 0;
  char *Context = Demangler.getFunctionDeclContextName(nullptr, &Size);
  bool Global = !Context || !*Context;
  std::free(Context);
  Size = 0;
  char *Base = Demangler.getFunctionBaseName(nullptr, &Size);
  std::string Name = Base ? Base : "";
  std::free(Base);
  if (Global && isMarkerName(Name) && !F.getParent()->getNamedValue(Name))
    F.setName(Name);
}

void keepMarkersApart(Module &M) {
  for (Function &F : M) {
    unmangleMarkerName(F);
    if (isMarker(F)) {
      F.addFnAttr(Attribute::NoMerge);
      markWholeComplexArguments(F);
    }
  }
}

SmallVector<CallBase *, 8> findMarkers(Module &M) {
  // In program order, so that diagnostics come out in source order.
  SmallVector<CallBase *, 8> Markers;
  for (Function &F : M)
    for (Instruction &I : instructions(F))
      if (auto *CB = dyn_cast<CallBase>(&I))
        if (Function *Callee = CB->getCalledFunction();
            Callee && isMarker(*Callee))
          Markers.push_back(CB);
  return Markers;
}

bool namesRequestedFunction(const Use &U) {
  auto *Marker = dyn_cast<CallBase>(U.getUser());
  Function *Callee = Marker ? Marker->getCalledFunction() : nullptr;
  return Callee && isMarker(*Callee) &&
         U.getOperandNo() == (hasSRet(*Marker) ? 1u : 0u);
}

SmallPtrSet<const Function *, 32>
findActiveGlobals(Module &M, ArrayRef<CallBase *> Markers, Differentiator &D) {
  SmallVector<Function *, 8> Roots;
  for (CallBase *Marker : Markers)
    if (Function *F = requestedFunction(*Marker))
      Roots.push_back(F);
  SmallPtrSet<const Function *, 32> Reach =
      reachableFunctions(M, Roots, D.rules());
  D.globals().findActive(M, Reach, D.rules().declaredShadows());
  return Reach;
}

/// Scalar leaves of \p T with their byte offsets: two types with the same
/// leaves have the same memory image, which is what C's ABI coercions
/// ({float, float, float} returned as {<2 x float>, float}) preserve.
static void flattenLeaves(Type *T, uint64_t Offset, const DataLayout &DL,
                          SmallVectorImpl<std::pair<uint64_t, Type *>> &Out) {
  if (auto *ST = dyn_cast<StructType>(T)) {
    const StructLayout *SL = DL.getStructLayout(ST);
    for (unsigned K = 0; K < ST->getNumElements(); ++K)
      flattenLeaves(ST->getElementType(K), Offset + SL->getElementOffset(K), DL,
                    Out);
  } else if (auto *AT = dyn_cast<ArrayType>(T)) {
    uint64_t Size = DL.getTypeAllocSize(AT->getElementType());
    for (uint64_t K = 0; K < AT->getNumElements(); ++K)
      flattenLeaves(AT->getElementType(), Offset + K * Size, DL, Out);
  } else if (auto *VT = dyn_cast<FixedVectorType>(T)) {
    uint64_t Size = DL.getTypeAllocSize(VT->getElementType());
    for (unsigned K = 0; K < VT->getNumElements(); ++K)
      flattenLeaves(VT->getElementType(), Offset + K * Size, DL, Out);
  } else {
    Out.push_back({Offset, T});
  }
}

static std::string describeFields(ArrayRef<Type *> Tys) {
  std::string S = "{";
  for (Type *T : Tys)
    S += (S.size() > 1 ? ", " : "") + cTypeName(T);
  return S + "}";
}

/// The type the marker hands back: its return type, or its sret pointee.
static Type *markerResultType(CallBase &Marker) {
  return hasSRet(Marker) ? Marker.getParamStructRetType(0) : Marker.getType();
}

/// The derivative is one value per active argument (reverse mode) or the
/// output tangent (forward mode), of types \p Tys. Checks that the marker
/// was declared to return something with that memory image, before any code
/// is generated. False after reporting.
bool checkResultType(CallBase &Marker, ArrayRef<Type *> Tys,
                     Diagnostics &Diags) {
  Type *Target = markerResultType(Marker);
  if (Target->isVoidTy() || Tys.empty())
    return true;
  if (Tys.size() == 1 && Target->isFloatingPointTy() &&
      (Tys[0] == Target || (Tys[0]->isFloatTy() && Target->isDoubleTy())))
    return true;
  const DataLayout &DL = Marker.getModule()->getDataLayout();
  SmallVector<std::pair<uint64_t, Type *>, 8> Want, Have;
  flattenLeaves(StructType::get(Marker.getContext(), Tys), 0, DL, Want);
  flattenLeaves(Target, 0, DL, Have);
  if (Want == Have)
    return true;
  Diags.errorAtRequest(
      Marker.getCalledFunction()->getName() + " is declared to return " +
      (Target->isStructTy()
           ? "a struct " + describeFields(cast<StructType>(Target)->elements())
           : cTypeName(Target)) +
      ", which does not match the derivative: it must return " +
      (Tys.size() == 1 ? cTypeName(Tys[0])
                       : "a struct with one field per active argument, in "
                         "order: " +
                             describeFields(Tys)));
  return false;
}

/// Makes the marker's result from \p Values (types already checked) and
/// replaces its uses.
void emitResult(CallBase &Marker, ArrayRef<Value *> Values) {
  Type *Target = markerResultType(Marker);
  if (Target->isVoidTy())
    return;
  if (Values.empty()) {
    // Nothing is active: the derivative is an empty tuple. Give zeros.
    Marker.replaceAllUsesWith(Constant::getNullValue(Marker.getType()));
    return;
  }
  IRBuilder<> B(&Marker);
  if (Values.size() == 1 && Target->isFloatingPointTy()) {
    Marker.replaceAllUsesWith(B.CreateFPExt(Values[0], Target));
    return;
  }
  SmallVector<Type *, 8> FieldTys;
  for (Value *V : Values)
    FieldTys.push_back(V->getType());
  StructType *CLayout = StructType::get(Marker.getContext(), FieldTys);
  AllocaInst *Slot = B.CreateAlloca(CLayout, nullptr, "ad.result");
  for (unsigned K = 0; K < Values.size(); ++K)
    B.CreateStore(Values[K], B.CreateStructGEP(CLayout, Slot, K));
  if (hasSRet(Marker))
    B.CreateMemCpy(
        Marker.getArgOperand(0), MaybeAlign(), Slot, MaybeAlign(),
        Marker.getModule()->getDataLayout().getTypeStoreSize(CLayout));
  else
    Marker.replaceAllUsesWith(B.CreateLoad(Target, Slot));
}

/// The shadow globals the functions a request calls use, and what they
/// call. For a gradient those of f.fwd too: f.rev may reach a shadow only
/// through an address f.fwd put on the tape (at -O0, a pointer chosen
/// between two globals, a _Thread_local global).
SmallSetVector<GlobalVariable *, 4>
globalShadowsUsedBy(ArrayRef<Function *> Derived, Differentiator &D) {
  SmallSetVector<GlobalVariable *, 4> Shadows;
  for (Function *F : Derived)
    Shadows.set_union(D.globals().shadowsUsedFrom(*F));
  return Shadows;
}

/// Globals are not inputs or outputs of a request: the tangents of their
/// contents when the derived code starts, or the cotangents when it ends,
/// are zero (GlobalShadows.h), whatever the previous request left in their
/// \p Shadows. Clears them at \p B.
void zeroGlobalShadows(IRBuilder<> &B, ArrayRef<GlobalVariable *> Shadows,
                       Differentiator &D) {
  const DataLayout &DL = D.module().getDataLayout();
  for (GlobalVariable *S : Shadows)
    B.CreateMemSet(S, B.getInt8(0), DL.getTypeAllocSize(S->getValueType()),
                   S->getAlign());
}

/// Tapes larger than this are allocated on the heap by the request.
static constexpr uint64_t MaxStackTapeBytes = 64 * 1024;

/// Whether \p Roots, or a function they reach, has an instruction that
/// \p Accept accepts.
static bool reachesInstruction(Module &M, ArrayRef<Function *> Roots,
                               const CustomRules &Rules,
                               function_ref<bool(const Instruction &)> Accept) {
  for (const Function *G : reachableFunctions(M, Roots, Rules))
    for (const Instruction &I : instructions(*G))
      if (Accept(I))
        return true;
  return false;
}

/// Whether derived functions \p Roots, or what they call, keep records on
/// the runtime tape. Most modules have no loop derivative at all, and then
/// no tape function is declared: nothing to walk.
static bool usesRuntimeTape(Module &M, ArrayRef<Function *> Roots,
                            const CustomRules &Rules) {
  return declaresTapeFunction(M, TapeOp::Push) &&
         reachesInstruction(M, Roots, Rules, [](const Instruction &I) {
           return isTapeCall(&I, TapeOp::Push);
         });
}

/// The types of a gradient's parts: those of \p R's active parameters.
SmallVector<Type *, 8> gradientTypes(const Request &R) {
  SmallVector<Type *, 8> GradTys;
  for (Argument &A : R.Fn->args())
    if (R.Act.isActive(A.getArgNo()))
      GradTys.push_back(A.getType());
  return GradTys;
}

/// Checks, before anything is built, that the marker can return a gradient
/// of types \p GradTys and that f has one. False after reporting.
static bool checkGradientRequest(const Request &R, ArrayRef<Type *> GradTys,
                                 Diagnostics &Diags) {
  if (!checkResultType(*R.Marker, GradTys, Diags))
    return false;
  if (R.Fn->getReturnType()->isAggregateType()) {
    Diags.errorAtRequest(R.Marker->getCalledFunction()->getName() + ": '" +
                         displayName(*R.Fn) +
                         "' returns a struct; a gradient needs a float or "
                         "double result (or void, with output shadows)");
    return false;
  }
  return true;
}

namespace {
/// Where a request keeps f.fwd's tape for f.rev.
struct RequestTape {
  Value *Ptr;
  bool OnHeap;
};
} // namespace

/// The tape holds the shadows of f's local arrays: in the caller's frame,
/// a large one overflowed the stack (a 5.6 MB local array, or a few
/// requests of 1 MB arrays at -O0, where each gets its own tape). Large
/// tapes live on the heap for the request (malloc'd at \p B); others are a
/// local of the caller.
static RequestTape allocateTape(IRBuilder<> &B, Type *TapeTy, Module &M) {
  uint64_t TapeBytes = M.getDataLayout().getTypeAllocSize(TapeTy);
  if (TapeBytes > MaxStackTapeBytes) {
    Type *Ptr = B.getPtrTy(),
         *SizeTy = M.getDataLayout().getIntPtrType(M.getContext());
    FunctionCallee Malloc = M.getOrInsertFunction("malloc", Ptr, SizeTy);
    return {
        B.CreateCall(Malloc, {ConstantInt::get(SizeTy, TapeBytes)}, "ad.tape"),
        true};
  }
  Function &Caller = *B.GetInsertBlock()->getParent();
  IRBuilder<> Entry(&*Caller.getEntryBlock().getFirstInsertionPt());
  return {Entry.CreateAlloca(TapeTy, nullptr, "ad.tape"), false};
}

/// Ends the tape's life at \p B, once f.rev has read it.
static void releaseTape(IRBuilder<> &B, const RequestTape &Tape, Module &M) {
  if (Tape.OnHeap)
    B.CreateCall(M.getOrInsertFunction("free", B.getVoidTy(), B.getPtrTy()),
                 {Tape.Ptr});
  else
    B.CreateLifetimeEnd(Tape.Ptr);
}

/// Calls f.fwd, which fills \p Tape, then f.rev with a seed of 1 for f's
/// result; returns f.rev's call, the cotangents of the active parameters.
/// The global shadows f.fwd wrote (\p Shadows) are cleared in between.
/// When f can throw, f.fwd is called through f.fwd.guarded, which undoes
/// what f.fwd did if it unwinds (UnwindingRequests.h); that call is
/// R.MayUnwind.
static CallInst *callForwardThenReverse(IRBuilder<> &B, Request &R,
                                        Function *Fwd, Function *Rev,
                                        Value *Tape, bool TapeOnHeap,
                                        ArrayRef<GlobalVariable *> Shadows,
                                        Differentiator &D) {
  SmallVector<Value *, 8> FwdArgs(R.Args);
  FwdArgs.append(R.Extras.begin(), R.Extras.end()); // shadows
  FwdArgs.push_back(Tape);
  // f.rev frees the shadow of memory f freed where it reaches the memory's
  // allocation. A shadow it cannot, because f freed memory the caller
  // passed in, is a run-time error when the request ends.
  Value *FreesMark = emitShadowFreesBegin(B);
  bool TrimsTape = usesRuntimeTape(D.module(), {Fwd, Rev}, D.rules());
  CallInst *FwdCall;
  if (unwindsExplicitly(*Fwd)) {
    Function *Guarded = guardedForward(
        *Fwd, *Rev, {TapeOnHeap, FreesMark != nullptr, TrimsTape});
    D.noteGenerated(Guarded);
    if (FreesMark)
      FwdArgs.push_back(FreesMark);
    FwdCall = R.MayUnwind = B.CreateCall(Guarded, FwdArgs);
  } else {
    FwdCall = B.CreateCall(Fwd, FwdArgs);
  }
  FwdCall->setDebugLoc(R.Marker->getDebugLoc());
  zeroGlobalShadows(B, Shadows, D);
  SmallVector<Value *, 2> RevArgs{Tape};
  if (Rev->arg_size() > 1)
    RevArgs.push_back(ConstantFP::get(Rev->getArg(1)->getType(), 1.0));
  CallInst *Cts = B.CreateCall(Rev, RevArgs);
  Cts->setDebugLoc(R.Marker->getDebugLoc());
  if (FreesMark)
    emitShadowFreesEnd(B, FreesMark);
  if (TrimsTape)
    emitTapeTrim(B);
  return Cts;
}

static bool lowerGradient(Request &R, Differentiator &D) {
  SmallVector<Type *, 8> GradTys = gradientTypes(R);
  if (!checkGradientRequest(R, GradTys, D.diags()))
    return false;
  auto G = D.getGradient(*R.Fn, R.Act, R.Marker);
  if (!G)
    return false;
  auto &[U, Rev] = *G;
  remarkTape(R, U, D);
  IRBuilder<> B(R.Marker);
  RequestTape Tape = allocateTape(B, U.Tape, D.module());
  SmallSetVector<GlobalVariable *, 4> Shadows =
      globalShadowsUsedBy({U.Fwd, Rev}, D);
  checkArgumentsOutsideGlobals(B, R, {U.Fwd, Rev}, D);
  if (!Tape.OnHeap)
    B.CreateLifetimeStart(Tape.Ptr);
  CallInst *Cts = callForwardThenReverse(B, R, U.Fwd, Rev, Tape.Ptr,
                                         Tape.OnHeap, Shadows.getArrayRef(), D);
  releaseTape(B, Tape, D.module());

  SmallVector<Value *, 8> Grads;
  for (unsigned K = 0; K < GradTys.size(); ++K)
    Grads.push_back(GradTys.size() == 1 ? static_cast<Value *>(Cts)
                                        : B.CreateExtractValue(Cts, K));
  emitResult(*R.Marker, Grads);
  ++NumGradients;
  return true;
}

static bool containsInteger(Type *T) {
  if (T->isIntegerTy())
    return true;
  if (auto *ST = dyn_cast<StructType>(T))
    return any_of(ST->elements(), containsInteger);
  if (auto *AT = dyn_cast<ArrayType>(T))
    return containsInteger(AT->getElementType());
  return false;
}

/// The tangent of a struct result with its integer fields taken from the
/// result itself. They carry no derivative, and a zero there is a different
/// value: the tangent of an engaged std::optional<double> came back empty,
/// and a {value, steps} pair without its step count.
static Value *withResultIntegers(IRBuilderBase &B, Value *Tangent,
                                 Value *Result) {
  Type *T = Tangent->getType();
  if (T->isIntegerTy())
    return Result;
  if (!containsInteger(T))
    return Tangent;
  unsigned N = T->isStructTy() ? T->getStructNumElements()
                               : unsigned(T->getArrayNumElements());
  for (unsigned K = 0; K < N; ++K)
    Tangent = B.CreateInsertValue(
        Tangent,
        withResultIntegers(B, B.CreateExtractValue(Tangent, K),
                           B.CreateExtractValue(Result, K)),
        K);
  return Tangent;
}

/// For f returning a struct in memory: f.jvp writes the result to a new
/// local of the caller and its tangent to a second, its shadow, which
/// starts at zero (set at \p B) and becomes the marker's result. Makes
/// them \p R's first argument and first extra; returns the tangent's.
static AllocaInst *makeResultLocals(IRBuilder<> &B, Request &R,
                                    const DataLayout &DL) {
  IRBuilder<> EB(&*R.Marker->getFunction()->getEntryBlock().begin());
  Align A = R.Fn->getParamAlign(0).valueOrOne();
  AllocaInst *Result =
      EB.CreateAlloca(R.ResultInMemory, nullptr, "ad.result.value");
  AllocaInst *ResultTangent =
      EB.CreateAlloca(R.ResultInMemory, nullptr, "ad.result.tangent");
  Result->setAlignment(A);
  ResultTangent->setAlignment(A);
  B.CreateMemSet(ResultTangent, B.getInt8(0),
                 DL.getTypeAllocSize(R.ResultInMemory), A);
  R.Args[0] = Result;
  R.Extras[0] = ResultTangent;
  return ResultTangent;
}

static bool lowerDerivative(Request &R, Differentiator &D) {
  Type *RetTy = R.ResultInMemory ? R.ResultInMemory : R.Fn->getReturnType();
  bool HasTangent = isDifferentiableType(RetTy);
  // A caller may ignore the marker's value (docs/api.md): only a value that
  // is used must be one the derivative has.
  bool ResultUsed = !R.Marker->use_empty() || hasSRet(*R.Marker);
  if (!HasTangent && ResultUsed && !markerResultType(*R.Marker)->isVoidTy()) {
    D.diags().errorAtRequest(R.Marker->getCalledFunction()->getName() + ": '" +
                             displayName(*R.Fn) +
                             "' returns no float/double value, so there is "
                             "no tangent to return (declare a void variant)");
    return false;
  }
  SmallVector<Type *, 1> OutTys;
  if (HasTangent)
    OutTys.push_back(RetTy);
  if (!checkResultType(*R.Marker, OutTys, D.diags()))
    return false;
  Function *Jvp = D.getJvp(*R.Fn, R.Act, R.Marker);
  if (!Jvp)
    return false;
  IRBuilder<> B(R.Marker);
  AllocaInst *ResultTangent =
      R.ResultInMemory ? makeResultLocals(B, R, D.module().getDataLayout())
                       : nullptr;
  SmallVector<Value *, 8> Args(R.Args);
  Args.append(R.Extras.begin(), R.Extras.end());
  SmallSetVector<GlobalVariable *, 4> Shadows = globalShadowsUsedBy({Jvp}, D);
  checkArgumentsOutsideGlobals(B, R, {Jvp}, D);
  zeroGlobalShadows(B, Shadows.getArrayRef(), D);
  CallInst *Call = B.CreateCall(Jvp, Args);
  Call->setDebugLoc(R.Marker->getDebugLoc());
  if (unwindsExplicitly(*Jvp))
    R.MayUnwind = Call;
  SmallVector<Value *, 1> Out;
  if (HasTangent)
    Out.push_back(ResultTangent
                      ? withResultIntegers(
                            B, B.CreateLoad(RetTy, ResultTangent, "ad.tangent"),
                            B.CreateLoad(RetTy, R.Args[0]))
                      : withResultIntegers(B, B.CreateExtractValue(Call, 1),
                                           B.CreateExtractValue(Call, 0)));
  emitResult(*R.Marker, Out);
  ++NumDerivatives;
  return true;
}

/// Generated functions nobody calls (f.lin once f.rev exists, JVPs used
/// only to build other functions) are dropped before code generation.
static void eraseUnusedGenerated(Module &M) {
  bool Changed = true;
  while (Changed) {
    Changed = false;
    for (Function &F : make_early_inc_range(M))
      if (getDerivedInfo(F) && F.use_empty()) {
        F.eraseFromParent();
        Changed = true;
      }
  }
}

/// The nesting level of each of \p Markers (Activity::level): 0 when the
/// code its request differentiates reaches no other marker, otherwise one
/// more than the deepest level it reaches. A cycle gets some levels and is
/// reported when the inner marker is met.
static SmallVector<unsigned, 8> nestingLevels(Module &M,
                                              ArrayRef<CallBase *> Markers,
                                              const CustomRules &Rules) {
  size_t N = Markers.size();
  SmallVector<unsigned, 8> Level(N, 0);
  SmallVector<SmallPtrSet<const Function *, 32>, 8> ReachOf;
  for (CallBase *Marker : Markers) {
    SmallVector<Function *, 1> Roots;
    if (Function *F = requestedFunction(*Marker))
      Roots.push_back(F);
    ReachOf.push_back(reachableFunctions(M, Roots, Rules));
  }
  // Depth first; marking on entry makes a cycle stop where it closes.
  SmallVector<bool, 8> Visited(N, false);
  std::function<void(size_t)> Visit = [&](size_t I) {
    if (Visited[I])
      return;
    Visited[I] = true;
    for (size_t J = 0; J < N; ++J)
      if (J != I && ReachOf[I].count(Markers[J]->getFunction())) {
        Visit(J);
        Level[I] = std::max(Level[I], Level[J] + 1);
      }
  };
  for (size_t I = 0; I < N; ++I)
    Visit(I);
  return Level;
}

/// A request differentiates its function and everything that reaches, so
/// a marker inside that code (a second derivative: the gradient of a
/// function that itself asks for a gradient) must already be derived code
/// when the request reads it. Gives each of \p Markers its nesting level
/// and orders them by level, so that inner requests come first and a
/// level's active globals are decided when all the code it differentiates
/// exists, and within a level as they are (program order). \p Reach is
/// what all the requests reach together: when it holds no marker, nothing
/// is nested.
static SmallVector<std::pair<CallBase *, unsigned>, 8>
byNestingLevel(Module &M, ArrayRef<CallBase *> Markers,
               const SmallPtrSetImpl<const Function *> &Reach,
               const CustomRules &Rules) {
  bool Nested = llvm::any_of(Markers, [&](CallBase *Marker) {
    return Reach.count(Marker->getFunction());
  });
  SmallVector<unsigned, 8> Level =
      Nested ? nestingLevels(M, Markers, Rules)
             : SmallVector<unsigned, 8>(Markers.size(), 0);
  SmallVector<std::pair<CallBase *, unsigned>, 8> Order;
  for (size_t I = 0; I < Markers.size(); ++I)
    Order.push_back({Markers[I], Level[I]});
  llvm::stable_sort(
      Order, [](const auto &A, const auto &B) { return A.second < B.second; });
  return Order;
}

/// Decides the active globals of nesting level \p Level > 0 from what its
/// requests in \p Order reach now that the inner requests are derived code
/// (which writes the inner levels' shadows).
static void
findActiveGlobalsOfLevel(Module &M,
                         ArrayRef<std::pair<CallBase *, unsigned>> Order,
                         unsigned Level, Differentiator &D) {
  SmallVector<Function *, 8> Roots;
  for (auto &[Marker, L] : Order)
    if (L == Level)
      if (Function *F = requestedFunction(*Marker))
        Roots.push_back(F);
  D.globals().findActive(M, reachableFunctions(M, Roots, D.rules()),
                         D.rules().declaredShadows(), Level);
}

/// Whether every use of \p F is a request naming it or a direct call from
/// code no request differentiates (\p Reach): no derived function calls
/// f.fwd or f.lin, and nothing takes F's address, so each f.fwd of F runs
/// right before its f.rev.
static bool
calledOnlyByRequests(const Function &F,
                     const SmallPtrSetImpl<const Function *> &Reach) {
  for (const Use &U : F.uses()) {
    auto *CB = dyn_cast<CallBase>(U.getUser());
    if (!CB)
      return false;
    if (const Function *Callee = CB->getCalledFunction();
        Callee && isMarker(*Callee) && !CB->isCallee(&U))
      continue;
    if (!CB->isCallee(&U) || Reach.count(CB->getFunction()))
      return false;
  }
  return true;
}

/// Tells \p D which requested functions are called only by requests
/// (calledOnlyByRequests), given what the requests reach (\p Reach).
static void noteFunctionsCalledOnlyByRequests(
    ArrayRef<CallBase *> Markers,
    const SmallPtrSetImpl<const Function *> &Reach, Differentiator &D) {
  SmallPtrSet<const Function *, 8> OnlyRequested;
  for (CallBase *Marker : Markers)
    if (Function *F = requestedFunction(*Marker);
        F && calledOnlyByRequests(*F, Reach))
      OnlyRequested.insert(F);
  D.setCalledOnlyByRequests(std::move(OnlyRequested));
}

/// Replaces \p Marker, a request of nesting level \p Level, by derivative
/// code, or reports why it cannot. Either way the marker is gone.
static void lowerRequest(Module &M, CallBase *Marker, unsigned Level,
                         Differentiator &D) {
  // Inside a try, the request's own calls unwind to the handler.
  BasicBlock *UnwindDest;
  Marker = callInsteadOfInvoke(*Marker, UnwindDest);
  BasicBlock *MarkerBlock = Marker->getParent();
  D.diags().setRequest(Marker);
  D.beginRequest();
  std::optional<Request> R = parseRequest(*Marker, D.diags(), D.rules());
  if (R)
    R->Act = R->Act.atLevel(Level);
  bool Ok = R && (R->Op != HandleOp::None ? lowerHandleRequest(*R, D)
                  : R->Reverse            ? lowerGradient(*R, D)
                                          : lowerDerivative(*R, D));
  D.endRequest(Ok);
  unwindToHandler(Ok ? R->MayUnwind : nullptr, UnwindDest, MarkerBlock);
  if (!Ok && !Marker->getType()->isVoidTy())
    Marker->replaceAllUsesWith(PoisonValue::get(Marker->getType()));
  Marker->eraseFromParent();
}

/// Once every request is lowered: erases what only the requests used (the
/// markers' declarations, the activity tags, the rule registrations,
/// generated functions nobody calls) and finishes the JVPs left.
static void eraseRequestLeftovers(Module &M, Differentiator &D) {
  for (Function &F : make_early_inc_range(M))
    if (isMarker(F) && F.use_empty())
      F.eraseFromParent();
  eraseUnusedActivityTags(M);
  CustomRules::eraseRegistrations(M);
  eraseUnusedGenerated(M);
  for (Function &F : M)
    if (auto Info = getDerivedInfo(F);
        Info && Info->Kind == DerivedKind::Jvp && !F.isDeclaration())
      keepZeroTangentsZero(F);
  // A JVP whose body moved into f.fwd must have gone with its last caller.
  for (Function &F : M)
    if (F.isDeclaration() && getDerivedInfo(F))
      D.diags().internalError(nullptr, "'" + F.getName() +
                                           "' is still called after its "
                                           "body moved into f.fwd");
}

SmallSetVector<Function *, 8> lowerMarkers(Module &M, Differentiator &D) {
  SmallVector<CallBase *, 8> Markers = findMarkers(M);
  SmallSetVector<Function *, 8> Callers;
  if (Markers.empty())
    return Callers;
  for (CallBase *Marker : Markers)
    Callers.insert(Marker->getFunction());
  SmallPtrSet<const Function *, 32> Reach = findActiveGlobals(M, Markers, D);
  noteFunctionsCalledOnlyByRequests(Markers, Reach, D);
  SmallVector<std::pair<CallBase *, unsigned>, 8> Order =
      byNestingLevel(M, Markers, Reach, D.rules());
  D.setDerivedCodeDifferentiated(llvm::any_of(
      Order, [](const auto &MarkerLevel) { return MarkerLevel.second > 0; }));
  // Forward mode calls f.jvp itself; reverse mode only unzips it.
  // (Handle markers, like gradients, only use what unzipping makes.)
  D.setJvpsDisposable(llvm::all_of(Markers, [](CallBase *Marker) {
    return isGradientMarker(*Marker) || handleOpOf(*Marker) != HandleOp::None;
  }));
  unsigned CurrentLevel = 0;
  for (auto [Marker, Level] : Order) {
    if (Level != CurrentLevel) {
      // The next level differentiates this one's derived code as it runs.
      materializeUnwinding(M);
      findActiveGlobalsOfLevel(M, Order, CurrentLevel = Level, D);
    }
    lowerRequest(M, Marker, Level, D);
  }
  D.diags().setRequest(nullptr);
  materializeUnwinding(M);
  eraseRequestLeftovers(M, D);
  return Callers;
}

} // namespace ad
