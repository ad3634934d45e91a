; ad-transpose alone on a hand-written f.lin: fpext and fptrunc.
;   f.lin(dx) = (float)(k * (double)dx), k read from the tape
; The transpose of an fptrunc is an fpext of the cotangent and the other way
; round: ct_dx = (float)((double)ct * k).
; RUN: %opt -passes=ad-transpose,ad-verify %s -S | FileCheck %s

%f.tape = type { double }
declare float @f(float)

define internal float @f.lin(ptr %tape, float %dx) #0 {
entry:
  %k.slot = getelementptr inbounds %f.tape, ptr %tape, i32 0, i32 0
  %k = load double, ptr %k.slot, !ad.static !0
  %wide = fpext float %dx to double, !ad.linear !0
  %m = fmul double %k, %wide, !ad.linear !0
  %r = fptrunc double %m to float, !ad.linear !0
  ret float %r
}

attributes #0 = { "ad-activity"="a" "ad-kind"="lin" "ad-primal"="f" }
!0 = !{}

; CHECK-LABEL: define internal float @f.rev(
; CHECK-SAME: ptr [[TAPE:%.*]], float [[CT:%.*]]) #{{[0-9]+}} {
; CHECK-NEXT:  seed:
; CHECK-NEXT:    br label %entry
; CHECK:       entry:
; CHECK-NEXT:    [[TMP0:%.*]] = fpext float [[CT]] to double
; CHECK-NEXT:    [[K:%.*]] = load double, ptr [[TAPE]], align 8
; CHECK-NEXT:    [[TMP1:%.*]] = fmul double [[TMP0]], [[K]]
; CHECK-NEXT:    [[TMP2:%.*]] = fptrunc double [[TMP1]] to float
; CHECK-NEXT:    [[TMP3:%.*]] = fadd float [[TMP2]], 0.000000e+00
; CHECK-NEXT:    ret float [[TMP3]]
