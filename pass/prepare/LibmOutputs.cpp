//===- LibmOutputs.cpp - libm functions that return through pointers ------===//
#include "prepare/LibmOutputs.h"
#include "ir/LLVMCompat.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace ad {

namespace {
enum class OutputFn { None, Sincos, Modf, Frexp, SincosPair, ModfPair };
} // namespace

/// Whether \p T is the argument type of sincos (double), sincosf (float)
/// or sincosl (x86's long double).
static bool isSincosArgType(StringRef Name, Type *T) {
  return Name == "sincosf"   ? T->isFloatTy()
         : Name == "sincosl" ? T->isX86_FP80Ty()
                             : T->isDoubleTy();
}

/// Which of the functions \p CB calls, checking the prototype: LLVM knows
/// modf and frexp (and, in newer versions, sincos); sincos is matched by
/// name and type. Newer LLVMs also have llvm.sincos and llvm.modf, which
/// return both results as a pair.
static OutputFn classify(const CallBase &CB, const TargetLibraryInfo &TLI) {
  const Function *Callee = CB.getCalledFunction();
  if (!Callee || !Callee->isDeclaration())
    return OutputFn::None;
  if (Intrinsic::ID IID = Callee->getIntrinsicID()) {
    if (IID == SincosIntrinsic)
      return OutputFn::SincosPair;
    if (IID == ModfIntrinsic)
      return OutputFn::ModfPair;
    return OutputFn::None;
  }
  FunctionType *FT = Callee->getFunctionType();
  StringRef Name = Callee->getName();
  if (Name == "sincos" || Name == "sincosf" || Name == "sincosl")
    return FT->getReturnType()->isVoidTy() && FT->getNumParams() == 3 &&
                   isSincosArgType(Name, FT->getParamType(0)) &&
                   FT->getParamType(1)->isPointerTy() &&
                   FT->getParamType(2)->isPointerTy()
               ? OutputFn::Sincos
               : OutputFn::None;
  LibFunc LF;
  if (!TLI.getLibFunc(*Callee, LF))
    return OutputFn::None;
  switch (LF) {
  case LibFunc_modf:
  case LibFunc_modff:
  case LibFunc_modfl:
    return OutputFn::Modf;
  case LibFunc_frexp:
  case LibFunc_frexpf:
  case LibFunc_frexpl:
    return OutputFn::Frexp;
  default:
    return OutputFn::None;
  }
}

static void rewriteSincos(CallBase &CB, IRBuilder<> &B, const DataLayout &DL) {
  Value *X = CB.getArgOperand(0);
  Align A = DL.getABITypeAlign(X->getType());
  B.CreateAlignedStore(B.CreateUnaryIntrinsic(Intrinsic::sin, X),
                       CB.getArgOperand(1), A);
  B.CreateAlignedStore(B.CreateUnaryIntrinsic(Intrinsic::cos, X),
                       CB.getArgOperand(2), A);
}

/// modf's fraction of \p X given its integral part \p Int.
static Value *modfFraction(IRBuilder<> &B, Value *X, Value *Int) {
  Type *T = X->getType();
  // The fraction has x's sign, also when it is zero: -(trunc x - x) for
  // negative x (-0.0 for x = -3), x - trunc x otherwise. Both carry x's
  // tangent; the sign test reads copysign(1, x), not x's bits.
  Value *Negative = B.CreateFCmpOLT(
      B.CreateBinaryIntrinsic(Intrinsic::copysign, ConstantFP::get(T, 1.0), X),
      ConstantFP::get(T, 0.0));
  Value *Frac = B.CreateSelect(Negative, B.CreateFNeg(B.CreateFSub(Int, X)),
                               B.CreateFSub(X, Int));
  // modf(+-inf) is +-0 (inf - inf would be NaN).
  Value *IsInf = B.CreateFCmpOEQ(B.CreateUnaryIntrinsic(Intrinsic::fabs, X),
                                 ConstantFP::getInfinity(T));
  return B.CreateSelect(
      IsInf,
      B.CreateBinaryIntrinsic(Intrinsic::copysign, ConstantFP::get(T, 0.0), X),
      Frac);
}

