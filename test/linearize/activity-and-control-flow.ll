; Activity: with y marked AD_CONST and n an integer, only values that depend
; on x get tangents. Integer code, the conversion of n and w = kf * y get no
; tangent code at all. Tangent PHIs and selects sit beside the primal ones;
; a switch keeps its shape (SimplifyCFG on the prepared copy folded `one`).
; RUN: %opt -passes=ad-linearize,ad-verify %s -S | FileCheck %s

; CHECK-LABEL: define internal { double, double } @f.jvp.acc(double %x, double %y, i32 %n, double %dx)
; CHECK:         %k = mul i32 %n, 3
; CHECK-NEXT:    %kf = sitofp i32 %k to double
; CHECK-NEXT:    %p = fmul double %x, %y
; CHECK-NEXT:    [[DP:%.*]] = fmul double %y, %dx, !ad.linear
; CHECK-NEXT:    %q = fdiv double %p, %kf
; CHECK-NEXT:    [[DQ:%.*]] = fdiv double [[DP]], %kf, !ad.linear
; CHECK-NEXT:    %w = fmul double %kf, %y
; CHECK-NEXT:    switch i32 %n
; CHECK:       two:
; CHECK-NEXT:    %t = fadd double %q, %w
; CHECK-NEXT:    br label %join
; CHECK:       def:
; CHECK:         %s = select i1 %c, double %q, double %w
; CHECK-NEXT:    %s.d = select i1 %c, double [[DQ]], double 0.000000e+00, !ad.linear
; CHECK:       join:
; SimplifyCFG orders the incoming edges from two and def differently in LLVM
; 19 and 22; either order, each edge's tangent belongs to its block.
; CHECK-NEXT:    %r = phi double {{\[ %t, %two \], \[ %s, %def \]|\[ %s, %def \], \[ %t, %two \]}}, [ %q, %entry ]
; CHECK-NEXT:    %r.d = phi double {{\[ %[0-9a-z.]+, %two \], \[ %s.d, %def \]|\[ %s.d, %def \], \[ %[0-9a-z.]+, %two \]}}, [ [[DQ]], %entry ], !ad.linear
; CHECK-NOT:     !ad.linear
; CHECK:         insertvalue { double, double } {{%.*}}, double %r.d, 1, !ad.linear
declare double @__ad_gradient(ptr, ...)
declare double @__ad_derivative(ptr, ...)
@__ad_const_tag = external constant i8

define double @f(double %x, double %y, i32 %n) {
entry:
  %k = mul i32 %n, 3
  %kf = sitofp i32 %k to double
  %p = fmul double %x, %y
  %q = fdiv double %p, %kf
  %w = fmul double %kf, %y
  switch i32 %n, label %def [ i32 1, label %one
                              i32 2, label %two ]
one:
  br label %join
two:
  %t = fadd double %q, %w
  br label %join
def:
  %c = fcmp olt double %x, 0.0
  %s = select i1 %c, double %q, double %w
  br label %join
join:
  %r = phi double [ %q, %one ], [ %t, %two ], [ %s, %def ]
  ret double %r
}

define double @grad(double %x, double %y) {
  %g = call double (ptr, ...) @__ad_gradient(ptr @f, double %x, ptr @__ad_const_tag, double %y, i32 2)
  ret double %g
}
