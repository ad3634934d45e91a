; What the forwarding of loads in the prepared copy of f (pass/prepare/ForwardLoads.h)
; leaves alone: a cell overwritten in part, a cell read at another type, and
; anything from another block. -O0 only: at -O2 GVN, which runs first, goes
; further (across blocks, and through integer bit operations for the
; overlap, which the pass then rejects as bit manipulation).
; RUN: %opt -passes=ad %s -S | FileCheck %s

declare double @__ad_gradient(ptr, ...)

; Writing 4 bytes inside v[0] forgets it (the integer store overlaps the
; double); a double at another type is not taken for it either.
define double @overlap(ptr %v) {
  %x = load double, ptr %v
  %hi = getelementptr inbounds i8, ptr %v, i64 4
  store i32 0, ptr %hi
  %y = load double, ptr %v
  %p1 = getelementptr inbounds double, ptr %v, i64 1
  store double %x, ptr %p1
  %f = load float, ptr %p1
  %e = fpext float %f to double
  %s = fmul double %x, %y
  %t = fadd double %s, %e
  ret double %t
}
; CHECK-LABEL: define internal double @overlap.fwd(
; CHECK:         %x = load double, ptr %v
; CHECK:         store i32 0
; CHECK:         %y = load double, ptr %v
; CHECK:         %f = load float

; Nothing is carried from one block into the next (EarlyCSE, which runs
; first, would take a load the store to v[1] does not separate from it).
define double @blocks(ptr %v, i1 %c) {
entry:
  %x = load double, ptr %v
  %p1 = getelementptr inbounds double, ptr %v, i64 1
  store double %x, ptr %p1
  br i1 %c, label %then, label %done
then:
  %y = load double, ptr %v
  %m = fmul double %x, %y
  %p2 = getelementptr inbounds double, ptr %v, i64 2
  store double %m, ptr %p2
  br label %done
done:
  %r = phi double [ %x, %entry ], [ %m, %then ]
  ret double %r
}
; CHECK-LABEL: define internal double @blocks.fwd(
; CHECK:         %x = load double, ptr %v
; CHECK:       then:
; CHECK:         %y = load double, ptr %v

define void @request(ptr %v, ptr %dv) {
  call double (ptr, ...) @__ad_gradient(ptr @overlap, ptr %v, ptr %dv)
  call double (ptr, ...) @__ad_gradient(ptr @blocks, ptr %v, ptr %dv, i1 true)
  ret void
}
