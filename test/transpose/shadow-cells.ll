; f.rev keeps the cotangents of shadow cells in SSA values within a block and
; writes each cell back once, at the end of the block (ShadowCotangents):
; a straight-line function that reads v[1] three times and writes v[0] and
; v[1] twice each gets one store per cell, not one per access. Loads and
; stores keep the alignment of the access they transpose.
;   v[0] = v[1] * v[1]; v[1] = v[0] + v[1]; v[0] = v[1] * v[0];
;   v[1] = v[0] - v[1]; return;
; RUN: %opt -passes=ad-linearize,ad-unzip,ad-transpose,ad-verify %s -S | FileCheck %s

declare void @__ad_gradient_void(ptr, ...)

define void @f(ptr %v) {
  %p1 = getelementptr inbounds double, ptr %v, i64 1
  %a = load double, ptr %p1, align 4
  %s = fmul double %a, %a
  store double %s, ptr %v, align 4
  %b = load double, ptr %p1, align 4
  %t = fadd double %s, %b
  store double %t, ptr %p1, align 4
  %u = fmul double %t, %s
  store double %u, ptr %v, align 4
  %w = fsub double %u, %t
  store double %w, ptr %p1, align 4
  ret void
}

define void @g(ptr %v, ptr %dv) {
  call void (ptr, ...) @__ad_gradient_void(ptr @f, ptr %v, ptr %dv)
  ret void
}

; CHECK-LABEL: define internal void @f.rev(ptr %tape)
; CHECK:         %dv = load ptr, ptr
; CHECK:         %p1.shadow = getelementptr inbounds double, ptr %dv, i64 1
; The last store to each cell is read and cleared first.
; CHECK:         load double, ptr %p1.shadow, align 4
; CHECK:         load double, ptr %dv, align 4
; CHECK-NOT:     store
; CHECK-NOT:     load double, ptr %dv
; CHECK-NOT:     load double, ptr %p1.shadow
; At the end, both cells are written back, once each (v[0] is never read
; before it is written: its cotangent on return is 0).
; CHECK-DAG:     store double 0.000000e+00, ptr %dv, align 4
; CHECK-DAG:     store double {{%.*}}, ptr %p1.shadow, align 4
; CHECK-NOT:     store
; CHECK:         ret void
