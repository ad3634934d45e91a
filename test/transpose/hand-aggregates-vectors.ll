; ad-transpose alone on a hand-written f.lin: shufflevector, insertelement,
; extractelement, insertvalue and extractvalue.
;   f.lin(du, dw, dp) = { du[0], <dp.1, dw[0]> }
; Each lane and field's cotangent goes back to where it was read:
; ct_du = <ct.0, 0>, ct_dw = <ct.1[1], 0>, ct_dp = { 0, ct.1[0] }. Lane 1 of
; du reaches the result only through lane 0 of the shuffle, which the
; insertelement overwrites, so it receives nothing.
; RUN: %opt -passes=ad-transpose,ad-verify %s -S | FileCheck %s

declare { double, <2 x double> } @f(<2 x double>, <2 x double>, { double, double })

define internal { double, <2 x double> } @f.lin(ptr %tape, <2 x double> %du, <2 x double> %dw, { double, double } %dp) #0 {
entry:
  %sh = shufflevector <2 x double> %du, <2 x double> %dw, <2 x i32> <i32 1, i32 2>, !ad.linear !0
  %p1 = extractvalue { double, double } %dp, 1, !ad.linear !0
  %v = insertelement <2 x double> %sh, double %p1, i32 0, !ad.linear !0
  %u0 = extractelement <2 x double> %du, i32 0, !ad.linear !0
  %pair = insertvalue { double, <2 x double> } zeroinitializer, double %u0, 0, !ad.linear !0
  %r = insertvalue { double, <2 x double> } %pair, <2 x double> %v, 1, !ad.linear !0
  ret { double, <2 x double> } %r
}

attributes #0 = { "ad-activity"="aaa" "ad-kind"="lin" "ad-primal"="f" }
!0 = !{}

; CHECK-LABEL: define internal { <2 x double>, <2 x double>, { double, double } } @f.rev(
; CHECK-SAME: ptr [[TAPE:%.*]], { double, <2 x double> } [[CT:%.*]]) #{{[0-9]+}} {
; CHECK-NEXT:  seed:
; CHECK-NEXT:    [[TMP0:%.*]] = extractvalue { double, <2 x double> } [[CT]], 0
; CHECK-NEXT:    [[TMP1:%.*]] = extractvalue { double, <2 x double> } [[CT]], 1
; CHECK-NEXT:    br label %entry
; CHECK:       entry:
; CHECK-NEXT:    [[TMP2:%.*]] = insertelement <2 x double> zeroinitializer, double [[TMP0]], i32 0
; CHECK-NEXT:    [[TMP3:%.*]] = insertelement <2 x double> [[TMP1]], double 0.000000e+00, i32 0
; CHECK-NEXT:    [[TMP4:%.*]] = extractelement <2 x double> [[TMP1]], i32 0
; CHECK-NEXT:    [[TMP5:%.*]] = insertvalue { double, double } zeroinitializer, double [[TMP4]], 1
; CHECK-NEXT:    [[TMP6:%.*]] = extractvalue { double, double } [[TMP5]], 0
; CHECK-NEXT:    [[TMP7:%.*]] = insertvalue { double, double } { double -0.000000e+00, double -0.000000e+00 }, double [[TMP6]], 0
; CHECK-NEXT:    [[TMP8:%.*]] = insertvalue { double, double } [[TMP7]], double [[TMP4]], 1
; CHECK-NEXT:    [[TMP9:%.*]] = extractelement <2 x double> [[TMP3]], i64 1
; CHECK-NEXT:    [[TMP10:%.*]] = fadd double 0.000000e+00, [[TMP9]]
; CHECK-NEXT:    [[TMP11:%.*]] = insertelement <2 x double> zeroinitializer, double [[TMP10]], i64 0
; CHECK-NEXT:    [[TMP12:%.*]] = fadd <2 x double> [[TMP2]], zeroinitializer
; CHECK-NEXT:    [[TMP13:%.*]] = fadd double [[TMP6]], 0.000000e+00
; CHECK-NEXT:    [[TMP14:%.*]] = insertvalue { double, double } [[TMP8]], double [[TMP13]], 0
; CHECK-NEXT:    [[TMP15:%.*]] = fadd double [[TMP4]], 0.000000e+00
; CHECK-NEXT:    [[TMP16:%.*]] = insertvalue { double, double } [[TMP14]], double [[TMP15]], 1
; CHECK-NEXT:    [[MRV:%.*]] = insertvalue { <2 x double>, <2 x double>, { double, double } } poison, <2 x double> [[TMP12]], 0
; CHECK-NEXT:    [[MRV5:%.*]] = insertvalue { <2 x double>, <2 x double>, { double, double } } [[MRV]], <2 x double> [[TMP11]], 1
; CHECK-NEXT:    [[MRV6:%.*]] = insertvalue { <2 x double>, <2 x double>, { double, double } } [[MRV5]], { double, double } [[TMP16]], 2
; CHECK-NEXT:    ret { <2 x double>, <2 x double>, { double, double } } [[MRV6]]
