; A value overwritten before anything reads it gets no cotangent: in f.rev
; its cotangent is a symbolic zero (the -0.0 an accumulator starts from),
; and the arithmetic that produced it is not transposed at all. Before,
; f.rev multiplied the -0.0 by the tape's residuals and added the products
; (IEEE keeps -0.0 * r from folding): a quarter of f.rev's arithmetic in the
; compile-time benchmark's straight-line function.
;   v[2] = v[0] * v[1];  (dead: overwritten below)
;   v[2] = v[0] + v[1];
; RUN: %opt -passes=ad-linearize,ad-unzip,ad-transpose,ad-verify %s -S | FileCheck %s

declare void @__ad_gradient_void(ptr, ...)

define void @f(ptr %v) {
  %p1 = getelementptr inbounds double, ptr %v, i64 1
  %p2 = getelementptr inbounds double, ptr %v, i64 2
  %a = load double, ptr %v, align 8
  %b = load double, ptr %p1, align 8
  %dead = fmul double %a, %b
  store double %dead, ptr %p2, align 8
  %live = fadd double %a, %b
  store double %live, ptr %p2, align 8
  ret void
}

define void @g(ptr %v, ptr %dv) {
  call void (ptr, ...) @__ad_gradient_void(ptr @f, ptr %v, ptr %dv)
  ret void
}

; CHECK-LABEL: define internal void @f.rev(ptr %tape)
; CHECK-NOT:     fmul
; CHECK:         fadd
; CHECK-NOT:     fmul
; CHECK:         ret void
