//===- Linearize.h - forward mode: f -> f.jvp -------------------*- C++ -*-===//
//
// Stage 1 of YOLO: f.jvp(x..., dx...) -> {y, dy} computes f and its JVP in
// one pass over f's CFG. Instructions that are linear in the tangents are
// marked !ad.linear; everything else (f's own code and the coefficients of
// the rules, e.g. cos(x)) is non-linear. A call of a user function g becomes
// a call of g.jvp, which Unzip later splits into g.fwd and g.lin.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_LINEARIZE_H
#define ADPASS_LINEARIZE_H

#include "prepare/Activity.h"
#include "llvm/IR/Instructions.h"

namespace ad {

class Differentiator;

/// Builds the JVP of \p Primal for activity \p A from \p Src, a prepared
/// copy of Primal's body (PrepareSource.h). Returns null after reporting.
llvm::Function *linearize(llvm::Function &Src, llvm::Function &Primal,
                          const Activity &A, Differentiator &D);

/// The type f.jvp returns: {T, T} for a differentiable result T, otherwise
/// f's own return type (no tangent to return).
llvm::Type *jvpReturnType(llvm::Type *PrimalRet);

/// Makes \p Ret return the pair {Y, DY} (DY marked linear), the way f.jvp
/// returns.
void packJvpReturn(llvm::ReturnInst &Ret, llvm::Value *Y, llvm::Value *DY);

/// The primal result and tangent returned by \p Ret, a return of a JVP
/// function (either may be null: void function, or no tangent).
std::pair<llvm::Value *, llvm::Value *> unpackJvpReturn(llvm::ReturnInst &Ret);

/// Finishes \p Jvp as forward-mode code, once no stage reads it again: a
/// tangent quotient dx / c is zero where dx is, also where c is zero.
/// Rules give the partials that can be infinite at a finite point as
/// quotients (sqrt'(u) = 1 / (2 sqrt u), asin, cbrt, pow with an exponent
/// below 1), and a zero tangent reaches them where f does not move the
/// argument: sqrt(fmax(v, 0)) at v < 0, |v| = sqrt(v * v) at 0, where 0 / 0
/// was NaN and the derivative is finite. f.rev's transposed quotients keep
/// a zero cotangent zero the same way (TransposeBuilder::over). Not done
/// while building f.jvp: the test reads a tangent, which would break the
/// linearity Unzip relies on.
void keepZeroTangentsZero(llvm::Function &Jvp);

} // namespace ad

#endif
