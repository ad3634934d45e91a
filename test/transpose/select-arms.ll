; A select evaluates both arms, so f.lin computes the tangent of the arm not
; chosen too: here a / b at b = 0, whose partials 1/b and -a/b^2 are
; infinite. The cotangent that arm receives is zero, and zero times an
; infinite partial was NaN (b != 0 ? a / b : 0 gave a NaN gradient at
; b = 0; forward mode gave 0). Products in the arm's backward computation
; now keep a zero zero; code without selects is unchanged (the product of
; %c, below, has no guard).
;   double f(double a, double b, double c) { return (b != 0 ? a / b : 0) + c * c; }
; RUN: %opt -passes=ad-linearize,ad-unzip,ad-transpose,ad-verify %s -S | FileCheck %s

declare { double, double, double } @__ad_gradient_3(ptr, ...)

define double @f(double %a, double %b, double %c) {
  %nz = fcmp une double %b, 0.0
  %q = fdiv double %a, %b
  %s = select i1 %nz, double %q, double 0.0
  %cc = fmul double %c, %c
  %r = fadd double %s, %cc
  ret double %r
}

define { double, double, double } @g(double %a, double %b, double %c) {
  %r = call { double, double, double } (ptr, ...) @__ad_gradient_3(ptr @f, double %a, double %b, double %c)
  ret { double, double, double } %r
}

; The arm's cotangent, then the guarded quotient and product.
; CHECK-LABEL: define internal { double, double, double } @f.rev(ptr %tape, double %ct)
; CHECK:         [[TWICE:%.*]] = fmul double %ct, 2.000000e+00
; CHECK:         fmul double [[TWICE]], %c
; CHECK-NOT:     fcmp oeq
; CHECK:         [[ARM:%.*]] = select i1 {{%.*}}, double %ct, double 0.000000e+00
; CHECK:         [[Z1:%.*]] = fcmp oeq double [[ARM]], 0.000000e+00
; CHECK-NEXT:    [[P1:%.*]] = select i1 [[Z1]], double 0.000000e+00, double {{%.*}}
; CHECK:         [[Z2:%.*]] = fcmp oeq double {{%.*}}, 0.000000e+00
; CHECK-NEXT:    select i1 [[Z2]], double 0.000000e+00, double {{%.*}}
; CHECK-NOT:     fcmp
; CHECK:         ret { double, double, double }
