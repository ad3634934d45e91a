; A counted loop (trip count known to ScalarEvolution at the preheader):
;  * f.fwd pushes one array of records before the loop; iteration k stores
;    only x[k] (the shadow address dx+8k is recomputed, not taped);
;  * f.rev enters at the exit, adds 2 x[k] ct into the shadow (a linear
;    load transposes to +=), and pops the array when it reaches the
;    preheader. Its iterations only add into the shadow and carry a sum,
;    so f.rev runs them forwards, from the first (transpose/
;    iteration-order.ll has the loops it runs backwards).
; RUN: %opt -passes=ad-linearize,ad-unzip,ad-transpose,ad-verify %s -S | FileCheck %s

; CHECK-LABEL: define internal double @sumsq.fwd(ptr %x, i64 %n, ptr %dx, ptr noalias %tape)
; CHECK:       entry:
; CHECK:         %iterations = add i64 %backedges, 1
; CHECK:         %array = call ptr @__ad_tape_push(i64 %array.bytes)
; CHECK:       loop:
; CHECK-NOT:     call ptr @__ad_tape_push
; CHECK:         %record = getelementptr {{(nuw )?}}{ double }, ptr %array, i64 %iteration
; CHECK-NEXT:    [[F:%.*]] = getelementptr inbounds{{( nuw)?}} { double }, ptr %record, i32 0, i32 0
; CHECK-NEXT:    store double %v, ptr [[F]]
; CHECK-NEXT:    br i1 %done, label %exit, label %loop

; CHECK-LABEL: define internal void @sumsq.rev(ptr %tape, double %ct)
; CHECK:       exit:
; CHECK:         [[COUNT:%.*]] = load i64
; CHECK-NEXT:    br label %loop
; CHECK:       loop:
; CHECK-NEXT:    %iteration.0 = phi i64 [ 0, %exit ], [ [[NEXT:%.*]], %loop.from.loop ]
; CHECK:         %record = getelementptr {{(nuw )?}}{ double }, ptr %array{{[0-9]*}}, i64 %iteration.0
; CHECK-NEXT:    %v = load double, ptr %record
; CHECK:         [[OFF:%.*]] = mul i64 %iteration.0, 8
; CHECK-NEXT:    [[SH:%.*]] = getelementptr i8, ptr %dx, i64 [[OFF]]
; CHECK-NEXT:    [[OLD:%.*]] = load double, ptr [[SH]]
; CHECK-NEXT:    [[NEW:%.*]] = fadd double [[OLD]], {{%.*}}
; CHECK-NEXT:    store double [[NEW]], ptr [[SH]]
; CHECK-NEXT:    [[NEXT]] = add i64 %iteration.0, 1
; CHECK-NEXT:    %last = icmp eq i64 [[NEXT]], [[COUNT]]
; CHECK-NEXT:    br i1 %last, label %loop.from.entry, label %loop.from.loop
; CHECK:       entry:
; CHECK-NEXT:    %array.bytes = mul i64 [[COUNT]], 8
; CHECK-NEXT:    call ptr @__ad_tape_pop(i64 %array.bytes)
; CHECK-NEXT:    ret void

declare double @__ad_gradient(ptr, ...)
declare void @__ad_gradient_void(ptr, ...)

; s = sum_{i<n} x[i]^2
define double @sumsq(ptr %x, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %p = getelementptr inbounds double, ptr %x, i64 %i
  %v = load double, ptr %p
  %sq = fmul double %v, %v
  %s.next = fadd double %s, %sq
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret double %s.next
}

define void @grad(ptr %x, ptr %dx, i64 %n) {
  %g = call double (ptr, ...) @__ad_gradient(ptr @sumsq, ptr %x, ptr %dx, i64 %n)
  ret void
}
