; The forms a JVP rule can take (JvpRules.cpp): a coefficient times the
; tangent (exp reuses its result y), a division by a coefficient (sqrt:
; dx / (2y), more accurate than dx * (1/(2y))), a tangent that flows only
; where a condition holds (fmin), identity terms (fmuladd's addend) and a
; zero derivative (floor: no tangent code). The two terms of a square
; are one, 2 (x dx), also when one side is negated (y - x * x).
; RUN: %opt -passes=ad-linearize,ad-verify %s -S | FileCheck %s

declare double @__ad_gradient(ptr, ...)
declare double @exp(double)
declare double @sqrt(double)
declare double @llvm.minnum.f64(double, double)
declare double @llvm.fmuladd.f64(double, double, double)
declare double @llvm.floor.f64(double)

define double @f(double %x, double %y) {
  %e = call double @exp(double %x)
  %s = call double @sqrt(double %e)
  %m = call double @llvm.minnum.f64(double %s, double %y)
  %fl = call double @llvm.floor.f64(double %m)
  %r = call double @llvm.fmuladd.f64(double %fl, double %x, double %m)
  ret double %r
}

define double @grad(double %x, double %y) {
  %g = call double (ptr, ...) @__ad_gradient(ptr @f, double %x, double %y)
  ret double %g
}

; CHECK-LABEL: define internal { double, double } @f.jvp(double %x, double %y, double %dx, double %dy)
; CHECK:         %e = call double @exp(double %x)
; CHECK-NEXT:    [[DE:%.*]] = fmul double %e, %dx, !ad.linear
; CHECK-NEXT:    %s = call double @sqrt(double %e)
; CHECK-NEXT:    [[TWOY:%.*]] = fmul double %s, 2.000000e+00
; CHECK-NEXT:    [[DS:%.*]] = fdiv double [[DE]], [[TWOY]], !ad.linear
; CHECK-NEXT:    %m = call double @llvm.minnum.f64(double %s, double %y)
; CHECK-NEXT:    [[PICKS:%.*]] = fcmp oeq double %m, %s
; CHECK-NEXT:    [[PICKY:%.*]] = fcmp une double %m, %s
; CHECK-NEXT:    [[T1:%.*]] = select i1 [[PICKS]], double [[DS]], double 0.000000e+00, !ad.linear
; CHECK-NEXT:    [[T2:%.*]] = select i1 [[PICKY]], double %dy, double 0.000000e+00, !ad.linear
; CHECK-NEXT:    [[DM:%.*]] = fadd double [[T1]], [[T2]], !ad.linear
; CHECK-NEXT:    %fl = call double @llvm.floor.f64(double %m)
; CHECK-NEXT:    %r = call double @llvm.fmuladd.f64(double %fl, double %x, double %m)
; CHECK-NEXT:    [[DR1:%.*]] = fmul double %fl, %dx, !ad.linear
; CHECK-NEXT:    [[DR:%.*]] = fadd double [[DR1]], [[DM]], !ad.linear

; y - x * x, as clang writes it: fmuladd(-x, x, y).
define double @squares(double %x, double %y) {
  %nx = fneg double %x
  %r = call double @llvm.fmuladd.f64(double %nx, double %x, double %y)
  %x2 = fmul double %x, %x
  %r2 = fadd double %r, %x2
  ret double %r2
}

define double @grad_squares(double %x, double %y) {
  %g = call double (ptr, ...) @__ad_gradient(ptr @squares, double %x, double %y)
  ret double %g
}

; CHECK-LABEL: define internal { double, double } @squares.jvp(double %x, double %y, double %dx, double %dy)
; CHECK:         %r = call double @llvm.fmuladd.f64(double %nx, double %x, double %y)
; CHECK-NEXT:    [[XDX:%.*]] = fmul double %x, %dx, !ad.linear
; CHECK-NEXT:    [[MINUS2:%.*]] = fmul double [[XDX]], -2.000000e+00, !ad.linear
; CHECK-NEXT:    [[DR:%.*]] = fadd double [[MINUS2]], %dy, !ad.linear
; CHECK-NEXT:    %x2 = fmul double %x, %x
; CHECK-NEXT:    [[XDX2:%.*]] = fmul double %x, %dx, !ad.linear
; CHECK-NEXT:    [[PLUS2:%.*]] = fmul double [[XDX2]], 2.000000e+00, !ad.linear
; CHECK-NEXT:    %r2 = fadd double %r, %x2
; CHECK-NEXT:    fadd double [[DR]], [[PLUS2]], !ad.linear
