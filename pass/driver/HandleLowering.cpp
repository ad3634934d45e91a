//===- HandleLowering.cpp - __ad_linearize, __ad_jvp, __ad_vjp ------------===//
//
//   L = __ad_linearize(f, &y, x...)  ->  L = __ad_linear_begin(tag, size, n)
//                                        y = f.fwd(x..., placeholders...,
//                                                  __ad_linear_tape(L))
//                                        __ad_linear_end(L)
//   __ad_jvp(f, L, x, dx...)         ->  t = __ad_linear_enter(L, tag, ...,
//                                                          shadows)
//                                        dy = f.lin(t, dx...)
//                                        __ad_linear_leave(L)
//   __ad_vjp(f, L, ct, x...)         ->  the same with f.rev(t, ct)
//
// The runtime (runtime/Handle.cpp) owns the tape; the placeholders stand
// for the shadows, which only the applications know.
//
//===----------------------------------------------------------------------===//
#include "driver/HandleLowering.h"
#include "driver/DerivedFunctions.h"
#include "driver/Diagnostics.h"
#include "driver/Differentiator.h"
#include "driver/LoweringHelpers.h"
#include "ir/LinearityVerifier.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"

using namespace llvm;

namespace ad {

/// Shadow K of a handle's f.fwd is the address PlaceholderBase + (K <<
/// PlaceholderShift) (runtime/Handle.cpp decodes it).
static constexpr uint64_t PlaceholderBase = uint64_t(1) << 63;
static constexpr unsigned PlaceholderShift = 40;

/// What a handle is made for, as its messages name it: the function and
/// the role of each parameter.
static std::string handleTag(const Request &R) {
  std::string Roles;
  for (unsigned K = 0; K < R.Act.size(); ++K)
    Roles += std::string(K ? ", " : "") + (R.Act.isActive(K) ? "active"
                                           : R.Act.isDup(K)  ? "with shadow"
                                                             : "constant");
  return "'" + displayName(*R.Fn) + "' (" + Roles + ")";
}

static Value *tagString(IRBuilder<> &B, const Request &R) {
  return B.CreateGlobalString(handleTag(R), "ad.handle.tag");
}

/// The linearity verifier on \p Roots and the derived functions they call,
/// whatever -ad-verify-each says: what a handle runs is applied many
/// times, long after the point it was made at. False after reporting.
static bool verifyHandleCode(ArrayRef<Function *> Roots, Differentiator &D) {
  SmallSetVector<Function *, 8> Work(Roots.begin(), Roots.end());
  for (size_t K = 0; K < Work.size(); ++K) {
    Function *F = Work[K];
    std::string Msg;
    if (!verifyLinearFunction(*F, Msg)) {
      D.diags().internalError(nullptr, "linearity invariant broken in '" +
                                           F->getName() + "': " + Msg);
      return false;
    }
    for (Instruction &I : instructions(*F))
      if (auto *CB = dyn_cast<CallBase>(&I))
        if (Function *Callee = CB->getCalledFunction();
            Callee && !Callee->isDeclaration() && getDerivedInfo(*Callee))
          Work.insert(Callee);
  }
  return true;
}

static FunctionCallee runtimeFn(Module &M, StringRef Name, Type *Ret,
                                ArrayRef<Type *> Params) {
  return M.getOrInsertFunction(Name, FunctionType::get(Ret, Params, false));
}

/// f.fwd, f.lin and %f.tape of \p R's function, for a handle.
static std::optional<Unzipped> handleFunctions(const Request &R,
                                               Differentiator &D) {
  Function *Jvp = D.getJvp(*R.Fn, R.Act.asHandle(), R.Marker);
  if (!Jvp)
    return std::nullopt;
  std::optional<Unzipped> U = D.getUnzipped(*Jvp);
  if (!U || !verifyHandleCode({U->Fwd, U->Lin}, D))
    return std::nullopt;
  return U;
}

static bool lowerLinearize(Request &R, Differentiator &D) {
  CallBase &Marker = *R.Marker;
  if (!Marker.getType()->isPointerTy()) {
    D.diags().errorAtRequest(Marker.getCalledFunction()->getName() +
                             " must be declared to return ad_linear *");
    return false;
  }
  std::optional<Unzipped> U = handleFunctions(R, D);
  if (!U)
    return false;
  Module &M = D.module();
  IRBuilder<> B(&Marker);
  Type *Ptr = B.getPtrTy(), *I64 = B.getInt64Ty();
  checkArgumentsOutsideGlobals(B, R, {U->Fwd}, D);
  Value *Bytes = B.getInt64(M.getDataLayout().getTypeAllocSize(U->Tape));
  uint64_t NumShadows = 0;
  for (unsigned K = 0; K < R.Act.size(); ++K)
    NumShadows += R.Act.isDup(K);
  Value *L = B.CreateCall(
      runtimeFn(M, "__ad_linear_begin", Ptr, {Ptr, I64, I64}),
      {tagString(B, R), Bytes, B.getInt64(NumShadows)}, "ad.handle");
  SmallVector<Value *, 8> Args(R.Args);
  NumShadows = 0;
  for (unsigned K = 0; K < R.Act.size(); ++K)
    if (R.Act.isDup(K))
      Args.push_back(ConstantExpr::getIntToPtr(
          ConstantInt::get(I64, PlaceholderBase +
                                    (NumShadows++ << PlaceholderShift)),
          R.Fn->getArg(K)->getType()));
  Args.push_back(
      B.CreateCall(runtimeFn(M, "__ad_linear_tape", Ptr, {Ptr}), {L}));
  CallInst *Y = B.CreateCall(U->Fwd, Args);
  Y->setDebugLoc(Marker.getDebugLoc());
  B.CreateCall(runtimeFn(M, "__ad_linear_end", B.getVoidTy(), {Ptr}), {L});
  if (R.Lead) {
    Value *Result = Y;
    if (Y->getType() != R.Fn->getReturnType())
      Result = B.CreateExtractValue(Y, 0); // a pointer, with its shadow
    B.CreateStore(Result, R.Lead);
  }
  Marker.replaceAllUsesWith(L);
  return true;
}

/// Installs the handle for an application at \p B: checks it, clears the
/// global shadows \p Derived use, and returns the static tape.
static Value *enterHandle(IRBuilder<> &B, const Request &R,
                          ArrayRef<Function *> Derived, Differentiator &D) {
  Module &M = D.module();
  Type *Ptr = B.getPtrTy();
  SmallVector<Value *, 8> Shadows;
  for (unsigned K = 0, E = 0; K < R.Act.size(); ++K)
    if (R.Act.hasDerivative(K)) {
      if (R.Act.isDup(K))
        Shadows.push_back(R.Extras[E]);
      ++E;
    }
  Value *Table = ConstantPointerNull::get(cast<PointerType>(Ptr));
  if (!Shadows.empty()) {
    Function &Caller = *B.GetInsertBlock()->getParent();
    IRBuilder<> Entry(&*Caller.getEntryBlock().getFirstInsertionPt());
    auto *TableTy = ArrayType::get(Ptr, Shadows.size());
    Table = Entry.CreateAlloca(TableTy, nullptr, "ad.shadows");
    for (unsigned K = 0; K < Shadows.size(); ++K)
      B.CreateStore(Shadows[K], B.CreateConstGEP2_32(TableTy, Table, 0, K));
  }
  checkArgumentsOutsideGlobals(B, R, Derived, D);
  zeroGlobalShadows(B, globalShadowsUsedBy(Derived, D).getArrayRef(), D);
  Value *Marker = B.CreateGlobalString(R.Marker->getCalledFunction()->getName(),
                                       "ad.marker.name");
  return B.CreateCall(
      runtimeFn(M, "__ad_linear_enter", Ptr, {Ptr, Ptr, Ptr, Ptr}),
      {R.Lead, tagString(B, R), Marker, Table}, "ad.tape");
}

static void leaveHandle(IRBuilder<> &B, const Request &R, Differentiator &D) {
  B.CreateCall(
      runtimeFn(D.module(), "__ad_linear_leave", B.getVoidTy(), {B.getPtrTy()}),
      {R.Lead});
}

static bool lowerJvp(Request &R, Differentiator &D) {
  Type *RetTy = R.Fn->getReturnType();
  SmallVector<Type *, 1> OutTys;
  if (isDifferentiableType(RetTy))
    OutTys.push_back(RetTy);
  if (!checkResultType(*R.Marker, OutTys, D.diags()))
    return false;
  std::optional<Unzipped> U = handleFunctions(R, D);
  if (!U)
    return false;
  IRBuilder<> B(R.Marker);
  SmallVector<Value *, 8> Args{enterHandle(B, R, {U->Fwd, U->Lin}, D)};
  for (unsigned K = 0, E = 0; K < R.Act.size(); ++K)
    if (R.Act.hasDerivative(K)) {
      if (R.Act.isActive(K))
        Args.push_back(R.Extras[E]);
      ++E;
    }
  CallInst *Dy = B.CreateCall(U->Lin, Args);
  Dy->setDebugLoc(R.Marker->getDebugLoc());
  leaveHandle(B, R, D);
  SmallVector<Value *, 1> Out;
  if (!OutTys.empty())
    Out.push_back(Dy);
  emitResult(*R.Marker, Out);
  return true;
}

static bool lowerVjp(Request &R, Differentiator &D) {
  SmallVector<Type *, 8> GradTys = gradientTypes(R);
  if (!checkResultType(*R.Marker, GradTys, D.diags()))
    return false;
  std::optional<Unzipped> U = handleFunctions(R, D);
  if (!U)
    return false;
  Function *Rev = D.getRev(*U->Lin);
  if (!Rev || !verifyHandleCode({Rev}, D))
    return false;
  IRBuilder<> B(R.Marker);
  SmallVector<Value *, 2> Args{enterHandle(B, R, {U->Fwd, Rev}, D)};
  if (Rev->arg_size() > 1)
    Args.push_back(R.Cotangent ? R.Cotangent
                               : ConstantFP::get(Rev->getArg(1)->getType(), 1));
  CallInst *Cts = B.CreateCall(Rev, Args);
  Cts->setDebugLoc(R.Marker->getDebugLoc());
  leaveHandle(B, R, D);
  SmallVector<Value *, 8> Grads;
  for (unsigned K = 0; K < GradTys.size(); ++K)
    Grads.push_back(GradTys.size() == 1 ? static_cast<Value *>(Cts)
                                        : B.CreateExtractValue(Cts, K));
  emitResult(*R.Marker, Grads);
  return true;
}

bool lowerHandleRequest(Request &R, Differentiator &D) {
  switch (R.Op) {
  case HandleOp::Linearize:
    return lowerLinearize(R, D);
  case HandleOp::Jvp:
    return lowerJvp(R, D);
  case HandleOp::Vjp:
    return lowerVjp(R, D);
  case HandleOp::None:
    break;
  }
  llvm_unreachable("not a handle marker");
}

} // namespace ad
