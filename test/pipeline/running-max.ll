; A running maximum of loaded values, in a loop that writes no memory,
; ends as a load from the address of the last value chosen
; (pass/prepare/SelectedLoadRecurrences.h): f.fwd carries that address
; (and its shadow) next to the maximum and reads the value again after
; the loop; the maximum's tangent only fed itself and is gone
; (pass/unzip/DeadTangents.h), so f.rev does not replay the loop: it adds
; the cotangent to the winner's shadow once. A null address means no
; element beat the initial value, whose derivative then counts.
; RUN: %opt -passes=ad %s -S | FileCheck %s
; RUN: %opt -passes='ad<O2>' %s -S | FileCheck %s
; RUN: %opt -passes=ad %s -S | sed -n '/^define internal void @running_max.rev(/,/^}/p' \
; RUN:   | FileCheck %s --check-prefix=REV --implicit-check-not=__ad_tape --implicit-check-not='phi i64'

declare double @__ad_gradient(ptr, ...)

; m = x[0]; for (i = 1; i < n; ++i) if (x[i] > m) m = x[i]; return m * m
define double @running_max(ptr %x, i64 %n) {
entry:
  %x0 = load double, ptr %x
  br label %loop

loop:
  %i = phi i64 [ 1, %entry ], [ %i.next, %loop ]
  %m = phi double [ %x0, %entry ], [ %m.next, %loop ]
  %p = getelementptr inbounds double, ptr %x, i64 %i
  %v = load double, ptr %p
  %gt = fcmp ogt double %v, %m
  %m.next = select i1 %gt, double %v, double %m
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop

exit:
  %sq = fmul double %m.next, %m.next
  ret double %sq
}

define void @grad(ptr %x, ptr %dx, i64 %n) {
  %r = call double (ptr, ...) @__ad_gradient(ptr @running_max, ptr %x, ptr %dx, i64 %n)
  ret void
}

; CHECK-LABEL: define internal double @running_max.fwd(
; CHECK: loop:
; CHECK: %m.from = phi ptr [ null, %entry ], [ %m.next.from, %loop ]
; CHECK: %m.next.from = select i1 %gt, ptr %p, ptr %m.from
; CHECK: exit:
; CHECK: %[[INITIAL:.*]] = icmp eq ptr %[[FROM:.*]], null
; CHECK-NEXT: br i1 %[[INITIAL]], label %exit.reloaded, label %exit.reload
; CHECK: exit.reload:
; CHECK-NEXT: %[[AGAIN:.*]] = load double, ptr %[[FROM]]
; CHECK: exit.reloaded:
; CHECK-NEXT: phi double [ %x0, %exit ], [ %[[AGAIN]], %exit.reload ]

; No per-iteration record, no loop in f.rev: one addition into the winner's
; shadow, or into x[0]'s.
; REV-LABEL: define internal void @running_max.rev(
; REV: %[[WINNER:.*]] = load ptr, ptr
; REV: %[[OLD:.*]] = load double, ptr %[[WINNER]]
; REV: fadd double %[[OLD]]
; REV: store double {{.*}}, ptr %[[WINNER]]
; REV: ret void
