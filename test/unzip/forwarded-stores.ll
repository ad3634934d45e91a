; A load of scratch memory that an earlier counted loop filled with a value
; f.rev can compute is computed again, not taped (ForwardedStores.cpp):
;   c = malloc(n); for j: c[j] = x[j] - m[j]; for j: s += c[j] * c[j]
; f.fwd keeps nothing in the second loop; f.rev loads x[j] and m[j] again
; and subtracts. The same with the store made conditional (only some cells
; are written): c[j] is taped.
; RUN: %opt -passes=ad %s -S | FileCheck %s

declare double @__ad_gradient(ptr, ...)
declare noalias ptr @malloc(i64 noundef) #0
declare void @free(ptr allocptr nocapture noundef) #1

define double @filled(ptr %x, ptr %m, i64 %n) {
entry:
  %bytes = shl i64 %n, 3
  %c = call ptr @malloc(i64 %bytes)
  br label %fill

fill:
  %j = phi i64 [ 0, %entry ], [ %j.next, %fill ]
  %px = getelementptr inbounds double, ptr %x, i64 %j
  %xv = load double, ptr %px, align 8
  %pm = getelementptr inbounds double, ptr %m, i64 %j
  %mv = load double, ptr %pm, align 8
  %diff = fsub double %xv, %mv
  %pc = getelementptr inbounds double, ptr %c, i64 %j
  store double %diff, ptr %pc, align 8
  %j.next = add nuw nsw i64 %j, 1
  %fill.end = icmp eq i64 %j.next, %n
  br i1 %fill.end, label %use, label %fill

use:
  %k = phi i64 [ 0, %fill ], [ %k.next, %use ]
  %s = phi double [ 0.0, %fill ], [ %s.next, %use ]
  %pck = getelementptr inbounds double, ptr %c, i64 %k
  %ck = load double, ptr %pck, align 8
  %sq = fmul double %ck, %ck
  %s.next = fadd double %s, %sq
  %k.next = add nuw nsw i64 %k, 1
  %use.end = icmp eq i64 %k.next, %n
  br i1 %use.end, label %done, label %use

done:
  call void @free(ptr %c)
  ret double %s.next
}

define double @conditional(ptr %x, ptr %m, i64 %n) {
entry:
  %bytes = shl i64 %n, 3
  %c = call ptr @malloc(i64 %bytes)
  br label %fill

fill:
  %j = phi i64 [ 0, %entry ], [ %j.next, %latch ]
  %px = getelementptr inbounds double, ptr %x, i64 %j
  %xv = load double, ptr %px, align 8
  %pc = getelementptr inbounds double, ptr %c, i64 %j
  store double %xv, ptr %pc, align 8
  %odd = trunc i64 %j to i1
  br i1 %odd, label %write, label %latch

write:
  %pm = getelementptr inbounds double, ptr %m, i64 %j
  %mv = load double, ptr %pm, align 8
  %diff = fsub double %xv, %mv
  store double %diff, ptr %pc, align 8
  br label %latch

latch:
  %j.next = add nuw nsw i64 %j, 1
  %fill.end = icmp eq i64 %j.next, %n
  br i1 %fill.end, label %use, label %fill

use:
  %k = phi i64 [ 0, %latch ], [ %k.next, %use ]
  %s = phi double [ 0.0, %latch ], [ %s.next, %use ]
  %pck = getelementptr inbounds double, ptr %c, i64 %k
  %ck = load double, ptr %pck, align 8
  %sq = fmul double %ck, %ck
  %s.next = fadd double %s, %sq
  %k.next = add nuw nsw i64 %k, 1
  %use.end = icmp eq i64 %k.next, %n
  br i1 %use.end, label %done, label %use

done:
  call void @free(ptr %c)
  ret double %s.next
}

define double @g(ptr %x, ptr %dx, ptr %m, ptr %dm, i64 %n) {
  %a = call double (ptr, ...) @__ad_gradient(ptr @filled, ptr %x, ptr %dx, ptr %m, ptr %dm, i64 %n)
  %b = call double (ptr, ...) @__ad_gradient(ptr @conditional, ptr %x, ptr %dx, ptr %m, ptr %dm, i64 %n)
  %r = fadd double %a, %b
  ret double %r
}

attributes #0 = { mustprogress nounwind willreturn allockind("alloc,uninitialized") allocsize(0) memory(inaccessiblemem: readwrite) "alloc-family"="malloc" }
attributes #1 = { mustprogress nounwind willreturn allockind("free") memory(argmem: readwrite, inaccessiblemem: readwrite) "alloc-family"="malloc" }

; CHECK-LABEL: define internal double @filled.fwd(
; CHECK-NOT:     call ptr @__ad_tape_push
; CHECK:       use:
; CHECK-NOT:     store double
; CHECK:         br i1 %use.end
; CHECK-LABEL: define internal void @filled.rev(
; CHECK:       use:
; CHECK:         %xv = load double, ptr
; CHECK:         %mv = load double, ptr
; CHECK-NEXT:    %diff = fsub double %xv, %mv
; CHECK-NOT:     call ptr @__ad_tape_pop

; CHECK-LABEL: define internal double @conditional.fwd(
; CHECK:       use:
; CHECK:         store double %ck, ptr
; CHECK:         br i1 %use.end
