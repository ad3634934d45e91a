; Loads of memory that nothing writes before f.rev runs are read again by
; f.lin and f.rev instead of taped (pass/unzip/RereadableLoads.h). Each
; function below is named by one request and called by nothing else.
; RUN: %opt -passes=ad %s -S | FileCheck %s

declare double @__ad_gradient(ptr, ...)

; x[k] is never written: the tape keeps x (and its shadow dx), f.rev loads
; x[k] again.
define double @square(ptr %x) {
  %p = getelementptr inbounds double, ptr %x, i64 3
  %v = load double, ptr %p
  %m = fmul double %v, %v
  ret double %m
}
; CHECK: %square.tape = type { ptr, ptr }
; CHECK-LABEL: define internal double @square.fwd(
; CHECK:         store ptr %x, ptr
; CHECK-NOT:     store double
; CHECK-LABEL: define internal {{.*}} @square.rev(
; CHECK:         [[X:%.*]] = load ptr, ptr
; CHECK:         [[P:%.*]] = getelementptr inbounds double, ptr [[X]], i64 3
; CHECK:         load double, ptr [[P]]

; The same load, then a store through another pointer argument, which may
; be x: the value is taped.
define double @maybe_overwritten(ptr %x, ptr %y) {
  %p = getelementptr inbounds double, ptr %x, i64 3
  %v = load double, ptr %p
  %m = fmul double %v, %v
  store double 0.0, ptr %y
  ret double %m
}
; CHECK-LABEL: define internal double @maybe_overwritten.fwd(
; CHECK:         %v = load double, ptr %p
; CHECK:         store double %v, ptr

; A store that runs before the load cannot change what it read.
define double @written_before(ptr %x, ptr %y) {
  store double 0.0, ptr %y
  %p = getelementptr inbounds double, ptr %x, i64 3
  %v = load double, ptr %p
  %m = fmul double %v, %v
  ret double %m
}
; CHECK-LABEL: define internal double @written_before.fwd(
; CHECK:         %v = load double, ptr %p
; CHECK-NOT:     store double %v

; Also called by a differentiated function: its f.rev runs after the
; caller's later code, which writes x, so its loads are taped.
define double @called_too(ptr %x) {
  %p = getelementptr inbounds double, ptr %x, i64 3
  %v = load double, ptr %p
  %m = fmul double %v, %v
  ret double %m
}
define double @caller(ptr %x) {
  %r = call double @called_too(ptr %x)
  %p = getelementptr inbounds double, ptr %x, i64 3
  store double 1.0, ptr %p
  %w = load double, ptr %p
  %s = fmul double %r, %w
  ret double %s
}
; CHECK-LABEL: define internal double @called_too.fwd(
; CHECK:         %v = load double, ptr %p
; CHECK:         store double %v, ptr

define void @main(ptr %x, ptr %dx, ptr %y, ptr %dy) {
  call double (ptr, ...) @__ad_gradient(ptr @square, ptr %x, ptr %dx)
  call double (ptr, ...) @__ad_gradient(ptr @maybe_overwritten, ptr %x, ptr %dx, ptr %y, ptr %dy)
  call double (ptr, ...) @__ad_gradient(ptr @written_before, ptr %x, ptr %dx, ptr %y, ptr %dy)
  call double (ptr, ...) @__ad_gradient(ptr @called_too, ptr %x, ptr %dx)
  call double (ptr, ...) @__ad_gradient(ptr @caller, ptr %x, ptr %dx)
  ret void
}
