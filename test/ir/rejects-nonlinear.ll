; ad-verify checks the linearity invariants (docs/design.md) of every f.jvp
; and f.lin. Each function below breaks one; the verifier must say which.
; RUN: split-file %s %t
; RUN: not %opt -passes=ad-verify %t/product.ll -disable-output 2>&1 | FileCheck %s --check-prefix=PRODUCT
; RUN: not %opt -passes=ad-verify %t/affine.ll -disable-output 2>&1 | FileCheck %s --check-prefix=AFFINE
; RUN: not %opt -passes=ad-verify %t/leak.ll -disable-output 2>&1 | FileCheck %s --check-prefix=LEAK
; RUN: not %opt -passes=ad-verify %t/divisor.ll -disable-output 2>&1 | FileCheck %s --check-prefix=DIVISOR
; RUN: not %opt -passes=ad-verify %t/branch.ll -disable-output 2>&1 | FileCheck %s --check-prefix=BRANCH
; RUN: %opt -passes=ad-verify %t/good.ll -disable-output

; PRODUCT: error: ADPass internal error: ad-verify: 'f.lin': fmul needs exactly one linear operand: {{.*}}fmul double %da, %db
; AFFINE: error: ADPass internal error: ad-verify: 'f.lin': adds a non-zero non-linear value (affine): {{.*}}fadd double %da, 1.0
; LEAK: error: ADPass internal error: ad-verify: 'f.jvp': non-linear code reads a linear value: {{.*}}call double @llvm.sin.f64(double %t)
; DIVISOR: error: ADPass internal error: ad-verify: 'f.lin': fdiv needs a linear numerator and a non-linear divisor
; BRANCH: error: ADPass internal error: ad-verify: 'f.jvp': non-linear code reads a linear value: {{.*}}fcmp

;--- product.ll
define double @f(double %a, double %b) { ret double %a }
define internal double @f.lin(ptr %tape, double %da, double %db) "ad-kind"="lin" "ad-primal"="f" "ad-activity"="aa" {
  %p = fmul double %da, %db, !ad.linear !0
  ret double %p
}
!0 = !{}
;--- affine.ll
define double @f(double %a, double %b) { ret double %a }
define internal double @f.lin(ptr %tape, double %da, double %db) "ad-kind"="lin" "ad-primal"="f" "ad-activity"="aa" {
  %p = fadd double %da, 1.0, !ad.linear !0
  ret double %p
}
!0 = !{}
;--- leak.ll
declare double @llvm.sin.f64(double)
define double @f(double %a) { ret double %a }
define internal { double, double } @f.jvp(double %a, double %da) "ad-kind"="jvp" "ad-primal"="f" "ad-activity"="a" {
  %t = fmul double %a, %da, !ad.linear !0
  %s = call double @llvm.sin.f64(double %t)
  %p = insertvalue { double, double } poison, double %s, 0
  %q = insertvalue { double, double } %p, double %t, 1, !ad.linear !0
  ret { double, double } %q
}
!0 = !{}
;--- divisor.ll
define double @f(double %a, double %b) { ret double %a }
define internal double @f.lin(ptr %tape, double %da, double %db) "ad-kind"="lin" "ad-primal"="f" "ad-activity"="aa" {
  %c = load double, ptr %tape
  %p = fdiv double %c, %da, !ad.linear !0
  ret double %p
}
!0 = !{}
;--- branch.ll
define double @f(double %a) { ret double %a }
define internal { double, double } @f.jvp(double %a, double %da) "ad-kind"="jvp" "ad-primal"="f" "ad-activity"="a" {
entry:
  %c = fcmp olt double %da, 0.0
  br i1 %c, label %l, label %r
l:
  br label %r
r:
  %p = insertvalue { double, double } poison, double %a, 0
  %q = insertvalue { double, double } %p, double %da, 1, !ad.linear !0
  ret { double, double } %q
}
!0 = !{}
;--- good.ll
define double @f(double %a, double %b) { ret double %a }
define internal double @f.lin(ptr %tape, double %da, double %db) "ad-kind"="lin" "ad-primal"="f" "ad-activity"="aa" {
  %c = load double, ptr %tape
  %s = fmul double %c, %da, !ad.linear !0
  %t = fdiv double %db, %c, !ad.linear !0
  %u = fsub double %s, %t, !ad.linear !0
  %v = fadd double %u, 0.0, !ad.linear !0
  ret double %v
}
!0 = !{}
