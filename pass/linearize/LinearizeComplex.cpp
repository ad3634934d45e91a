//===- LinearizeComplex.cpp - JVP of complex-valued library calls ---------===//
//
// Without -ffast-math clang calls compiler-rt for complex multiplication and
// division (std::complex and _Complex): __muldc3 / __divdc3 for double,
// __mulsc3 / __divsc3 for float, __mulxc3 / __divxc3 for x86's long
// double, taking (a, b, c, d) for z = a + bi and w = c + di and returning
// the (re, im) pair. libm's cexp, clog and csqrt
// (std::exp, std::log, std::sqrt of a std::complex) take z as (a, b) for
// double and as one <2 x float> for float. Their results are pairs, so
// they do not fit the scalar rule table (JvpRules.cpp); these are their
// rules. The primal call stays (it recovers infinities and NaNs as C Annex
// G says); the tangent is complex arithmetic on (re, im) pairs,
//   d(z w) = dz w + z dw        d(z / w) = (dz - q dw) / w,  q = z / w,
//   d exp z = exp z dz          d log z = dz / z      d sqrt z = dz / (2 sqrt
//   z),
// built from fmul by non-linear coefficients and fadd/fsub, so Unzip and
// Transpose need nothing new.
//
//===----------------------------------------------------------------------===//
#include "LinearizeImpl.h"
#include "ir/Linearity.h"

#include "llvm/ADT/Statistic.h"

#define DEBUG_TYPE "ad-linearize"

using namespace llvm;

STATISTIC(NumComplexCalls, "Number of complex multiplies and divides given "
                           "a tangent");

namespace ad {

namespace {

/// A complex number as its two parts. In a tangent, a null part is zero.
struct Pair {
  Value *Re = nullptr, *Im = nullptr;
};

/// Complex arithmetic where one factor is non-linear (coefficients) and
/// the other linear (tangents), skipping zero tangents.
class PairBuilder {
public:
  PairBuilder(IRBuilderBase &Coef, IRBuilderBase &Lin) : Coef(Coef), Lin(Lin) {}

  /// P * T, P non-linear.
  Pair mul(Pair P, Pair T) {
    return {sub(prod(P.Re, T.Re), prod(P.Im, T.Im)),
            add(prod(P.Re, T.Im), prod(P.Im, T.Re))};
  }
  Pair add(Pair A, Pair B) { return {add(A.Re, B.Re), add(A.Im, B.Im)}; }
  Pair sub(Pair A, Pair B) { return {sub(A.Re, B.Re), sub(A.Im, B.Im)}; }
  /// 1 / W for non-linear W: conj(W) / |W|^2.
  Pair reciprocal(Pair W) {
    Value *Norm = Coef.CreateFAdd(Coef.CreateFMul(W.Re, W.Re),
                                  Coef.CreateFMul(W.Im, W.Im));
    return {Coef.CreateFDiv(W.Re, Norm),
            Coef.CreateFNeg(Coef.CreateFDiv(W.Im, Norm))};
  }

private:
  Value *prod(Value *C, Value *T) { return T ? Lin.CreateFMul(C, T) : nullptr; }
  Value *add(Value *A, Value *B) {
    return !A ? B : !B ? A : Lin.CreateFAdd(A, B);
  }
  Value *sub(Value *A, Value *B) {
    return !B ? A : !A ? Lin.CreateFNeg(B) : Lin.CreateFSub(A, B);
  }

  IRBuilderBase &Coef, &Lin;
};

/// The (re, im) parts of a pair-valued result: {T, T} or <2 x T>.
Pair partsOf(IRBuilderBase &B, Value *V) {
  if (V->getType()->isVectorTy())
    return {B.CreateExtractElement(V, uint64_t(0)),
            B.CreateExtractElement(V, uint64_t(1))};
  return {B.CreateExtractValue(V, 0), B.CreateExtractValue(V, 1)};
}

} // namespace

/// cexp, clog, csqrt and their float variants, as clang declares them
/// for x86-64: (double, double) -> {double, double}, or <2 x float> ->
/// <2 x float>.
static bool isComplexLibmFunction(const Function &Callee) {
  StringRef N = Callee.getName();
  Type *T = Callee.getReturnType();
  // |z| and arg z of a complex float (the double ones are rule rows: they
  // take two scalars).
  if (N == "cabsf" || N == "cargf")
    return T->isFloatTy() && Callee.arg_size() == 1 &&
           Callee.getArg(0)->getType() == FixedVectorType::get(T, 2);
  N.consume_back("f");
  if (N != "cexp" && N != "clog" && N != "csqrt")
    return false;
  if (auto *VT = dyn_cast<FixedVectorType>(T))
    return VT->getNumElements() == 2 && Callee.arg_size() == 1 &&
           Callee.getArg(0)->getType() == T;
  auto *ST = dyn_cast<StructType>(T);
  return ST && ST->getNumElements() == 2 &&
         ST->getElementType(0)->isFloatingPointTy() &&
         ST->getElementType(1) == ST->getElementType(0) &&
         Callee.arg_size() == 2 &&
         Callee.getArg(0)->getType() == ST->getElementType(0) &&
         Callee.getArg(1)->getType() == ST->getElementType(0);
}

bool isComplexArithmetic(const Function &Callee) {
  StringRef N = Callee.getName();
  if (!Callee.isDeclaration())
    return false;
  return (Callee.arg_size() == 4 &&
          (N == "__muldc3" || N == "__divdc3" || N == "__mulsc3" ||
           N == "__divsc3" || N == "__mulxc3" || N == "__divxc3")) ||
         isComplexLibmFunction(Callee);
}

namespace {

/// Builds, right after a pair-valued call (__muldc3 and friends, cexp,
/// clog, csqrt), the tangent of its result from its arguments' tangents.
class PairTangentBuilder {
public:
  /// \p ArgTangents: the tangent of each argument, null where it is zero.
  PairTangentBuilder(CallBase &CB, ArrayRef<Value *> ArgTangents)
      : CB(CB), ArgTangents(ArgTangents), CoefB(CB.getNextNode()),
        LinB(CB.getNextNode(), CB), P(CoefB, LinB) {
    Type *T = CB.getType();
    Part = T->isVectorTy() ? cast<VectorType>(T)->getElementType()
                           : T->getStructElementType(0);
  }

