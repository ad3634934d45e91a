; Accumulations into memory a memset just zeroed become stores
; (FirstTouchStores.h), in the form f.rev takes once inlined after the
; caller's memset. Fires: one pair per iteration, exactly covered (the
; memset moves to the path that skips the loop); two pairs tiling a
; stride of 16 behind a run-time check of the range (odd n); a second
; shadow checked apart at run time. Must not
; fire: a load of the range between the memset and the loop; a store in
; the loop that may alias; a cell two iterations add into; a store not run
; in every iteration; an exit other than the latch; a call that may throw
; between the memset and the loop; another array indexed through memory.
; RUN: %opt -passes=ad-first-touch %s -S | FileCheck %s

; CHECK-LABEL: define void @covered(
; CHECK: entry:
; CHECK-NEXT: %bytes = shl nsw i64 %n, 3
; CHECK-NEXT: %run = icmp sgt i64 %n, 0
; CHECK-NEXT: br i1 %run, label %ph, label %[[SKIP:.*]]
; CHECK: [[SKIP]]:
; CHECK-NEXT: call void @llvm.memset.p0.i64(ptr align 8 %dx, i8 0, i64 %bytes, i1 false)
; The load reads the memset's zero, and the sum with it is the value.
; CHECK: loop:
; CHECK-NOT: load double, ptr %dcell
; CHECK-NOT: fadd
; CHECK: store double %g, ptr %dcell
define void @covered(ptr noalias %x, ptr noalias %dx, i64 %n) {
entry:
  %bytes = shl nsw i64 %n, 3
  call void @llvm.memset.p0.i64(ptr align 8 %dx, i8 0, i64 %bytes, i1 false)
  %run = icmp sgt i64 %n, 0
  br i1 %run, label %ph, label %exit
ph:
  br label %loop
loop:
  %i = phi i64 [ 0, %ph ], [ %i.next, %loop ]
  %xcell = getelementptr inbounds double, ptr %x, i64 %i
  %xv = load double, ptr %xcell
  %g = fmul double %xv, 2.0
  %dcell = getelementptr inbounds double, ptr %dx, i64 %i
  %old = load double, ptr %dcell
  %acc = fadd double %g, %old
  store double %acc, ptr %dcell
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}

; CHECK-LABEL: define void @pairs(
; CHECK: %ad.first.touch.within = icmp ule i64 %{{.*}}, %bytes
; CHECK-NEXT: br i1 %ad.first.touch.within, label %[[COPY:.*]], label %[[ORIG:[^,]*]]
; CHECK: [[COPY]]:
; CHECK: %ad.first.touch.tail = getelementptr i8, ptr %dx
; CHECK-NEXT: sub i64 %bytes
; CHECK-NEXT: call void @llvm.memset.p0.i64(ptr %ad.first.touch.tail, i8 0
; CHECK: loop.first.touch:
; CHECK-NOT: load double, ptr %d
; CHECK: store double 1.000000e+00, ptr %d0.first.touch
; CHECK-NOT: load double, ptr %d
; CHECK: store double 2.000000e+00, ptr %d1.first.touch
; The original, once: its memset is marked as kept.
; CHECK: [[ORIG]]:
; CHECK-NEXT: call void @llvm.memset.p0.i64(ptr align 8 %dx, i8 0, i64 %bytes, i1 false), !ad.first.touch.kept
; CHECK-NEXT: br label %loop
; CHECK: %old0 = load double, ptr %d0
; CHECK-NOT: ad.first.touch.within
; CHECK: ret void
define void @pairs(ptr noalias %x, ptr noalias %dx, i64 %n) {
entry:
  %bytes = shl nsw i64 %n, 3
  call void @llvm.memset.p0.i64(ptr align 8 %dx, i8 0, i64 %bytes, i1 false)
  %run = icmp sgt i64 %n, 0
  br i1 %run, label %ph, label %exit
ph:
  br label %loop
loop:
  %i = phi i64 [ 0, %ph ], [ %i.next, %loop ]
  %i1 = or disjoint i64 %i, 1
  %d0 = getelementptr inbounds double, ptr %dx, i64 %i
  %d1 = getelementptr inbounds double, ptr %dx, i64 %i1
  %old0 = load double, ptr %d0
  %acc0 = fadd double %old0, 1.0
  store double %acc0, ptr %d0
  %old1 = load double, ptr %d1
  %acc1 = fadd double %old1, 2.0
  store double %acc1, ptr %d1
  %i.next = add nuw nsw i64 %i, 2
  %done = icmp sge i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}

; CHECK-LABEL: define void @read_between(
; CHECK: call void @llvm.memset
; CHECK: %old = load double, ptr %dcell
define void @read_between(ptr noalias %dx, ptr noalias %out, i64 %n) {
entry:
  %bytes = shl nsw i64 %n, 3
  call void @llvm.memset.p0.i64(ptr align 8 %dx, i8 0, i64 %bytes, i1 false)
  %first = load double, ptr %dx
  store double %first, ptr %out
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %dcell = getelementptr inbounds double, ptr %dx, i64 %i
  %old = load double, ptr %dcell
  %acc = fadd double %old, 1.0
  store double %acc, ptr %dcell
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}

; %y may be %dx: the store to it may write a cell before its pair reads it.
; CHECK-LABEL: define void @may_alias(
; CHECK: call void @llvm.memset
; CHECK: %old = load double, ptr %dcell
define void @may_alias(ptr %dx, ptr %y, i64 %n) {
entry:
  %bytes = shl nsw i64 %n, 3
  call void @llvm.memset.p0.i64(ptr align 8 %dx, i8 0, i64 %bytes, i1 false)
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %ycell = getelementptr inbounds double, ptr %y, i64 %i
  store double 3.0, ptr %ycell
  %dcell = getelementptr inbounds double, ptr %dx, i64 %i
  %old = load double, ptr %dcell
  %acc = fadd double %old, 1.0
  store double %acc, ptr %dcell
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}

; Cells i and i + 1 per iteration: every inner cell receives twice.
; CHECK-LABEL: define void @overlapping(
; CHECK: call void @llvm.memset
; CHECK: %old0 = load double, ptr %d0
; CHECK: %old1 = load double, ptr %d1
define void @overlapping(ptr noalias %dx, i64 %n) {
entry:
  %bytes = shl nsw i64 %n, 3
  %m = add nsw i64 %n, -1
  call void @llvm.memset.p0.i64(ptr align 8 %dx, i8 0, i64 %bytes, i1 false)
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %i1 = add nuw nsw i64 %i, 1
  %d0 = getelementptr inbounds double, ptr %dx, i64 %i
  %d1 = getelementptr inbounds double, ptr %dx, i64 %i1
  %old0 = load double, ptr %d0
  %acc0 = fadd double %old0, 1.0
  store double %acc0, ptr %d0
  %old1 = load double, ptr %d1
  %acc1 = fadd double %old1, 2.0
  store double %acc1, ptr %d1
  %done = icmp eq i64 %i1, %m
  %i.next = add nuw nsw i64 %i, 1
  br i1 %done, label %exit, label %loop
exit:
  ret void
}

; The store is skipped in some iterations: those cells stay unwritten.
; CHECK-LABEL: define void @conditional(
; CHECK: call void @llvm.memset
; CHECK: %old = load double, ptr %dcell
define void @conditional(ptr noalias %x, ptr noalias %dx, i64 %n) {
entry:
  %bytes = shl nsw i64 %n, 3
  call void @llvm.memset.p0.i64(ptr align 8 %dx, i8 0, i64 %bytes, i1 false)
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %xcell = getelementptr inbounds double, ptr %x, i64 %i
  %xv = load double, ptr %xcell
  %pos = fcmp ogt double %xv, 0.0
  br i1 %pos, label %add, label %latch
add:
  %dcell = getelementptr inbounds double, ptr %dx, i64 %i
  %old = load double, ptr %dcell
  %acc = fadd double %old, %xv
  store double %acc, ptr %dcell
  br label %latch
latch:
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}

; An early exit leaves the cells after it unwritten.
; CHECK-LABEL: define void @early_exit(
; CHECK: call void @llvm.memset
; CHECK: %old = load double, ptr %dcell
define void @early_exit(ptr noalias %x, ptr noalias %dx, i64 %n) {
entry:
  %bytes = shl nsw i64 %n, 3
  call void @llvm.memset.p0.i64(ptr align 8 %dx, i8 0, i64 %bytes, i1 false)
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %dcell = getelementptr inbounds double, ptr %dx, i64 %i
  %old = load double, ptr %dcell
  %acc = fadd double %old, 1.0
  store double %acc, ptr %dcell
  %xcell = getelementptr inbounds double, ptr %x, i64 %i
  %xv = load double, ptr %xcell
  %stop = fcmp olt double %xv, 0.0
  br i1 %stop, label %exit, label %latch
latch:
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}

; Two shadows the scopes do not tell apart (dy may be dx): dx's rewrite
; runs behind a check that dy's cells over the loop miss dx's.
; CHECK-LABEL: define void @two_shadows(
; CHECK: %ad.first.touch.apart = or i1
; CHECK-NEXT: br i1 %ad.first.touch.apart,
; CHECK: loop.first.touch:
; CHECK-NOT: load double, ptr %dcell
; CHECK: store double 1.000000e+00, ptr %dcell.first.touch
; CHECK-NEXT: %ycell.first.touch = getelementptr
; CHECK-NEXT: %oldy.first.touch = load double, ptr %ycell
define void @two_shadows(ptr noalias %x, ptr %dx, ptr %dy, i64 %n) {
entry:
  %bytes = shl nsw i64 %n, 3
  call void @llvm.memset.p0.i64(ptr align 8 %dx, i8 0, i64 %bytes, i1 false)
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %dcell = getelementptr inbounds double, ptr %dx, i64 %i
  %old = load double, ptr %dcell
  %acc = fadd double %old, 1.0
  store double %acc, ptr %dcell
  %ycell = getelementptr inbounds double, ptr %dy, i64 %i
  %oldy = load double, ptr %ycell
  %accy = fadd double %oldy, 2.0
  store double %accy, ptr %ycell
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}

; The other array is indexed through memory: no range to check.
; CHECK-LABEL: define void @indirect_other(
; CHECK: call void @llvm.memset
; CHECK: %old = load double, ptr %dcell
define void @indirect_other(ptr noalias %idx, ptr %dx, ptr %dy, i64 %n) {
entry:
  %bytes = shl nsw i64 %n, 3
  call void @llvm.memset.p0.i64(ptr align 8 %dx, i8 0, i64 %bytes, i1 false)
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %dcell = getelementptr inbounds double, ptr %dx, i64 %i
  %old = load double, ptr %dcell
  %acc = fadd double %old, 1.0
  store double %acc, ptr %dcell
  %icell = getelementptr inbounds i64, ptr %idx, i64 %i
  %j = load i64, ptr %icell
  %ycell = getelementptr inbounds double, ptr %dy, i64 %j
  store double 2.0, ptr %ycell
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}

; A call between the memset and the loop may throw: the caller's handler
; would see the range unzeroed.
; CHECK-LABEL: define void @may_throw_between(
; CHECK: call void @llvm.memset
; CHECK-NEXT: invoke void @opaque_no_memory()
; CHECK: %old = load double, ptr %dcell
define void @may_throw_between(ptr noalias %dx, i64 %n) personality ptr @__gxx_personality_v0 {
entry:
  %bytes = shl nsw i64 %n, 3
  call void @llvm.memset.p0.i64(ptr align 8 %dx, i8 0, i64 %bytes, i1 false)
  invoke void @opaque_no_memory() to label %ph unwind label %lpad
ph:
  br label %loop
loop:
  %i = phi i64 [ 0, %ph ], [ %i.next, %loop ]
  %dcell = getelementptr inbounds double, ptr %dx, i64 %i
  %old = load double, ptr %dcell
  %acc = fadd double %old, 1.0
  store double %acc, ptr %dcell
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
lpad:
  %lp = landingpad { ptr, i32 } cleanup
  resume { ptr, i32 } %lp
}

declare void @opaque_no_memory() memory(none)
declare i32 @__gxx_personality_v0(...)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
