; The cotangent of a value defined before a loop is a reduction over the
; loop's iterations in f.rev (here dc, of c in s += c * x[i]). Its
; additions carry reassoc, so that the vectorizer may sum in lanes, as
; the additions into a shadow cell already may come in any order
; (Transpose.cpp, accumulate). Additions outside loops, and into shadow
; memory, keep the order as written.
; RUN: %opt -passes=ad-linearize,ad-unzip,ad-transpose,ad-verify %s -S | FileCheck %s

; CHECK-LABEL: define internal double @scaled_sum.rev(
; CHECK:       exit:
; CHECK-NOT:     reassoc
; CHECK:       loop:
; CHECK-NEXT:    %dc.ct.0 = phi double [ {{%.*}}, %exit ], [ [[DC:%.*]], %loop.from.loop ]
; CHECK:         [[DC]] = fadd reassoc double %dc.ct.0, {{%.*}}
; CHECK:         [[OLD:%.*]] = load double, ptr [[SHADOW:%.*]], align 8
; CHECK-NEXT:    [[NEW:%.*]] = fadd double [[OLD]], {{%.*}}
; CHECK-NEXT:    store double [[NEW]], ptr [[SHADOW]]
; CHECK:       entry:
; CHECK-NOT:     reassoc
; CHECK:         ret double
declare double @__ad_gradient(ptr, ...)

define double @scaled_sum(ptr %x, double %c, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %a = load double, ptr %px
  %ca = fmul double %c, %a
  %s.next = fadd double %s, %ca
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  %r = fmul double %s.next, %c
  ret double %r
}

define double @grad(ptr %x, ptr %dx, double %c, i64 %n) {
  %g = call double (ptr, ...) @__ad_gradient(ptr @scaled_sum, ptr %x, ptr %dx, double %c, i64 %n)
  ret double %g
}
