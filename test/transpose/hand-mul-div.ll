; ad-transpose alone on a hand-written f.lin: fmul and fdiv by residuals.
;   f.lin(dx, dy) = (k dx) / m + dy m, k and m read from the tape
; A product passes ct times the residual to its linear operand, on either
; side; a quotient passes ct / m, kept zero where ct is zero (0 / 0 would be
; NaN): ct_dx = k (ct / m), ct_dy = ct m.
; RUN: %opt -passes=ad-transpose,ad-verify %s -S | FileCheck %s

%f.tape = type { double, double }
declare double @f(double, double)

define internal double @f.lin(ptr %tape, double %dx, double %dy) #0 {
entry:
  %k.slot = getelementptr inbounds %f.tape, ptr %tape, i32 0, i32 0
  %k = load double, ptr %k.slot, !ad.static !0
  %m.slot = getelementptr inbounds %f.tape, ptr %tape, i32 0, i32 1
  %m = load double, ptr %m.slot, !ad.static !0
  %a = fmul double %k, %dx, !ad.linear !0
  %b = fmul double %dy, %m, !ad.linear !0
  %q = fdiv double %a, %m, !ad.linear !0
  %r = fadd double %q, %b, !ad.linear !0
  ret double %r
}

attributes #0 = { "ad-activity"="aa" "ad-kind"="lin" "ad-primal"="f" }
!0 = !{}

; CHECK-LABEL: define internal { double, double } @f.rev(
; CHECK-SAME: ptr [[TAPE:%.*]], double [[CT:%.*]]) #{{[0-9]+}} {
; CHECK-NEXT:  seed:
; CHECK-NEXT:    br label %entry
; CHECK:       entry:
; CHECK-NEXT:    [[M_SLOT:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr [[TAPE]], i32 0, i32 1
; CHECK-NEXT:    [[M:%.*]] = load double, ptr [[M_SLOT]], align 8
; CHECK-NEXT:    [[TMP0:%.*]] = fdiv double [[CT]], [[M]]
; CHECK-NEXT:    [[TMP1:%.*]] = fcmp oeq double [[CT]], 0.000000e+00
; CHECK-NEXT:    [[TMP2:%.*]] = select i1 [[TMP1]], double 0.000000e+00, double [[TMP0]]
; CHECK-NEXT:    [[TMP3:%.*]] = fmul double [[CT]], [[M]]
; CHECK-NEXT:    [[K:%.*]] = load double, ptr [[TAPE]], align 8
; CHECK-NEXT:    [[TMP4:%.*]] = fmul double [[TMP2]], [[K]]
; CHECK-NEXT:    [[TMP5:%.*]] = fadd double [[TMP4]], 0.000000e+00
; CHECK-NEXT:    [[TMP6:%.*]] = fadd double [[TMP3]], 0.000000e+00
; CHECK-NEXT:    [[MRV:%.*]] = insertvalue { double, double } poison, double [[TMP5]], 0
; CHECK-NEXT:    [[MRV4:%.*]] = insertvalue { double, double } [[MRV]], double [[TMP6]], 1
; CHECK-NEXT:    ret { double, double } [[MRV4]]
