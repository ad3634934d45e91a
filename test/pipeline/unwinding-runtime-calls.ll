; Which library functions may unwind (ExplicitUnwinding.cpp). TargetLibrary-
; Info knows some C++ runtime functions by names that are not mangled:
; __cxa_throw, which always unwinds, and __size_returning_new, which throws
; std::bad_alloc. A call of either inside g leaves g by its exceptional exit:
; g.fwd invokes it, and its cleanup resumes. A function of the C library
; (exp), declared without nounwind, does not throw: h.fwd calls it and has
; no landing pad.
; RUN: %opt -passes=ad,verify %s -S | FileCheck %s --implicit-check-not=@ad.unwound --implicit-check-not=@ad.landing_pad --implicit-check-not=@ad.resume_if

target triple = "x86_64-unknown-linux-gnu"

declare ptr @__cxa_allocate_exception(i64) nounwind
declare void @__cxa_throw(ptr, ptr, ptr)
declare { ptr, i64 } @__size_returning_new(i64)
declare double @exp(double)
declare double @__ad_gradient(ptr, ...)

@typeinfo = external constant ptr

define double @g(double %x, i64 %n) {
entry:
  %big = fcmp ogt double %x, 3.0
  br i1 %big, label %throw, label %ok
throw:
  %e = call ptr @__cxa_allocate_exception(i64 4)
  call void @__cxa_throw(ptr %e, ptr @typeinfo, ptr null)
  unreachable
ok:
  %mem = call { ptr, i64 } @__size_returning_new(i64 %n)
  %y = fmul double %x, %x
  ret double %y
}

define double @h(double %x) {
  %e = call double @exp(double %x)
  %y = fmul double %e, %x
  ret double %y
}

; CHECK-LABEL: define double @request(
; CHECK: call void @g.fwd.guarded(
define double @request(double %x, i64 %n) {
  %d = call double (ptr, ...) @__ad_gradient(ptr @g, double %x, i64 %n)
  ret double %d
}

; CHECK-LABEL: define double @request_c_library(
; CHECK-NOT: guarded
; CHECK: call double @h.fwd(
; CHECK: ret double
define double @request_c_library(double %x) {
  %d = call double (ptr, ...) @__ad_gradient(ptr @h, double %x)
  ret double %d
}

; CHECK-LABEL: define internal double @g.fwd(
; CHECK-DAG: invoke void @__cxa_throw(
; CHECK-DAG: invoke { ptr, i64 } @__size_returning_new(
; CHECK: landingpad { ptr, i32 }
; CHECK-NEXT: cleanup
; CHECK: resume { ptr, i32 }

; CHECK-LABEL: define internal double @h.fwd(
; CHECK-NOT: invoke
; CHECK-NOT: landingpad
; CHECK: call double @exp(
; CHECK-NOT: landingpad
; CHECK: ret double
