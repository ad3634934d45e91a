; A math call in a counted loop whose argument can be rebuilt (here from x[i],
; read again) is computed again by f.rev in a gradient, and kept on the tape
; for a handle (__ad_linearize): a handle's f.lin runs once per __ad_jvp or
; __ad_vjp, so a call computed again there is paid at every application
; (RecordResiduals.cpp). The gradient keeps exp(sin x[i]) and computes
; cos x[i] again; the handle keeps cos x[i], exp(sin x[i]) and x[i] (a
; handle reads nothing again from memory).
; RUN: %opt -passes=ad %s -S | FileCheck %s

declare ptr @__ad_linearize(ptr, ...)
declare void @__ad_gradient_void(ptr, ...)
declare double @sin(double)
declare double @exp(double)

; CHECK-LABEL: define internal void @model.fwd.ddch(
; CHECK:         call double @llvm.cos.f64
; CHECK:         getelementptr {{(nuw )?}}{ double, double, double }, ptr %array
; CHECK-LABEL: define internal void @model.fwd(
; CHECK-NOT:     @llvm.cos
; CHECK:         %record = getelementptr {{(nuw )?}}{ double }, ptr %array
; CHECK-LABEL: define internal void @model.rev(
; CHECK:         call double @llvm.cos.f64

; y[i] = exp(sin(x[i])) * x[i]
define void @model(ptr noalias %x, ptr noalias %y, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %a = load double, ptr %px
  %s = call double @sin(double %a)
  %e = call double @exp(double %s)
  %r = fmul double %e, %a
  %py = getelementptr inbounds double, ptr %y, i64 %i
  store double %r, ptr %py
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}

define ptr @lin(ptr %x, ptr %y, i64 %n) {
  %L = call ptr (ptr, ...) @__ad_linearize(ptr @model, ptr %x, ptr %y, i64 %n)
  ret ptr %L
}

define void @grad(ptr %x, ptr %dx, ptr %y, ptr %dy, i64 %n) {
  call void (ptr, ...) @__ad_gradient_void(ptr @model, ptr %x, ptr %dx, ptr %y, ptr %dy, i64 %n)
  ret void
}
