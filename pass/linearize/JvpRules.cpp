//===- JvpRules.cpp - the table of forward-mode rules ---------------------===//
//
// Each row: primitive, where it comes from, and the partial derivative with
// respect to each argument, written with PartialBuilder `d`:
//   d.x(i)  primal argument i        d.y()  primal result
//   d.times(c)  tangent * c          d.over(c)  tangent / c
//   d.one() / d.minusOne()           d.when(cond)  tangent where cond holds
//   d.zero()  piecewise constant
// Conventions at non-differentiable points follow JAX: |x|' = sign(x),
// min/max pick the argument that was returned, pow(0, b) has 0 slope in b.
//
//===----------------------------------------------------------------------===//
#include "linearize/JvpRules.h"
#include "ir/LLVMCompat.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include <cmath>
#include <limits>

using namespace llvm;

namespace ad {

PartialBuilder::PartialBuilder(IRBuilderBase &B, Instruction &Primal)
    : Bld(B), Primal(Primal) {}

Value *PartialBuilder::x(unsigned I) const {
  if (auto *CB = dyn_cast<CallBase>(&Primal))
    return CB->getArgOperand(I);
  return Primal.getOperand(I);
}

Value *PartialBuilder::num(double V) const {
  return ConstantFP::get(Primal.getType(), V);
}

Value *PartialBuilder::num(StringRef Decimal) const {
  return ConstantFP::get(Primal.getType(), Decimal);
}

Value *PartialBuilder::intrinsic(Intrinsic::ID ID, ArrayRef<Value *> Args) {
  return Bld.CreateIntrinsic(ID, {Args[0]->getType()}, Args);
}

/// libm's suffix for the variant of a function on \p Ty: "f" for float,
/// "l" for x86's long double.
static StringRef libmSuffix(const Type *Ty) {
  if (Ty->isFloatTy())
    return "f";
  return Ty->isX86_FP80Ty() ? "l" : "";
}

Value *PartialBuilder::special(StringRef Name, Value *Arg) {
  Type *Ty = Arg->getType();
  std::string Callee = (Name + libmSuffix(Ty)).str();
  Module &M = *Primal.getModule();
  FunctionCallee F =
      M.getOrInsertFunction(Callee, FunctionType::get(Ty, {Ty}, false));
  if (auto *Fn = dyn_cast<Function>(F.getCallee()); Fn && Fn->isDeclaration()) {
    // A pure function of its argument: the optimiser may hoist and merge it.
    Fn->setDoesNotAccessMemory();
    Fn->setDoesNotThrow();
    Fn->setWillReturn();
  }
  return Bld.CreateCall(F, {Arg});
}

Value *PartialBuilder::sign(Value *A) {
  Value *Zero = ConstantFP::get(A->getType(), 0.0);
  Value *One = ConstantFP::get(A->getType(), 1.0);
  Value *Pos = Bld.CreateFCmpOGT(A, Zero);
  Value *Neg = Bld.CreateFCmpOLT(A, Zero);
  return Bld.CreateSelect(Pos, One, Bld.CreateSelect(Neg, neg(One), Zero));
}

using D = PartialBuilder;
static constexpr Intrinsic::ID NoIntrinsic = Intrinsic::not_intrinsic;
static constexpr StringLiteral Ln2 = "0.693147180559945309417232121458176568";
static constexpr StringLiteral Ln10 = "2.30258509299404568401799145468436421";
static constexpr StringLiteral TwoOverSqrtPi =
    "1.12837916709551257389615890312154517";
static constexpr StringLiteral MinusTwoOverSqrtPi =
    "-1.12837916709551257389615890312154517";

// pow: JAX's convention, d/da = 0 where b == 0 and d/db = 0 where a == 0.
// Where a < 0, pow is real only at integer b, and d/db is that of the real
// part of the complex a^b there, a^b ln|a|: finite, so a zero tangent of b
// adds nothing (with ln a, d/da of pow(-1.5, 2.0) in forward mode was NaN,
// 0 * NaN from the exponent's term).
// d/da is infinite at a == 0 for b < 1 (pow(u, 0.5) is sqrt): a quotient by
// 1 / slope, which keeps a zero tangent or cotangent zero there (a product
// was 0 * inf = NaN for pow(v * v, 0.5) at v == 0). Where b == 0 the
// divisor is the constant infinity rather than 1 / 0: a derivative of this
// derivative (forward over forward) then sees a constant there, where that
// of 1 / 0 was -0 / 0 = NaN.
static Partial powBase(D &d) {
  Value *B = d.x(1);
  Value *Slope =
      d.mul(B, d.intrinsic(Intrinsic::pow, {d.x(0), d.sub(B, d.num(1))}));
  Value *Inf = d.num(std::numeric_limits<double>::infinity());
  return d.over(d.select(d.eq(B, d.num(0)), Inf, d.div(d.num(1), Slope)));
}
static Partial powExponent(D &d) {
  Value *A = d.x(0);
  Value *SafeA = d.select(d.eq(A, d.num(0)), d.num(1), A);
  Value *LogAbs =
      d.intrinsic(Intrinsic::log, {d.intrinsic(Intrinsic::fabs, {SafeA})});
  return d.times(d.mul(d.y(), LogAbs));
}
static Partial powiBase(D &d) {
  // d/dx x^n = n x^(n-1); 0 for n == 0, also at x == 0.
  Value *N = d.x(1);
  Value *Slope = d.mul(d.intToFP(N), d.powi(d.x(0), d.intAdd(N, -1)));
  return d.times(d.select(d.intIsZero(N), d.num(0), Slope));
}
// remainder(a, b) = a - n b with n = a / b rounded to even: d/db = -n, with
// n recovered exactly as (a - r) / b rounded to even.
static Partial remainderDivisor(D &d) {
  Value *N =
      d.intrinsic(Intrinsic::roundeven, {d.div(d.sub(d.x(0), d.y()), d.x(1))});
  return d.times(d.neg(N));
}
// Digamma, which libm lacks: the runtime's (SpecialFunctions.cpp).
static Value *digamma(D &d) { return d.special("__ad_digamma", d.x(0)); }
// lgamma' = digamma, tgamma' = tgamma digamma.
static Partial digammaSlope(D &d) { return d.times(digamma(d)); }
static Partial gammaSlope(D &d) { return d.times(d.mul(d.y(), digamma(d))); }
// ldexp(x, n) = scalbn(x, n) = x 2^n: slope 2^n, exact (not y / x, which is
// 0/0 at x = 0).
static Partial timesTwoToN(D &d) { return d.times(d.exp2Int(d.x(1))); }
// min/max: the tangent of whichever argument was returned (the first on ties).
static Partial pickedFirst(D &d) { return d.when(d.eq(d.y(), d.x(0))); }
static Partial pickedSecond(D &d) { return d.when(d.une(d.y(), d.x(0))); }
// hypot(a, b) and |z|: a / h and b / h, and 0 at the origin (where they are
// 0/0), as |x|' is 0 at 0.
static Partial overNorm(D &d, unsigned K) {
  Value *H = d.y();
  Value *SafeH = d.select(d.eq(H, d.num(0)), d.num(1), H);
  return d.times(d.div(d.x(K), SafeH));
}
static Partial normFirst(D &d) { return overNorm(d, 0); }
static Partial normSecond(D &d) { return overNorm(d, 1); }
// arg z = atan2(im, re) of z = re + im i: -im / |z|^2 and re / |z|^2.
static Value *normSq(D &d) { return d.add(d.sq(d.x(0)), d.sq(d.x(1))); }
static Partial argRe(D &d) { return d.times(d.neg(d.div(d.x(1), normSq(d)))); }
static Partial argIm(D &d) { return d.times(d.div(d.x(0), normSq(d))); }

// clang-format off
static const JvpRule Rules[] = {
// name        libm   opcode              intrinsic               partial derivative w.r.t. each argument
{"fadd",      false, Instruction::FAdd,  NoIntrinsic,            {[](D &d) { return d.one(); }, [](D &d) { return d.one(); }}},
{"fsub",      false, Instruction::FSub,  NoIntrinsic,            {[](D &d) { return d.one(); }, [](D &d) { return d.minusOne(); }}},
{"fneg",      false, Instruction::FNeg,  NoIntrinsic,            {[](D &d) { return d.minusOne(); }}},
{"fmul",      false, Instruction::FMul,  NoIntrinsic,            {[](D &d) { return d.times(d.x(1)); }, [](D &d) { return d.times(d.x(0)); }}},
{"fdiv",      false, Instruction::FDiv,  NoIntrinsic,            {[](D &d) { return d.over(d.x(1)); }, [](D &d) { return d.times(d.neg(d.div(d.y(), d.x(1)))); }}},
{"fmod",      true,  Instruction::FRem,  NoIntrinsic,            {[](D &d) { return d.one(); }, [](D &d) { return d.times(d.neg(d.intrinsic(Intrinsic::trunc, {d.div(d.x(0), d.x(1))}))); }}},
{"remainder", true,  0, NoIntrinsic,          {[](D &d) { return d.one(); }, remainderDivisor}},
// remquo: remainder's value; the low bits of n it writes are an integer.
{"remquo",    true,  0, NoIntrinsic,          {[](D &d) { return d.one(); }, remainderDivisor}},
// fdim(a, b) = a - b where a > b, else +0 (so the result is nonzero exactly there).
{"fdim",      true,  0, NoIntrinsic,          {[](D &d) { return d.when(d.une(d.y(), d.num(0))); },
                                                [](D &d) { return d.times(d.select(d.une(d.y(), d.num(0)), d.num(-1), d.num(0))); }}},
{"sin",       true,  0, Intrinsic::sin,       {[](D &d) { return d.times(d.intrinsic(Intrinsic::cos, {d.x(0)})); }}},
{"cos",       true,  0, Intrinsic::cos,       {[](D &d) { return d.times(d.neg(d.intrinsic(Intrinsic::sin, {d.x(0)}))); }}},
{"tan",       true,  0, Intrinsic::tan,       {[](D &d) { return d.times(d.add(d.num(1), d.sq(d.y()))); }}},
{"asin",      true,  0, Intrinsic::asin,      {[](D &d) { return d.over(d.intrinsic(Intrinsic::sqrt, {d.sub(d.num(1), d.sq(d.x(0)))})); }}},
{"acos",      true,  0, Intrinsic::acos,      {[](D &d) { return d.over(d.neg(d.intrinsic(Intrinsic::sqrt, {d.sub(d.num(1), d.sq(d.x(0)))}))); }}},
{"atan",      true,  0, Intrinsic::atan,      {[](D &d) { return d.over(d.add(d.num(1), d.sq(d.x(0)))); }}},
{"atan2",     true,  0, Atan2Intrinsic,       {[](D &d) { return d.times(d.div(d.x(1), d.add(d.sq(d.x(0)), d.sq(d.x(1))))); },
                                                [](D &d) { return d.times(d.neg(d.div(d.x(0), d.add(d.sq(d.x(0)), d.sq(d.x(1)))))); }}},
{"sinh",      true,  0, Intrinsic::sinh,      {[](D &d) { return d.times(d.intrinsic(Intrinsic::cosh, {d.x(0)})); }}},
{"cosh",      true,  0, Intrinsic::cosh,      {[](D &d) { return d.times(d.intrinsic(Intrinsic::sinh, {d.x(0)})); }}},
{"tanh",      true,  0, Intrinsic::tanh,      {[](D &d) { return d.times(d.sub(d.num(1), d.sq(d.y()))); }}},
{"asinh",     true,  0, NoIntrinsic,          {[](D &d) { return d.over(d.intrinsic(Intrinsic::sqrt, {d.add(d.sq(d.x(0)), d.num(1))})); }}},
{"acosh",     true,  0, NoIntrinsic,          {[](D &d) { return d.over(d.intrinsic(Intrinsic::sqrt, {d.sub(d.sq(d.x(0)), d.num(1))})); }}},
{"atanh",     true,  0, NoIntrinsic,          {[](D &d) { return d.over(d.sub(d.num(1), d.sq(d.x(0)))); }}},
{"exp",       true,  0, Intrinsic::exp,       {[](D &d) { return d.times(d.y()); }}},
{"exp2",      true,  0, Intrinsic::exp2,      {[](D &d) { return d.times(d.mul(d.y(), d.num(Ln2))); }}},
{"exp10",     true,  0, Intrinsic::exp10,     {[](D &d) { return d.times(d.mul(d.y(), d.num(Ln10))); }}},
{"expm1",     true,  0, NoIntrinsic,          {[](D &d) { return d.times(d.add(d.y(), d.num(1))); }}},
{"log",       true,  0, Intrinsic::log,       {[](D &d) { return d.over(d.x(0)); }}},
{"log2",      true,  0, Intrinsic::log2,      {[](D &d) { return d.over(d.mul(d.x(0), d.num(Ln2))); }}},
{"log10",     true,  0, Intrinsic::log10,     {[](D &d) { return d.over(d.mul(d.x(0), d.num(Ln10))); }}},
{"log1p",     true,  0, NoIntrinsic,          {[](D &d) { return d.over(d.add(d.x(0), d.num(1))); }}},
{"sqrt",      true,  0, Intrinsic::sqrt,      {[](D &d) { return d.over(d.mul(d.y(), d.num(2))); }}},
{"cbrt",      true,  0, NoIntrinsic,          {[](D &d) { return d.over(d.mul(d.sq(d.y()), d.num(3))); }}},
{"pow",       true,  0, Intrinsic::pow,       {powBase, powExponent}},
{"powi",      false, 0, Intrinsic::powi,      {powiBase}},
{"hypot",     true,  0, NoIntrinsic,          {normFirst, normSecond}},
// |z| of a complex z = re + im i: clang passes (re, im) for double.
{"cabs",      true,  0, NoIntrinsic,          {normFirst, normSecond}},
{"carg",      true,  0, NoIntrinsic,          {argRe, argIm}},
// Calls only with -fno-builtin or -ffreestanding; otherwise clang reads the half.
{"creal",     true,  0, NoIntrinsic,          {[](D &d) { return d.one(); }, [](D &d) { return d.zero(); }}},
{"cimag",     true,  0, NoIntrinsic,          {[](D &d) { return d.zero(); }, [](D &d) { return d.one(); }}},
// The gamma function. lgamma_r also writes the sign of gamma(x) through its
// pointer, an integer.
{"lgamma",    true,  0, NoIntrinsic,          {digammaSlope}},
{"lgamma_r",  true,  0, NoIntrinsic,          {digammaSlope}},
{"tgamma",    true,  0, NoIntrinsic,          {gammaSlope}},
// So that derivatives of derivatives of lgamma work (__ad_trigamma has no rule).
{"__ad_digamma", true, 0, NoIntrinsic,        {[](D &d) { return d.times(d.special("__ad_trigamma", d.x(0))); }}},
{"erf",       true,  0, NoIntrinsic,          {[](D &d) { return d.times(d.mul(d.num(TwoOverSqrtPi), d.intrinsic(Intrinsic::exp, {d.neg(d.sq(d.x(0)))}))); }}},
{"erfc",      true,  0, NoIntrinsic,          {[](D &d) { return d.times(d.mul(d.num(MinusTwoOverSqrtPi), d.intrinsic(Intrinsic::exp, {d.neg(d.sq(d.x(0)))}))); }}},
{"fabs",      true,  0, Intrinsic::fabs,      {[](D &d) { return d.times(d.sign(d.x(0))); }}},
{"fmin",      true,  0, Intrinsic::minnum,    {pickedFirst, pickedSecond}},
{"fmax",      true,  0, Intrinsic::maxnum,    {pickedFirst, pickedSecond}},
{"fminimum",  false, 0, Intrinsic::minimum,   {pickedFirst, pickedSecond}},
{"fmaximum",  false, 0, Intrinsic::maximum,   {pickedFirst, pickedSecond}},
{"fma",       true,  0, Intrinsic::fma,       {[](D &d) { return d.times(d.x(1)); }, [](D &d) { return d.times(d.x(0)); }, [](D &d) { return d.one(); }}},
{"fmuladd",   false, 0, Intrinsic::fmuladd,   {[](D &d) { return d.times(d.x(1)); }, [](D &d) { return d.times(d.x(0)); }, [](D &d) { return d.one(); }}},
{"copysign",  true,  0, Intrinsic::copysign,  {[](D &d) { return d.times(d.mul(d.sign(d.x(0)), d.sign(d.y()))); }, [](D &d) { return d.zero(); }}},
{"floor",     true,  0, Intrinsic::floor,     {[](D &d) { return d.zero(); }}},
{"ceil",      true,  0, Intrinsic::ceil,      {[](D &d) { return d.zero(); }}},
{"round",     true,  0, Intrinsic::round,     {[](D &d) { return d.zero(); }}},
{"trunc",     true,  0, Intrinsic::trunc,     {[](D &d) { return d.zero(); }}},
{"rint",      true,  0, Intrinsic::rint,      {[](D &d) { return d.zero(); }}},
{"nearbyint", true,  0, Intrinsic::nearbyint, {[](D &d) { return d.zero(); }}},
{"roundeven", true,  0, Intrinsic::roundeven, {[](D &d) { return d.zero(); }}},
{"ldexp",     true,  0, Intrinsic::ldexp,     {timesTwoToN}},
{"scalbn",    true,  0, NoIntrinsic,          {timesTwoToN}},
};
// clang-format on

/// The name of the float (\p Suffix "f") or long double ("l") variant of
/// libm's \p Name: the suffix appended, before the "_r" of a reentrant
/// variant (lgamma_r -> lgammaf_r).
static std::string typedVariant(StringRef Name, StringRef Suffix) {
  if (Name.consume_back("_r"))
    return (Name + Suffix + "_r").str();
  return (Name + Suffix).str();
}

namespace {
struct RuleTables {
  DenseMap<unsigned, const JvpRule *> ByOpcode;
  DenseMap<unsigned, const JvpRule *> ByIntrinsic;
  StringMap<const JvpRule *> ByLibmName;
};
} // namespace

static const RuleTables &ruleTables() {
  static const RuleTables Tables = [] {
    RuleTables T;
    for (const JvpRule &R : Rules) {
      if (R.Opcode)
        T.ByOpcode[R.Opcode] = &R;
      if (R.IID != NoIntrinsic)
        T.ByIntrinsic[R.IID] = &R;
      if (R.IsLibm) {
        T.ByLibmName[R.Name] = &R;
        T.ByLibmName[typedVariant(R.Name, "f")] = &R;
        T.ByLibmName[typedVariant(R.Name, "l")] = &R;
      }
    }
    return T;
  }();
  return Tables;
}

const JvpRule *findLibmJvpRule(const Function &Callee,
                               const TargetLibraryInfo *TLI) {
  if (!Callee.isDeclaration())
    return nullptr; // a function with a body is the user's own
  const JvpRule *R = ruleTables().ByLibmName.lookup(Callee.getName());
  // Rules take scalars: cabsf gets its complex float as one <2 x float>,
  // cabsl its complex long double through a pointer (byval).
  if (!R || llvm::any_of(Callee.getFunctionType()->params(), [](Type *T) {
        return T->isVectorTy() || T->isAggregateType();
      }))
    return nullptr;
  FunctionType *FT = Callee.getFunctionType();
  for (unsigned K = 0; K < FT->getNumParams() && K < MaxRuleArgs; ++K)
    if (R->Partials[K] && !FT->getParamType(K)->isFloatingPointTy())
      return nullptr;
  // Where LLVM knows the name, it also checks the prototype; for names it
  // does not know (hypot, erf, ...), require a floating-point result.
  LibFunc LF;
  if (TLI && TLI->getLibFunc(Callee.getName(), LF))
    return TLI->getLibFunc(Callee, LF) ? R : nullptr;
  return Callee.getReturnType()->isFloatingPointTy() ? R : nullptr;
}

const JvpRule *findJvpRule(const Instruction &I, const TargetLibraryInfo *TLI) {
  const auto *CB = dyn_cast<CallBase>(&I);
  if (!CB)
    return ruleTables().ByOpcode.lookup(I.getOpcode());
  const Function *Callee = CB->getCalledFunction();
  if (!Callee)
    return nullptr;
  if (Intrinsic::ID IID = Callee->getIntrinsicID())
    return ruleTables().ByIntrinsic.lookup(IID);
  return findLibmJvpRule(*Callee, TLI);
}

bool writesOnlyMathLibraryState(const Instruction &I,
                                const TargetLibraryInfo *TLI) {
  const auto *CI = dyn_cast<CallInst>(&I);
  return CI && CI->getType()->isFloatingPointTy() &&
         llvm::none_of(
             CI->args(),
             [](const Use &U) { return U->getType()->isPointerTy(); }) &&
         findJvpRule(I, TLI) != nullptr;
}

bool isScalarMathCall(const Instruction &I, const TargetLibraryInfo *TLI) {
  // lgamma also sets the global signgam, which a program may read: calling
  // it again (in f.rev, in reverse order) would leave another value there.
  const Function *Callee =
      isa<CallInst>(I) ? cast<CallInst>(I).getCalledFunction() : nullptr;
  return writesOnlyMathLibraryState(I, TLI) &&
         !(Callee && Callee->getName().starts_with("lgamma"));
}

Intrinsic::ID intrinsicOfLibmCall(const Instruction &I,
                                  const TargetLibraryInfo *TLI) {
  const auto *CI = dyn_cast<CallInst>(&I);
  const Function *Callee = CI ? CI->getCalledFunction() : nullptr;
  if (!Callee || Callee->isIntrinsic() || !isScalarMathCall(I, TLI))
    return Intrinsic::not_intrinsic;
  const JvpRule *R = findLibmJvpRule(*Callee, TLI);
  return R ? R->IID : Intrinsic::not_intrinsic;
}

bool isLinkStructureFunction(StringRef Name) {
  // They read and write the nodes' links and a red-black tree's node
  // colours, never the values the nodes hold, and what they do depends on
  // nothing else (std::map's key comparisons are inline code, which gives
  // the insertion side as a bool). Mangled names: libstdc++ defines them
  // in the shared library.
  static const StringSet<> Relinking = {
      "_ZNSt8__detail15_List_node_base7_M_hookEPS0_",         // _M_hook
      "_ZNSt8__detail15_List_node_base9_M_unhookEv",          // _M_unhook
      "_ZNSt8__detail15_List_node_base11_M_transferEPS0_S1_", // splice
      "_ZNSt8__detail15_List_node_base10_M_reverseEv",        // reverse
      "_ZNSt8__detail15_List_node_base4swapERS0_S1_",         // swap
      "_ZSt18_Rb_tree_incrementPSt18_Rb_tree_node_base",      // ++it
      "_ZSt18_Rb_tree_incrementPKSt18_Rb_tree_node_base",     // ++it
      "_ZSt18_Rb_tree_decrementPSt18_Rb_tree_node_base",      // --it
      "_ZSt18_Rb_tree_decrementPKSt18_Rb_tree_node_base",     // --it
      "_ZSt29_Rb_tree_insert_and_rebalancebPSt18_Rb_tree_node_baseS0_RS_",
      "_ZSt28_Rb_tree_rebalance_for_erasePSt18_Rb_tree_node_baseRS_",
  };
  return Relinking.contains(Name);
}

bool isKnownInactiveFunction(StringRef Name) {
  // Output, process control, integer-valued math, and lengths and
  // comparisons of memory: whatever their arguments, they cannot carry a
  // derivative into the result. The printf family's __*_chk forms are
  // what _FORTIFY_SOURCE makes of it.
  static const StringSet<> Inactive = {"printf",
                                       "fprintf",
                                       "sprintf",
                                       "snprintf",
                                       "__printf_chk",
                                       "__fprintf_chk",
                                       "__sprintf_chk",
                                       "__snprintf_chk",
                                       "puts",
                                       "fputs",
                                       "putchar",
                                       "fputc",
                                       "putc",
                                       "fflush",
                                       "fwrite",
                                       "perror",
                                       "abort",
                                       "exit",
                                       "_exit",
                                       "__assert_fail",
                                       "lround",
                                       "lroundf",
                                       "lroundl",
                                       "llround",
                                       "llroundf",
                                       "llroundl",
                                       "lrint",
                                       "lrintf",
                                       "lrintl",
                                       "llrint",
                                       "llrintf",
                                       "llrintl",
                                       "ilogb",
                                       "ilogbf",
                                       "ilogbl",
                                       "__isnan",
                                       "__isnanf",
                                       "__isnanl",
                                       "__isinf",
                                       "__isinff",
                                       "__isinfl",
                                       "__finite",
                                       "__finitef",
                                       "__finitel",
                                       "__fpclassify",
                                       "__fpclassifyf",
                                       "__fpclassifyl",
                                       "__signbit",
                                       "__signbitf",
                                       "__signbitl",
                                       "strlen",
                                       "strnlen",
                                       "strcmp",
                                       "strncmp",
                                       "memcmp",
                                       "bcmp",
                                       "__ad_unknown_target",
                                       "__ad_undifferentiable_target",
                                       "__ad_shadow_freed",
                                       "__ad_shadow_release",
                                       "__ad_shadow_frees_begin",
                                       "__ad_shadow_frees_end"};
  // libstdc++'s bucket counts for std::unordered_map (integers from
  // integers and the maximum load factor) and its hashes of strings (an
  // integer from the bytes, as strlen's), by mangled name.
  static const StringSet<> InactiveCxx = {
      "_ZNKSt8__detail20_Prime_rehash_policy11_M_next_bktEm",
      "_ZNKSt8__detail20_Prime_rehash_policy14_M_need_rehashEmmm",
      "_ZSt11_Hash_bytesPKvmm",
  };
  // What the lowering of an inner request calls around its derived code,
  // which an outer request differentiates: a check that only aborts, and
  // the trim of the tape's cache.
  static const StringSet<> InactiveRuntime = {"__ad_check_not_in_global",
                                              "__ad_tape_trim"};
  return Inactive.contains(Name) || InactiveCxx.contains(Name) ||
         InactiveRuntime.contains(Name);
}

} // namespace ad
