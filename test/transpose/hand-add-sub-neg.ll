; ad-transpose alone on a hand-written f.lin: fadd, fsub and fneg.
;   f.lin(dx, dy) = -((dx + dy) - dx) - dy = -2 dy
; An fadd passes its cotangent to both operands, an fsub negates it for the
; second, an fneg for its only operand: ct_dx = ct - ct, ct_dy = -ct - ct.
; RUN: %opt -passes=ad-transpose,ad-verify %s -S | FileCheck %s

declare double @f(double, double)

define internal double @f.lin(ptr %tape, double %dx, double %dy) #0 {
entry:
  %sum = fadd double %dx, %dy, !ad.linear !0
  %diff = fsub double %sum, %dx, !ad.linear !0
  %neg = fneg double %diff, !ad.linear !0
  %r = fsub double %neg, %dy, !ad.linear !0
  ret double %r
}

attributes #0 = { "ad-activity"="aa" "ad-kind"="lin" "ad-primal"="f" }
!0 = !{}

; CHECK-LABEL: define internal { double, double } @f.rev(
; CHECK-SAME: ptr [[TAPE:%.*]], double [[CT:%.*]]) #{{[0-9]+}} {
; CHECK-NEXT:  seed:
; CHECK-NEXT:    br label %entry
; CHECK:       entry:
; CHECK-NEXT:    [[TMP0:%.*]] = fsub double -0.000000e+00, [[CT]]
; CHECK-NEXT:    [[TMP1:%.*]] = fsub double -0.000000e+00, [[CT]]
; CHECK-NEXT:    [[TMP2:%.*]] = fadd double [[CT]], [[TMP1]]
; CHECK-NEXT:    [[TMP3:%.*]] = fadd double [[TMP0]], [[TMP1]]
; CHECK-NEXT:    [[TMP4:%.*]] = fadd double [[TMP2]], 0.000000e+00
; CHECK-NEXT:    [[TMP5:%.*]] = fadd double [[TMP3]], 0.000000e+00
; CHECK-NEXT:    [[MRV:%.*]] = insertvalue { double, double } poison, double [[TMP4]], 0
; CHECK-NEXT:    [[MRV4:%.*]] = insertvalue { double, double } [[MRV]], double [[TMP5]], 1
; CHECK-NEXT:    ret { double, double } [[MRV4]]
