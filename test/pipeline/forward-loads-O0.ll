; What the forwarding of loads in the prepared copy of f (pass/prepare/ForwardLoads.h)
; leaves alone: a cell overwritten in part, a cell read at another type, and
; anything from a block other than the only predecessor laid out just
; before. -O0 only: at -O2 GVN, which runs first, goes
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

; A block whose only predecessor is the block laid out before it starts
; from what that block knew (%y is %x); a merge starts from nothing (%z
; stays).
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
  %z = load double, ptr %v
  %rz = fmul double %r, %z
  ret double %rz
}
; CHECK-LABEL: define internal double @blocks.fwd(
; CHECK:         %x = load double, ptr %v
; CHECK:       then:
; CHECK-NOT:     load double
; CHECK:       done:
; CHECK:         %z = load double, ptr %v

; %b's only predecessor is the entry, but the block laid out before it is
; %a, which stored 2.0 into v[0]: %w is not taken for that store. (The
; store to v[1] keeps EarlyCSE from forwarding %x.)
define double @not_laid_out_after(ptr %v, i1 %c) {
entry:
  %x = load double, ptr %v
  %p1 = getelementptr inbounds double, ptr %v, i64 1
  store double %x, ptr %p1
  br i1 %c, label %a, label %b
a:
  store double 2.0, ptr %v
  ret double %x
b:
  %w = load double, ptr %v
  %s = fmul double %x, %w
  ret double %s
}
; CHECK-LABEL: define internal double @not_laid_out_after.fwd(
; CHECK:       b:
; CHECK:         %w = load double, ptr %v

define void @request(ptr %v, ptr %dv) {
  call double (ptr, ...) @__ad_gradient(ptr @overlap, ptr %v, ptr %dv)
  call double (ptr, ...) @__ad_gradient(ptr @blocks, ptr %v, ptr %dv, i1 true)
  call double (ptr, ...) @__ad_gradient(ptr @not_laid_out_after, ptr %v, ptr %dv, i1 true)
  ret void
}
