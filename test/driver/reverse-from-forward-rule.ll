; The reverse rule of a custom JVP is derived by transposition: f is
; external and has only a forward rule,
;   f_jvp(x, dx) = (cos(x) * x) * dx,
; so f.jvp inlines it (the product with dx marked linear), unzip tapes the
; coefficient cos(x) * x, and f.rev is its transpose: ct * coefficient.
; RUN: %opt -passes=ad-linearize,ad-verify,ad-unzip,ad-transpose %s -S | FileCheck %s

declare double @f(double)
declare double @llvm.cos.f64(double)
declare double @__ad_gradient(ptr, ...)

define double @f_jvp(double %x, double %dx) {
  %c = call double @llvm.cos.f64(double %x)
  %k = fmul double %c, %x
  %t = fmul double %k, %dx
  ret double %t
}

@__ad_custom_jvp_f = internal constant [2 x ptr] [ptr @f, ptr @f_jvp]
@llvm.compiler.used = appending global [1 x ptr] [ptr @__ad_custom_jvp_f], section "llvm.metadata"

define double @grad(double %x) {
  %g = call double (ptr, ...) @__ad_gradient(ptr @f, double %x)
  ret double %g
}

; CHECK-LABEL: define internal { double, double } @f.jvp(double %x, double %dx)
; CHECK:         %y = call double @f(double %x)
; CHECK:         %c = call double @llvm.cos.f64(double %x)
; CHECK-NEXT:    %k = fmul double %c, %x
; CHECK-NEXT:    %t = fmul double %k, %dx, !ad.linear
; CHECK-LABEL: define internal double @f.fwd(double %x, ptr noalias %tape)
; CHECK:         %y = call double @f(double %x)
; CHECK:         store double %k
; CHECK:         ret double %y
; CHECK-LABEL: define internal double @f.lin(ptr %tape, double %dx)
; CHECK:         %k = load double
; CHECK-NEXT:    %t = fmul double %k, %dx, !ad.linear
; CHECK-NEXT:    ret double %t
; CHECK-LABEL: define internal double @f.rev(ptr %tape, double %ct)
; CHECK:         %k = load double, ptr %tape
; CHECK-NEXT:    [[G:%.*]] = fmul double %ct, %k
; CHECK-NEXT:    [[OUT:%.*]] = fadd double [[G]], 0.000000e+00
; CHECK-NEXT:    ret double [[OUT]]
