; A custom JVP of a function of an array: f(a) = a[0] * a[1], external,
;   f_jvp(a, da) = a[1] * da[0] + a[0] * da[1].
; In f.jvp the tangents are loads through the shadow pointer %da (marked
; linear); the addresses computed from %da are not. f.rev transposes each
; read into an accumulation into the shadow, ct times the coefficient.
; RUN: %opt -passes=ad-linearize,ad-verify,ad-unzip,ad-transpose %s -S | FileCheck %s

declare double @f(ptr)
declare void @__ad_gradient_void(ptr, ...)

define double @f_jvp(ptr %a, ptr %da) {
  %a1.addr = getelementptr inbounds double, ptr %a, i64 1
  %a0 = load double, ptr %a
  %a1 = load double, ptr %a1.addr
  %da1.addr = getelementptr inbounds double, ptr %da, i64 1
  %da0 = load double, ptr %da
  %da1 = load double, ptr %da1.addr
  %t0 = fmul double %a1, %da0
  %t1 = fmul double %a0, %da1
  %t = fadd double %t0, %t1
  ret double %t
}

@__ad_custom_jvp_f = internal constant [2 x ptr] [ptr @f, ptr @f_jvp]
@llvm.compiler.used = appending global [1 x ptr] [ptr @__ad_custom_jvp_f], section "llvm.metadata"

define void @grad(ptr %a, ptr %da) {
  call void (ptr, ...) @__ad_gradient_void(ptr @f, ptr %a, ptr %da)
  ret void
}

; CHECK-LABEL: define internal { double, double } @f.jvp(ptr %a, ptr %da)
; CHECK:         %y = call double @f(ptr %a)
; CHECK:         %da1.addr = getelementptr inbounds double, ptr %da, i64 1{{$}}
; CHECK-NEXT:    %da0 = load double, ptr %da, align 8, !ad.linear
; CHECK-NEXT:    %da1 = load double, ptr %da1.addr, align 8, !ad.linear
; CHECK-NEXT:    %t0 = fmul double %a1, %da0, !ad.linear
; CHECK-NEXT:    %t1 = fmul double %a0, %da1, !ad.linear
; CHECK-NEXT:    %t = fadd double %t0, %t1, !ad.linear
; CHECK-LABEL: define internal void @f.rev(ptr %tape, double %ct)
; CHECK-DAG:     fmul double %ct, %a1
; CHECK-DAG:     fmul double %ct, %a0
; CHECK-DAG:     store double {{.*}}, ptr %da1.addr
; CHECK-DAG:     store double {{.*}}, ptr %da
