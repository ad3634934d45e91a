//===- TransposeRules.h - transposes of the linear primitives ---*- C++ -*-===//
//
// Only linear primitives need a transpose (YOLO §7): the rule for a linear
// instruction y = L(a, b) adds L^T(ct_y) to the cotangents of its linear
// operands. Non-linear operands (coefficients read from the tape) are
// constants of the linear map.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_TRANSPOSERULES_H
#define ADPASS_TRANSPOSERULES_H

#include "transpose/ShadowCotangents.h"
#include "unzip/PrivateShadowCells.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"

namespace ad {

/// What a transpose rule sees of one linear instruction.
class TransposeBuilder {
public:
  TransposeBuilder(
      llvm::IRBuilderBase &B, llvm::Instruction &I, llvm::Value *Ct,
      llvm::function_ref<llvm::Value *(llvm::Value *)> RevValue,
      llvm::function_ref<void(llvm::Value *, llvm::Value *, bool)> Accumulate,
      ShadowCotangents &Shadow, bool StrongZero)
      : B(B), I(I), Ct(Ct), RevValue(RevValue), Accumulate(Accumulate),
        Shadow(Shadow), StrongZero(StrongZero) {}

  llvm::IRBuilderBase &b() { return B; }
  /// Cotangent of the instruction's result.
  llvm::Value *ct() const { return Ct; }
  /// Operand \p K, for a non-linear (coefficient) operand, as f.rev sees it.
  llvm::Value *op(unsigned K) { return RevValue(I.getOperand(K)); }
  /// Index of the single linear operand of fmul.
  unsigned linearOperand() const;
  /// ct * Coef and ct / Coef. Where ct may be the zero a select sent to the
  /// arm it did not choose, a zero ct gives zero even when the coefficient
  /// is infinite or NaN (b != 0 ? a / b : 0 at b = 0): the primal program
  /// never used that arm's value, and forward mode, which keeps only the
  /// chosen arm's tangent, gives zero there too. A quotient keeps a zero
  /// zero always: a value computed before a branch and used only in the
  /// branch not taken has a zero cotangent too (r = sqrt(x*x + y*y) at 0,
  /// then x / r only if r > 0), and its partial, 1 / (2r), is infinite.
  llvm::Value *times(llvm::Value *Coef) {
    return keepZero(B.CreateFMul(Ct, Coef), Coef, StrongZero);
  }
  llvm::Value *over(llvm::Value *Coef) {
    return keepZero(B.CreateFDiv(Ct, Coef), Coef, true);
  }
  llvm::Value *zeroLike(llvm::Value *V) {
    return llvm::Constant::getNullValue(V->getType());
  }
  /// ct(operand K) += C  /  ct(operand K) -= C. Constant operands are
  /// linear zeros and receive nothing.
  void add(unsigned K, llvm::Value *C) {
    Accumulate(I.getOperand(K), C, false);
  }
  void sub(unsigned K, llvm::Value *C) { Accumulate(I.getOperand(K), C, true); }
  /// Shadow memory at the address the instruction (a load or store)
  /// accesses, with its alignment: *P += C, and (read and clear)
  /// R = *P; *P = 0.
  void shadowAdd(llvm::Value *P, llvm::Value *C) {
    Shadow.add(B, P, C, llvm::getLoadStoreAlignment(&I),
               isPrivateShadowCell(I));
  }
  llvm::Value *shadowRead(llvm::Value *P, llvm::Type *T) {
    return Shadow.read(B, P, T, llvm::cast<llvm::AtomicRMWInst>(I).getAlign());
  }
  llvm::Value *shadowTake(llvm::Value *P, llvm::Type *T) {
    return Shadow.take(B, P, T, llvm::getLoadStoreAlignment(&I));
  }

private:
  llvm::Value *keepZero(llvm::Value *Product, llvm::Value *Coef, bool Guard);

  llvm::IRBuilderBase &B;
  llvm::Instruction &I;
  llvm::Value *Ct;
  llvm::function_ref<llvm::Value *(llvm::Value *)> RevValue;
  llvm::function_ref<void(llvm::Value *, llvm::Value *, bool)> Accumulate;
  ShadowCotangents &Shadow;
  bool StrongZero;
};

using TransposeRule = void (*)(llvm::Instruction &I, TransposeBuilder &T);

/// A rule of the table, with the name of the primitive it transposes (for
/// -debug-only=ad-transpose).
struct NamedTransposeRule {
  TransposeRule Apply = nullptr;
  const char *Primitive = nullptr;
  explicit operator bool() const { return Apply != nullptr; }
};

/// The transpose rule of the linear instruction \p I, or none.
NamedTransposeRule findTransposeRule(const llvm::Instruction &I);

} // namespace ad

#endif
