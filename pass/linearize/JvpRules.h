//===- JvpRules.h - forward-mode rules of non-linear primitives -*- C++ -*-===//
//
// One rule per primitive (IR opcode, llvm.* intrinsic or libm function), as
// in JAX's defjvp: for each argument, how its tangent enters the tangent of
// the result. Rules only compute coefficients from primal values (non-linear
// code); Linearize combines them with the tangents (linear code). Transpose
// rules exist only for the handful of linear primitives (TransposeRules.h),
// so adding a function here gives forward and reverse mode at once.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_JVPRULES_H
#define ADPASS_JVPRULES_H

#include "llvm/IR/IRBuilder.h"

namespace llvm {
class TargetLibraryInfo;
}

namespace ad {

/// How the tangent dx of one argument contributes to the result tangent.
struct Partial {
  enum Kind {
    Zero,     ///< does not contribute
    One,      ///< + dx
    MinusOne, ///< - dx
    Times,    ///< + Coef * dx
    Over,     ///< + dx / Coef (more accurate than dx * (1/Coef))
    When,     ///< + (Coef ? dx : 0), Coef an i1
  };
  Kind K = Zero;
  llvm::Value *Coef = nullptr;
};

/// What a rule sees: the primal arguments and result, and helpers that emit
/// the non-linear coefficient code right after the primal instruction.
class PartialBuilder {
public:
  PartialBuilder(llvm::IRBuilderBase &B, llvm::Instruction &Primal);

  llvm::Value *x(unsigned I) const;
  llvm::Value *y() const { return &Primal; }

  llvm::Value *num(double V) const;
  /// A constant given in decimal, rounded once to the primal's type (a
  /// double constant would limit a long double derivative to double's
  /// precision).
  llvm::Value *num(llvm::StringRef Decimal) const;
  llvm::Value *add(llvm::Value *A, llvm::Value *B) {
    return Bld.CreateFAdd(A, B);
  }
  llvm::Value *sub(llvm::Value *A, llvm::Value *B) {
    return Bld.CreateFSub(A, B);
  }
  llvm::Value *mul(llvm::Value *A, llvm::Value *B) {
    return Bld.CreateFMul(A, B);
  }
  llvm::Value *div(llvm::Value *A, llvm::Value *B) {
    return Bld.CreateFDiv(A, B);
  }
  llvm::Value *neg(llvm::Value *A) { return Bld.CreateFNeg(A); }
  llvm::Value *sq(llvm::Value *A) { return Bld.CreateFMul(A, A); }
  llvm::Value *select(llvm::Value *C, llvm::Value *T, llvm::Value *F) {
    return Bld.CreateSelect(C, T, F);
  }
  llvm::Value *eq(llvm::Value *A, llvm::Value *B) {
    return Bld.CreateFCmpOEQ(A, B);
  }
  /// Exact complement of eq: true when unequal or unordered.
  llvm::Value *une(llvm::Value *A, llvm::Value *B) {
    return Bld.CreateFCmpUNE(A, B);
  }
  llvm::Value *intToFP(llvm::Value *N) {
    return Bld.CreateSIToFP(N, Primal.getType());
  }
  llvm::Value *intAdd(llvm::Value *N, int64_t K) {
    return Bld.CreateAdd(N, llvm::ConstantInt::get(N->getType(), K));
  }
  llvm::Value *intIsZero(llvm::Value *N) { return Bld.CreateIsNull(N); }
  llvm::Value *powi(llvm::Value *X, llvm::Value *N) {
    return Bld.CreateIntrinsic(llvm::Intrinsic::powi,
                               {X->getType(), N->getType()}, {X, N});
  }
  /// 2^N exactly, in the primal's type.
  llvm::Value *exp2Int(llvm::Value *N) {
    return Bld.CreateIntrinsic(llvm::Intrinsic::ldexp,
                               {Primal.getType(), N->getType()}, {num(1), N});
  }
  llvm::Value *intrinsic(llvm::Intrinsic::ID ID,
                         llvm::ArrayRef<llvm::Value *> Args);
  /// A call of the runtime's special function \p Name (include/ad_runtime.h:
  /// __ad_digamma, __ad_trigamma), its float or long double variant for a
  /// float or long double primal.
  llvm::Value *special(llvm::StringRef Name, llvm::Value *Arg);
  /// sign(x): -1, 0 or +1 (NaN stays NaN-free: 0).
  llvm::Value *sign(llvm::Value *A);

  Partial zero() const { return {Partial::Zero, nullptr}; }
  Partial one() const { return {Partial::One, nullptr}; }
  Partial minusOne() const { return {Partial::MinusOne, nullptr}; }
  Partial times(llvm::Value *C) const { return {Partial::Times, C}; }
  Partial over(llvm::Value *C) const { return {Partial::Over, C}; }
  Partial when(llvm::Value *C) const { return {Partial::When, C}; }

private:
  llvm::IRBuilderBase &Bld;
  llvm::Instruction &Primal;
};

using PartialRule = Partial (*)(PartialBuilder &);
inline constexpr unsigned MaxRuleArgs = 3;

struct JvpRule {
  const char *Name;        ///< libm name of the double variant, or opcode
  bool IsLibm;             ///< Name (and Name + "f") are libm functions
  unsigned Opcode;         ///< IR opcode, or 0
  llvm::Intrinsic::ID IID; ///< llvm.* intrinsic, or not_intrinsic
  PartialRule Partials[MaxRuleArgs];
};

/// The rule for \p I (a floating-point instruction or a call), or null.
/// \p TLI, when given, confirms that a call of a libm name is the library
/// function and not a user function that happens to share its name.
const JvpRule *findJvpRule(const llvm::Instruction &I,
                           const llvm::TargetLibraryInfo *TLI);

/// The rule for calls of \p Callee when it is a libm function (by name,
/// declared, taking scalars; prototype checked by \p TLI when given), or
/// null.
const JvpRule *findLibmJvpRule(const llvm::Function &Callee,
                               const llvm::TargetLibraryInfo *TLI);

/// Whether \p I calls a math function with a rule (libm or llvm.*) on
/// scalars only: its result follows from its arguments, and the only
/// memory it may write is the math library's own state, errno (and, for
/// lgamma, the global signgam).
bool writesOnlyMathLibraryState(const llvm::Instruction &I,
                                const llvm::TargetLibraryInfo *TLI);
/// Such a call that writes nothing but errno: it may be repeated
/// (recomputed in f.rev) and moves no data between memory cells.
bool isScalarMathCall(const llvm::Instruction &I,
                      const llvm::TargetLibraryInfo *TLI);

/// The llvm.* intrinsic that computes what \p I, a call of a libm function
/// with a rule, computes (llvm.sin for sin), without setting errno; or
/// not_intrinsic.
llvm::Intrinsic::ID intrinsicOfLibmCall(const llvm::Instruction &I,
                                        const llvm::TargetLibraryInfo *TLI);

/// External functions that never carry a derivative (printing, exit,
/// integer-valued math): calls of them stay primal code.
bool isKnownInactiveFunction(llvm::StringRef Name);

/// External functions that only relink the nodes of a linked structure
/// (libstdc++'s std::list and red-black tree node operations, which
/// std::map and std::set use): their derivative is the same call on the
/// shadow nodes, which mirror the primal ones.
bool isLinkStructureFunction(llvm::StringRef Name);

} // namespace ad

#endif
