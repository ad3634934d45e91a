; f.rev runs an array loop forwards (counting up to the count, "last")
; when its transposed iterations commute (IterationOrder.h), else
; backwards (counting down to 0, "first"). Forwards: a sum carried and
; loads only. Backwards: a product carried, the last iteration's value
; used after the loop, a store in the loop, and the outer loop of a nest
; (its inner loop's records come off the tape in reverse), whose inner
; loop runs forwards.
; RUN: %opt -passes=ad-linearize,ad-unzip,ad-transpose,ad-verify %s -S | FileCheck %s

declare double @__ad_gradient(ptr, ...)

; CHECK-LABEL: define internal void @sum_of_products.rev(
; CHECK:         %iteration.0 = phi i64 [ 0, %exit ], [ [[NEXT:%.*]], %loop.from.loop ]
; CHECK:         [[NEXT]] = add i64 %iteration.0, 1
; CHECK-NEXT:    %last = icmp eq i64 [[NEXT]], {{%.*}}
; CHECK-NOT:     %first
; CHECK:       }
define double @sum_of_products(ptr %x, ptr %y, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %py = getelementptr inbounds double, ptr %y, i64 %i
  %a = load double, ptr %px
  %b = load double, ptr %py
  %ab = fmul double %a, %b
  %s.half = fadd double %s, %ab
  %s.next = fsub double %s.half, %a
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret double %s.next
}

; CHECK-LABEL: define internal void @product.rev(
; CHECK:         %first = icmp eq i64 %iteration.0, 0
; CHECK-NOT:     %last
; CHECK:       }
define double @product(ptr %x, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %p = phi double [ 1.0, %entry ], [ %p.next, %loop ]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %a = load double, ptr %px
  %p.next = fmul double %p, %a
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret double %p.next
}

; The last iteration's square is used after the loop.
; CHECK-LABEL: define internal void @last_used.rev(
; CHECK:         %first = icmp eq i64 %iteration.0, 0
; CHECK-NOT:     %last
; CHECK:       }
define double @last_used(ptr %x, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %a = load double, ptr %px
  %sq = fmul double %a, %a
  %s.next = fadd double %s, %sq
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  %r = fadd double %s.next, %sq
  ret double %r
}

; y[i + 1] = x[i] * y[i]: a store, read back by the next iteration.
; CHECK-LABEL: define internal void @through_memory.rev(
; CHECK:         %first = icmp eq i64 %iteration.0, 0
; CHECK-NOT:     %last
; CHECK:       }
define double @through_memory(ptr %x, ptr %y, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %py = getelementptr inbounds double, ptr %y, i64 %i
  %a = load double, ptr %px
  %b = load double, ptr %py
  %ab = fmul double %a, %b
  %i.next = add nuw nsw i64 %i, 1
  %py.next = getelementptr inbounds double, ptr %y, i64 %i.next
  store double %ab, ptr %py.next
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  %pl = getelementptr inbounds double, ptr %y, i64 %n
  %r = load double, ptr %pl
  ret double %r
}

; s += x[i] * sin(x[j]) over i, j: the inner loop forwards, the outer
; backwards.
; CHECK-LABEL: define internal void @nest.rev(
; CHECK:       inner:
; CHECK:         %last = icmp eq
; CHECK:       outer:
; CHECK:         call ptr @__ad_tape_pop
; CHECK:         %first = icmp eq
; CHECK:       }
define double @nest(ptr %x, i64 %n) {
entry:
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %outer.latch ]
  %s = phi double [ 0.0, %entry ], [ %s.inner, %outer.latch ]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %a = load double, ptr %px
  br label %inner
inner:
  %j = phi i64 [ 0, %outer ], [ %j.next, %inner ]
  %t = phi double [ %s, %outer ], [ %t.next, %inner ]
  %pj = getelementptr inbounds double, ptr %x, i64 %j
  %b = load double, ptr %pj
  %sb = call double @llvm.sin.f64(double %b)
  %ab = fmul double %a, %sb
  %t.next = fadd double %t, %ab
  %j.next = add nuw nsw i64 %j, 1
  %jdone = icmp eq i64 %j.next, %n
  br i1 %jdone, label %outer.latch, label %inner
outer.latch:
  %s.inner = phi double [ %t.next, %inner ]
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %outer
exit:
  ret double %s.inner
}

declare double @llvm.sin.f64(double)

define void @grads(ptr %x, ptr %dx, ptr %y, ptr %dy, i64 %n) {
  %1 = call double (ptr, ...) @__ad_gradient(ptr @sum_of_products, ptr %x, ptr %dx, ptr %y, ptr %dy, i64 %n)
  %2 = call double (ptr, ...) @__ad_gradient(ptr @product, ptr %x, ptr %dx, i64 %n)
  %3 = call double (ptr, ...) @__ad_gradient(ptr @last_used, ptr %x, ptr %dx, i64 %n)
  %4 = call double (ptr, ...) @__ad_gradient(ptr @through_memory, ptr %x, ptr %dx, ptr %y, ptr %dy, i64 %n)
  %5 = call double (ptr, ...) @__ad_gradient(ptr @nest, ptr %x, ptr %dx, i64 %n)
  ret void
}