static Value *rewriteModf(CallBase &CB, IRBuilder<> &B, const DataLayout &DL) {
  Value *X = CB.getArgOperand(0);
  Value *Int = B.CreateUnaryIntrinsic(Intrinsic::trunc, X);
  B.CreateAlignedStore(Int, CB.getArgOperand(1),
                       DL.getABITypeAlign(X->getType()));
  return modfFraction(B, X, Int);
}

/// {first, second} as the pair intrinsics return it.
static Value *pair(IRBuilder<> &B, Type *PairTy, Value *First, Value *Second) {
  Value *P = B.CreateInsertValue(PoisonValue::get(PairTy), First, 0);
  return B.CreateInsertValue(P, Second, 1);
}

static Value *rewriteFrexp(CallBase &CB, IRBuilder<> &B) {
  Value *X = CB.getArgOperand(0);
  Type *T = X->getType();
  Type *I32 = B.getInt32Ty();
  Module &M = *CB.getModule();
  FunctionCallee Ilogb =
      M.getOrInsertFunction(T->isFloatTy()      ? "ilogbf"
                            : T->isX86_FP80Ty() ? "ilogbl"
                                                : "ilogb",
                            FunctionType::get(I32, {T}, false));
  Value *Log = B.CreateCall(Ilogb, {X});
  // glibc stores 0 for 0, infinities and NaN.
  Value *Regular =
      B.CreateAnd(B.CreateFCmpONE(B.CreateUnaryIntrinsic(Intrinsic::fabs, X),
                                  ConstantFP::getInfinity(T)),
                  B.CreateFCmpUNE(X, ConstantFP::get(T, 0.0)));
  Value *E =
      B.CreateSelect(Regular, B.CreateAdd(Log, B.getInt32(1)), B.getInt32(0));
  B.CreateAlignedStore(E, CB.getArgOperand(1), Align(4));
  // x * 2^-e exactly: the mantissa, in [0.5, 1) in magnitude.
  return B.CreateIntrinsic(Intrinsic::ldexp, {T, I32}, {X, B.CreateNeg(E)});
}

void rewriteLibmOutputs(Function &F, const TargetLibraryInfo &TLI) {
  const DataLayout &DL = F.getParent()->getDataLayout();
  SmallVector<std::pair<CallBase *, OutputFn>, 4> Calls;
  for (Instruction &I : instructions(F))
    if (auto *CB = dyn_cast<CallBase>(&I))
      if (OutputFn K = classify(*CB, TLI); K != OutputFn::None)
        Calls.push_back({CB, K});
  for (auto [CB, Kind] : Calls) {
    if (!isa<CallInst>(CB))
      continue; // an invoke keeps its unwind edge (and is reported)
    IRBuilder<> B(CB);
    if (auto *FPOp = dyn_cast<FPMathOperator>(CB))
      B.setFastMathFlags(FPOp->getFastMathFlags());
    Value *Result = nullptr;
    switch (Kind) {
    case OutputFn::Sincos:
      rewriteSincos(*CB, B, DL);
      break;
    case OutputFn::Modf:
      Result = rewriteModf(*CB, B, DL);
      break;
    case OutputFn::Frexp:
      Result = rewriteFrexp(*CB, B);
      break;
    case OutputFn::SincosPair: {
      Value *X = CB->getArgOperand(0);
      Result = pair(B, CB->getType(), B.CreateUnaryIntrinsic(Intrinsic::sin, X),
                    B.CreateUnaryIntrinsic(Intrinsic::cos, X));
      break;
    }
    case OutputFn::ModfPair: {
      Value *X = CB->getArgOperand(0);
      Value *Int = B.CreateUnaryIntrinsic(Intrinsic::trunc, X);
      Result = pair(B, CB->getType(), modfFraction(B, X, Int), Int);
      break;
    }
    case OutputFn::None:
      llvm_unreachable("filtered above");
    }
    if (Result)
      CB->replaceAllUsesWith(Result);
    CB->eraseFromParent();
  }
}

} // namespace ad