  Value *build() {
    StringRef Name = CB.getCalledFunction()->getName();
    return packLikeResult(Name.starts_with("__") ? ofArithmetic(Name)
                                                 : ofLibmFunction(Name));
  }

private:
  Value *arg(unsigned K) { return CB.getArgOperand(K); }

  /// z * w and z / w, for z = a + bi and w = c + di passed as (a, b, c, d).
  Pair ofArithmetic(StringRef Name) {
    Pair Z{arg(0), arg(1)}, W{arg(2), arg(3)};
    Pair DZ{ArgTangents[0], ArgTangents[1]};
    Pair DW{ArgTangents[2], ArgTangents[3]};
    if (Name.starts_with("__mul"))
      return P.add(P.mul(W, DZ), P.mul(Z, DW));
    Pair Q = partsOf(CoefB, &CB);
    return P.mul(P.reciprocal(W), P.sub(DZ, P.mul(Q, DW)));
  }

  /// cexp, clog, csqrt: z as two scalars, or one <2 x float>.
  Pair ofLibmFunction(StringRef Name) {
    Pair Z, DZ;
    if (CB.arg_size() == 1) {
      Z = partsOf(CoefB, arg(0));
      if (Value *T = ArgTangents[0])
        DZ = partsOf(LinB, T);
    } else {
      Z = {arg(0), arg(1)};
      DZ = {ArgTangents[0], ArgTangents[1]};
    }
    Pair Y = partsOf(CoefB, &CB);
    if (Name.starts_with("cexp"))
      return P.mul(Y, DZ);
    if (Name.starts_with("clog"))
      return P.mul(P.reciprocal(Z), DZ);
    // csqrt
    Value *Two = ConstantFP::get(Part, 2.0);
    return P.mul(P.reciprocal({CoefB.CreateFMul(Two, Y.Re),
                               CoefB.CreateFMul(Two, Y.Im)}),
                 DZ);
  }

  /// Packs the tangent like the result; a zero part is a constant zero.
  Value *packLikeResult(Pair DY) {
    Type *T = CB.getType();
    Value *Zero = ConstantFP::get(Part, 0.0);
    Value *Re = DY.Re ? DY.Re : Zero, *Im = DY.Im ? DY.Im : Zero;
    Value *Packed = PoisonValue::get(T);
    if (T->isVectorTy()) {
      Packed = LinB.CreateInsertElement(Packed, Re, uint64_t(0));
      return LinB.CreateInsertElement(Packed, Im, uint64_t(1));
    }
    Packed = LinB.CreateInsertValue(Packed, Re, 0);
    return LinB.CreateInsertValue(Packed, Im, 1);
  }

  CallBase &CB;
  ArrayRef<Value *> ArgTangents;
  IRBuilder<> CoefB;
  TangentBuilder LinB;
  PairBuilder P;
  Type *Part;
};

} // namespace

void Linearizer::linearizeComplexArithmetic(CallBase &CB) {
  ++NumComplexCalls;
  if (CB.getType()->isFloatingPointTy())
    return linearizeComplexAbsOrArg(CB);
  SmallVector<Value *, 4> ArgTangents;
  for (Value *A : CB.args())
    ArgTangents.push_back(
        isVaried(A) && !isa<Constant>(tangentOf(A)) ? tangentOf(A) : nullptr);
  Tangent[&CB] = PairTangentBuilder(CB, ArgTangents).build();
}

void Linearizer::linearizeComplexAbsOrArg(CallBase &CB) {
  // cabsf, cargf: a real function of z = re + im i, as the rule rows of
  // cabs and carg: d|z| = (re dre + im dim) / |z| (0 at z = 0),
  // d arg z = (re dim - im dre) / |z|^2.
  Type *T = CB.getType();
  Value *Z = CB.getArgOperand(0);
  if (!isVaried(Z))
    return;
  Instruction *Next = CB.getNextNode();
  IRBuilder<> CoefB(Next);
  TangentBuilder LinB(Next, CB);
  Pair P = partsOf(CoefB, Z), DP = partsOf(LinB, tangentOf(Z));
  Value *CRe, *CIm;
  if (CB.getCalledFunction()->getName() == "cabsf") {
    Value *Zero = ConstantFP::get(T, 0.0);
    Value *SafeY = CoefB.CreateSelect(CoefB.CreateFCmpOEQ(&CB, Zero),
                                      ConstantFP::get(T, 1.0), &CB);
    CRe = CoefB.CreateFDiv(P.Re, SafeY);
    CIm = CoefB.CreateFDiv(P.Im, SafeY);
  } else {
    Value *NormSq = CoefB.CreateFAdd(CoefB.CreateFMul(P.Re, P.Re),
                                     CoefB.CreateFMul(P.Im, P.Im));
    CRe = CoefB.CreateFNeg(CoefB.CreateFDiv(P.Im, NormSq));
    CIm = CoefB.CreateFDiv(P.Re, NormSq);
  }
  Tangent[&CB] =
      LinB.CreateFAdd(LinB.CreateFMul(CRe, DP.Re), LinB.CreateFMul(CIm, DP.Im));
}

} // namespace ad
