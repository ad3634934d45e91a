; What a triangular product keeps, out = sum over col, row of l[col n + row]
; * c[col], with c per-call scratch filled with exp(x) (malloc'd: its shadow
; is a calloc'd block the pass adds; exp is no cheap arithmetic, so f.rev
; does not compute c[col] from x again, ForwardedStores.cpp):
;  - x[j] and l[col n + row] are read again by f.rev: the allocations
;    (malloc, the shadow's calloc) do not write them;
;  - c[col], loaded once per column (LICM's place for it), is kept once
;    per column, in the column loop's record, and the row loop reads it at
;    the column's iteration: the row loop keeps nothing.
; And a function that frees its parameter after reading it: the free may
; end what it read, so the values are taped.
; RUN: %opt -passes=ad %s -S | FileCheck %s

declare double @__ad_gradient(ptr, ...)
; Declared as clang declares them: an allocation touches only the
; allocator's state, a free only its argument.
declare noalias ptr @malloc(i64 noundef) #0
declare double @exp(double) #2
declare void @free(ptr allocptr nocapture noundef) #1

define double @tri(ptr %x, ptr %l, i64 %n) {
entry:
  %bytes = shl i64 %n, 3
  %c = call ptr @malloc(i64 %bytes)
  br label %fill

fill:
  %j = phi i64 [ 0, %entry ], [ %j.next, %fill ]
  %px = getelementptr inbounds double, ptr %x, i64 %j
  %xv = load double, ptr %px, align 8
  %sq = call double @exp(double %xv)
  %pc = getelementptr inbounds double, ptr %c, i64 %j
  store double %sq, ptr %pc, align 8
  %j.next = add nuw nsw i64 %j, 1
  %fill.end = icmp eq i64 %j.next, %n
  br i1 %fill.end, label %cols, label %fill

cols:
  %col = phi i64 [ 0, %fill ], [ %col.next, %cols.latch ]
  %s = phi double [ 0.0, %fill ], [ %acc.next, %cols.latch ]
  %pcc = getelementptr inbounds double, ptr %c, i64 %col
  %cc = load double, ptr %pcc, align 8
  %colbase = mul nuw nsw i64 %col, %n
  br label %rows

rows:
  %row = phi i64 [ 0, %cols ], [ %row.next, %rows ]
  %acc = phi double [ %s, %cols ], [ %acc.next, %rows ]
  %at = add nuw nsw i64 %colbase, %row
  %pl = getelementptr inbounds double, ptr %l, i64 %at
  %lv = load double, ptr %pl, align 8
  %t = fmul double %lv, %cc
  %acc.next = fadd double %acc, %t
  %row.next = add nuw nsw i64 %row, 1
  %rows.end = icmp eq i64 %row.next, %n
  br i1 %rows.end, label %cols.latch, label %rows

cols.latch:
  %col.next = add nuw nsw i64 %col, 1
  %cols.end = icmp eq i64 %col.next, %n
  br i1 %cols.end, label %done, label %cols

done:
  call void @free(ptr %c)
  ret double %acc.next
}

; Must not fire: l is freed after it is read.
define double @frees_l(ptr %x, ptr %l) {
  %v = load double, ptr %l, align 8
  %w = load double, ptr %x, align 8
  %m = fmul double %v, %w
  call void @free(ptr %l)
  %b = call ptr @malloc(i64 8)
  store double %m, ptr %b, align 8
  %r = load double, ptr %b, align 8
  call void @free(ptr %b)
  ret double %r
}

define double @g(ptr %x, ptr %dx, ptr %l, ptr %dl, i64 %n) {
  %r = call double (ptr, ...) @__ad_gradient(ptr @tri, ptr %x, ptr %dx, ptr %l, ptr %dl, i64 %n)
  %q = call double (ptr, ...) @__ad_gradient(ptr @frees_l, ptr %x, ptr %dx, ptr %l, ptr %dl)
  %s = fadd double %r, %q
  ret double %s
}

attributes #0 = { mustprogress nounwind willreturn allockind("alloc,uninitialized") allocsize(0) memory(inaccessiblemem: readwrite) "alloc-family"="malloc" }
attributes #2 = { mustprogress nofree nounwind willreturn memory(none) }
attributes #1 = { mustprogress nounwind willreturn allockind("free") memory(argmem: readwrite, inaccessiblemem: readwrite) "alloc-family"="malloc" }

; CHECK-LABEL: define internal double @tri.fwd(
; CHECK:       fill:
; CHECK-NOT:     store double %xv
; CHECK:         br i1 %fill.end
; The column's record holds c[col] alone: the row loop keeps nothing per
; iteration (no array), and its count, n, is recomputed.
; CHECK:       cols:
; CHECK:         %cc = load double
; CHECK-NOT:     store
; CHECK:         store double %cc, ptr
; CHECK-NEXT:    br label %rows
; CHECK:       rows:
; CHECK-NOT:     store double
; CHECK:         br i1 %rows.end
; CHECK:       done:

; f.rev reads l again and c[col] from the column's record, at the column's
; iteration.
; CHECK-LABEL: define internal void @tri.rev(
; CHECK:       cols.latch:
; CHECK:         %[[COL:iteration[0-9]*\.0]] = phi i64
; CHECK:       rows:
; CHECK:         %lv = load double, ptr
; CHECK:         %[[REC:record[0-9]*]] = getelementptr { double }, ptr %{{.*}}, i64 %[[COL]]
; CHECK-NEXT:    %cc = load double, ptr %[[REC]]
; CHECK:       fill:
; CHECK:         %xv = load double, ptr

; CHECK-LABEL: define internal double @frees_l.fwd(
; CHECK:         %v = load double, ptr %l
; CHECK-NEXT:    [[S:%.*]] = getelementptr inbounds{{( nuw)?}} %frees_l.tape
; CHECK-NEXT:    store double %v, ptr [[S]]
; CHECK:         call void @free(ptr %l)
