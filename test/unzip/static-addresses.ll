; Outside loops, an address at a constant offset from a pointer is not taped:
; f.fwd tapes the shadow pointer once and f.lin recomputes each shadow
; address from it, so f.rev accesses every shadow cell as (one base +
; constant), which alias analysis can tell apart. Before, every shadow
; address was a tape field of its own (three here), loaded in f.rev as an
; unrelated pointer.
;   void f(double *v) { v[0] = v[1] + v[2] * v[3]; }
; RUN: %opt -passes=ad-linearize,ad-unzip,ad-verify %s -S | FileCheck %s

declare void @__ad_gradient_void(ptr, ...)

define void @f(ptr %v) {
  %p1 = getelementptr inbounds double, ptr %v, i64 1
  %p2 = getelementptr inbounds double, ptr %v, i64 2
  %p3 = getelementptr inbounds double, ptr %v, i64 3
  %a = load double, ptr %p1
  %b = load double, ptr %p2
  %c = load double, ptr %p3
  %m = fmul double %b, %c
  %s = fadd double %a, %m
  store double %s, ptr %v
  ret void
}

define void @g(ptr %v, ptr %dv) {
  call void (ptr, ...) @__ad_gradient_void(ptr @f, ptr %v, ptr %dv)
  ret void
}

; The tape: the shadow pointer and the two factors of the product.
; CHECK: %f.tape = type { ptr, double, double }

; f.fwd does not compute the shadow addresses either: only f.lin uses them.
; CHECK-LABEL: define internal void @f.fwd(ptr %v, ptr %dv, ptr noalias %tape)
; CHECK:         store ptr %dv, ptr
; CHECK-NOT:     {{store ptr|%dv|shadow}}
; CHECK:         ret void

; CHECK-LABEL: define internal void @f.lin(ptr %tape)
; CHECK:         %dv = load ptr, ptr
; CHECK-NOT:     load ptr
; CHECK:         %p1.shadow = getelementptr inbounds double, ptr %dv, i64 1
; CHECK-NOT:     load ptr
; CHECK:         store double {{%.*}}, ptr %dv
; CHECK:         ret void
