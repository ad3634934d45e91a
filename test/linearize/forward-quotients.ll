; Forward-mode code keeps a zero tangent zero through a tangent quotient:
; sqrt's tangent dx / (2 sqrt x) is 0 / 0 at x = 0 with dx = 0 (the clamped
; sqrt(fmax(v, 0)) at v < 0), which was NaN. The test reads a tangent, so it
; is added only once f.jvp is final code (the `ad` pass, after every
; request); the f.jvp the stages read (ad-linearize) keeps the plain linear
; quotient, which Unzip and Transpose work with. A finite non-zero constant
; divisor needs no test. pow's slope in its base is a quotient too.
; RUN: %opt -passes=ad %s -S | FileCheck %s
; RUN: %opt -passes=ad-linearize %s -S | FileCheck %s --check-prefix=STAGE

declare double @__ad_derivative(ptr, ...)
declare double @llvm.sqrt.f64(double)
declare double @llvm.maxnum.f64(double, double)
declare double @llvm.pow.f64(double, double)

define double @f(double %v) {
  %u = call double @llvm.maxnum.f64(double %v, double 0.0)
  %s = call double @llvm.sqrt.f64(double %u)
  %h = fdiv double %v, 4.0
  %p = call double @llvm.pow.f64(double %u, double 0.5)
  %a = fadd double %s, %h
  %r = fadd double %a, %p
  ret double %r
}

define double @tangent(double %v) {
  %d = call double (ptr, ...) @__ad_derivative(ptr @f, double %v, double 1.0)
  ret double %d
}

; CHECK-LABEL: define internal { double, double } @f.jvp(
; CHECK: %[[DU:[0-9]+]] = select i1 %{{[0-9]+}}, double %dv, double 0.000000e+00, !ad.linear
; CHECK: %[[Q:[0-9]+]] = fdiv double %[[DU]], %{{[0-9]+}}, !ad.linear
; CHECK-NEXT: %[[Z:[0-9]+]] = fcmp oeq double %[[DU]], 0.000000e+00
; CHECK-NEXT: %[[S:[0-9]+]] = select i1 %[[Z]], double 0.000000e+00, double %[[Q]]
; CHECK-NEXT: %h = fdiv double %v, 4.000000e+00
; CHECK-NEXT: %[[H:[0-9]+]] = fdiv double %dv, 4.000000e+00, !ad.linear
; CHECK-NEXT: %p = call double @llvm.pow.f64(
; CHECK: %[[PQ:[0-9]+]] = fdiv double %[[DU]], %{{[0-9]+}}, !ad.linear
; CHECK-NEXT: %[[PZ:[0-9]+]] = fcmp oeq double %[[DU]], 0.000000e+00
; CHECK-NEXT: %[[P:[0-9]+]] = select i1 %[[PZ]], double 0.000000e+00, double %[[PQ]]
; CHECK: fadd double %[[S]], %[[H]], !ad.linear

; STAGE-LABEL: define internal { double, double } @f.jvp(
; STAGE-NOT: fcmp oeq double %{{[0-9]+}}, 0.0
; STAGE: ret { double, double }
