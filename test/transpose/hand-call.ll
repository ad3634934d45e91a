; ad-transpose alone on a hand-written f.lin that calls g.lin.
;   f.lin(dx, dy) = e * g.lin(dx) + dy, g.lin(dv) = 2 v dv
; The call becomes a call of g.rev with g's part of the tape (the first
; field, at offset 0) and the call's cotangent; g.rev's result is the
; cotangent of dx.
; RUN: %opt -passes=ad-transpose,ad-verify %s -S | FileCheck %s

%f.tape = type { %g.tape, double }
%g.tape = type { double }
declare double @f(double, double)
declare double @g(double)

define internal double @f.lin(ptr %tape, double %dx, double %dy) #0 {
entry:
  %g.tape = getelementptr inbounds %f.tape, ptr %tape, i32 0, i32 0
  %gx.d = call double @g.lin(ptr %g.tape, double %dx), !ad.linear !0
  %e.slot = getelementptr inbounds %f.tape, ptr %tape, i32 0, i32 1
  %e = load double, ptr %e.slot, !ad.static !0
  %m.d = fmul double %e, %gx.d, !ad.linear !0
  %r = fadd double %m.d, %dy, !ad.linear !0
  ret double %r
}

define internal double @g.lin(ptr %tape, double %dv) #1 {
entry:
  %v.slot = getelementptr inbounds %g.tape, ptr %tape, i32 0, i32 0
  %v = load double, ptr %v.slot, !ad.static !0
  %twice.v = fmul double 2.0, %v
  %m.d = fmul double %twice.v, %dv, !ad.linear !0
  ret double %m.d
}

attributes #0 = { "ad-activity"="aa" "ad-kind"="lin" "ad-primal"="f" }
attributes #1 = { "ad-activity"="a" "ad-kind"="lin" "ad-primal"="g" }
!0 = !{}

; CHECK-LABEL: define internal { double, double } @f.rev(
; CHECK-SAME: ptr [[TAPE:%.*]], double [[CT:%.*]]) #{{[0-9]+}} {
; CHECK-NEXT:  seed:
; CHECK-NEXT:    br label %entry
; CHECK:       entry:
; CHECK-NEXT:    [[E_SLOT:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr [[TAPE]], i32 0, i32 1
; CHECK-NEXT:    [[E:%.*]] = load double, ptr [[E_SLOT]], align 8
; CHECK-NEXT:    [[TMP0:%.*]] = fmul double [[CT]], [[E]]
; CHECK-NEXT:    [[TMP1:%.*]] = call double @g.rev(ptr [[TAPE]], double [[TMP0]])
; CHECK-NEXT:    [[TMP2:%.*]] = fadd double [[TMP1]], 0.000000e+00
; CHECK-NEXT:    [[TMP3:%.*]] = fadd double [[CT]], 0.000000e+00
; CHECK-NEXT:    [[MRV:%.*]] = insertvalue { double, double } poison, double [[TMP2]], 0
; CHECK-NEXT:    [[MRV4:%.*]] = insertvalue { double, double } [[MRV]], double [[TMP3]], 1
; CHECK-NEXT:    ret { double, double } [[MRV4]]
;
; CHECK-LABEL: define internal double @g.rev(
; CHECK-SAME: ptr [[TAPE:%.*]], double [[CT:%.*]]) #{{[0-9]+}} {
; CHECK-NEXT:  seed:
; CHECK-NEXT:    br label %entry
; CHECK:       entry:
; CHECK-NEXT:    [[V:%.*]] = load double, ptr [[TAPE]], align 8
; CHECK-NEXT:    [[TWICE_V:%.*]] = fmul double 2.000000e+00, [[V]]
; CHECK-NEXT:    [[TMP0:%.*]] = fmul double [[CT]], [[TWICE_V]]
; CHECK-NEXT:    [[TMP1:%.*]] = fadd double [[TMP0]], 0.000000e+00
; CHECK-NEXT:    ret double [[TMP1]]
