; A loop whose trip count depends on data (Newton's iteration for sqrt(a)):
; each execution of the loop block pushes a record (its residuals and which
; predecessor it came from); f.rev pops one per reverse iteration and uses
; the predecessor index to decide whether to go around again.
; RUN: %opt -passes=ad-linearize,ad-unzip,ad-transpose,ad-verify %s -S | FileCheck %s

declare double @__ad_gradient(ptr, ...)
declare double @llvm.fabs.f64(double)

define double @newton(double %a) {
entry:
  br label %loop
loop:
  %x = phi double [ %a, %entry ], [ %x.next, %loop ]
  %q = fdiv double %a, %x
  %sum = fadd double %x, %q
  %x.next = fmul double %sum, 5.000000e-01
  %sq = fmul double %x.next, %x.next
  %r = fsub double %sq, %a
  %err = call double @llvm.fabs.f64(double %r)
  %more = fcmp ogt double %err, 1.000000e-12
  br i1 %more, label %loop, label %exit
exit:
  ret double %x.next
}

define double @grad(double %a) {
  %g = call double (ptr, ...) @__ad_gradient(ptr @newton, double %a)
  ret double %g
}

; CHECK-LABEL: define internal double @newton.fwd(double %a, ptr noalias %tape)
; CHECK:       loop:
; CHECK:         %pred.idx = phi i8 [ 1, %loop ], [ 0, %entry ]
; CHECK:         %record = call ptr @__ad_tape_push(i64 {{[0-9]+}})
; CHECK:         store i8 %pred.idx
; CHECK:         br i1 %more, label %loop, label %exit

; CHECK-LABEL: define internal double @newton.rev(ptr %tape, double %ct)
; CHECK:       loop:
; CHECK:         %record = call ptr @__ad_tape_pop(i64 {{[0-9]+}})
; CHECK:         %pred.idx = load i8, ptr %record
; CHECK:         [[FIRST:%.*]] = icmp eq i8 %pred.idx, 0
; CHECK-NEXT:    br i1 [[FIRST]], label %loop.from.entry, label %loop.from.loop
