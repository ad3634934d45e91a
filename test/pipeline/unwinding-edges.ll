; Exceptions as ordinary control flow (ExplicitUnwinding.h): f invokes g,
; which calls a function that may throw, and catches. The derived code
; that runs has real invokes again: f.fwd invokes g.fwd and records on the
; tape which way the call went; g.fwd's call gets a cleanup that resumes
; after the exit, where its reverse starts. A gradient of f calls f.fwd
; through f.fwd.guarded, which runs f.rev with a zero seed when f.fwd
; unwinds; inside a try, that call unwinds to the request's handler. A
; nounwind function gets none of it (h).
; RUN: %opt -passes=ad,verify %s -S | FileCheck %s --implicit-check-not=@ad.unwound --implicit-check-not=@ad.landing_pad --implicit-check-not=@ad.resume_if

declare void @may_throw()
declare ptr @__cxa_begin_catch(ptr)
declare void @__cxa_end_catch()
declare i32 @__gxx_personality_v0(...)
declare double @__ad_gradient(ptr, ...)

define double @g(double %x) {
  call void @may_throw()
  %y = fmul double %x, %x
  ret double %y
}

define double @f(double %x) personality ptr @__gxx_personality_v0 {
entry:
  %r = invoke double @g(double %x) to label %ok unwind label %lpad
ok:
  ret double %r
lpad:
  %lp = landingpad { ptr, i32 } catch ptr null
  %e = extractvalue { ptr, i32 } %lp, 0
  %c = call ptr @__cxa_begin_catch(ptr %e)
  call void @__cxa_end_catch()
  ret double %x
}

; CHECK-LABEL: define double @request(
; CHECK: call void @f.fwd.guarded(double %x, ptr %ad.tape)
; CHECK-NEXT: call double @f.rev(ptr %ad.tape, double 1.0
define double @request(double %x) {
  %d = call double (ptr, ...) @__ad_gradient(ptr @f, double %x)
  ret double %d
}

; CHECK-LABEL: define double @request_in_try(
; CHECK: invoke void @f.fwd.guarded.1(double %x, ptr %ad.tape)
; CHECK-NEXT: to label %{{.*}} unwind label %lpad
define double @request_in_try(double %x) personality ptr @__gxx_personality_v0 {
entry:
  %d = invoke double (ptr, ...) @__ad_gradient(ptr @f, double %x) to label %ok unwind label %lpad
ok:
  ret double %d
lpad:
  %lp = landingpad { ptr, i32 } catch ptr null
  ret double 0.0
}

define double @h(double %x) nounwind {
  call void @may_throw()
  %y = fmul double %x, %x
  ret double %y
}

; CHECK-LABEL: define double @request_nounwind(
; CHECK-NOT: guarded
; CHECK: call double @h.fwd(
; CHECK: ret double
define double @request_nounwind(double %x) {
  %d = call double (ptr, ...) @__ad_gradient(ptr @h, double %x)
  ret double %d
}

; CHECK-LABEL: define internal double @f.fwd(
; CHECK: invoke double @g.fwd(
; CHECK-NEXT: to label %[[NORMAL:.*]] unwind label %[[PAD:.*]]
; CHECK: [[NORMAL]]:
; CHECK: store i1 false
; CHECK: [[PAD]]:
; CHECK-NEXT: landingpad { ptr, i32 }
; CHECK-NEXT: catch ptr null
; CHECK: store i1 true
; CHECK: exit:
; CHECK: br i1 %unwinding, label %resume, label %exit.return
; CHECK: resume { ptr, i32 }

; CHECK-LABEL: define internal double @g.fwd(
; CHECK: invoke void @may_throw()
; CHECK: landingpad { ptr, i32 }
; CHECK-NEXT: cleanup
; CHECK: resume { ptr, i32 }

; CHECK-LABEL: define internal void @f.fwd.guarded(
; CHECK: invoke double @f.fwd(
; CHECK: landingpad { ptr, i32 }
; CHECK-NEXT: cleanup
; CHECK-NEXT: call double @f.rev(ptr %{{.*}}, double 0.0
; CHECK-NEXT: resume

; CHECK-LABEL: define internal double @h.fwd(
; CHECK-NOT: invoke
; CHECK-NOT: landingpad
; CHECK: ret double
