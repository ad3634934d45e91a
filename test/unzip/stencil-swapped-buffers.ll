; A time loop over two buffers swapped every step, with the boundary tests
; of a 3-point stencil as branches on the cell counter:
;   for (s = 0; s < steps; ++s) {
;     for (i = 0; i < n; ++i) {
;       left  = i > 0 ? a[i - 1] : 0;
;       right = i + 1 < n ? a[i + 1] : 0;
;       c     = a[i] > 0.5 ? a[i] : b[i];     // a branch on the data
;       b[i]  = c + k * (left - 2 * a[i] + right);
;     }
;     swap(a, b);
;   }
; Per cell-step the record keeps the coefficient of dk (the Laplacian) and
; the predecessor of the merge after the data branch, nothing else: the
; shadow addresses are recomputed from the shadow bases, which the step's
; record keeps once per step, and the two boundary merges' predecessors
; are recomputed from the counter. The data branch's merge cannot be.
; RUN: %opt -passes=ad-linearize,ad-unzip,ad-transpose,ad-verify %s -S | FileCheck %s

declare void @__ad_gradient_void(ptr, ...)

define void @step(double %k, ptr %a0, ptr %b0, i32 %n, i32 %steps) {
entry:
  %any = icmp sgt i32 %steps, 0
  br i1 %any, label %pre, label %done

pre:
  %cells = icmp sgt i32 %n, 0
  %n64 = zext nneg i32 %n to i64
  br label %time

time:
  %a = phi ptr [ %a0, %pre ], [ %b, %time.latch ]
  %b = phi ptr [ %b0, %pre ], [ %a, %time.latch ]
  %s = phi i32 [ 0, %pre ], [ %s.next, %time.latch ]
  br i1 %cells, label %cell, label %time.latch

cell:
  %i = phi i64 [ 0, %time ], [ %i.next, %latch ]
  %first = icmp eq i64 %i, 0
  br i1 %first, label %has.left, label %load.left

load.left:
  %im1 = add nsw i64 %i, -1
  %pl = getelementptr inbounds double, ptr %a, i64 %im1
  %l = load double, ptr %pl, align 8
  br label %has.left

has.left:
  %left = phi double [ %l, %load.left ], [ 0.0, %cell ]
  %i.next = add nuw nsw i64 %i, 1
  %inside = icmp ult i64 %i.next, %n64
  br i1 %inside, label %load.right, label %has.right

load.right:
  %pr = getelementptr inbounds double, ptr %a, i64 %i.next
  %r = load double, ptr %pr, align 8
  br label %has.right

has.right:
  %right = phi double [ %r, %load.right ], [ 0.0, %has.left ]
  %pc = getelementptr inbounds double, ptr %a, i64 %i
  %c = load double, ptr %pc, align 8
  %big = fcmp ogt double %c, 0.5
  br i1 %big, label %latch, label %small

small:
  %pbo = getelementptr inbounds double, ptr %b, i64 %i
  %o = load double, ptr %pbo, align 8
  br label %latch

latch:
  %base = phi double [ %c, %has.right ], [ %o, %small ]
  %m2 = fmul double %c, -2.0
  %s1 = fadd double %left, %m2
  %lap = fadd double %right, %s1
  %kl = fmul double %k, %lap
  %new = fadd double %base, %kl
  %pb = getelementptr inbounds double, ptr %b, i64 %i
  store double %new, ptr %pb, align 8
  %end = icmp eq i64 %i.next, %n64
  br i1 %end, label %time.latch, label %cell

time.latch:
  %s.next = add nuw nsw i32 %s, 1
  %last = icmp eq i32 %s.next, %steps
  br i1 %last, label %done, label %time

done:
  ret void
}

define void @g(double %k, ptr %a, ptr %da, ptr %b, ptr %db, i32 %n, i32 %s) {
  call void (ptr, ...) @__ad_gradient_void(ptr @step, double %k, ptr %a, ptr %da, ptr %b, ptr %db, i32 %n, i32 %s)
  ret void
}

; The step's record keeps the two shadow bases, once per step.
; CHECK-LABEL: define internal void @step.fwd(
; CHECK:       time:
; CHECK:         store ptr %a.shadow, ptr
; CHECK:         store ptr %b.shadow, ptr
; Each cell's record: the data merge's predecessor, the data branch's
; condition and the Laplacian, 16 bytes; no shadow address.
; CHECK:       cell.preheader:
; CHECK:         mul i64 %{{.*}}, 16
; CHECK-NEXT:    call ptr @__ad_tape_push
; CHECK:       cell:
; CHECK-NOT:     store ptr
; CHECK:         store i1 %big, ptr
; CHECK-NOT:     store ptr
; CHECK:         %pred.idx = phi i8 [ 1, %small ], [ 0, %has.right ]
; CHECK-NOT:     store ptr
; CHECK:         store i8 %pred.idx, ptr
; CHECK-NOT:     store ptr
; CHECK:         store double %lap, ptr
; CHECK-NEXT:    br i1 %end
; CHECK-NOT:     pred.idx
; CHECK:         ret void

; f.lin recomputes the boundary merges' predecessors from the counter and
; the shadow addresses from the step's record; it reads the data merge's.
; CHECK-LABEL: define internal void @step.lin(
; CHECK:       load.left:
; CHECK:         %a.shadow = load ptr, ptr
; CHECK:       has.left:
; CHECK:         %pred.cond = icmp eq i64 %{{.*}}, 0
; CHECK-NEXT:    select i1 %pred.cond, i8 0, i8 1, !ad.pred
; CHECK:       has.right:
; CHECK:         %pred.cond{{[0-9]+}} = icmp ult i64
; CHECK-NEXT:    select i1 %pred.cond{{[0-9]+}}, i8 1, i8 0, !ad.pred
; CHECK:       latch:
; CHECK:         %pred.idx = load i8, {{.*}} !ad.pred

; f.rev branches back on the recomputed conditions.
; CHECK-LABEL: define internal {{.*}} @step.rev(
; CHECK:       latch:
; CHECK:         %pred.idx = load i8
; CHECK:       has.right:
; CHECK:         %pred.cond{{[0-9]+}} = icmp ult i64
; CHECK:       has.left:
; CHECK:         %pred.cond = icmp eq i64 %{{.*}}, 0
; CHECK-NEXT:    br i1 %pred.cond, label %has.left.from.cell, label %has.left.from.load.left
