; ad-transpose alone on a hand-written f.lin: loads and stores of shadow
; memory.
;   dv[2] = dv[0] + k dv[1];  dv[0] = 0   (dv read from the tape)
; A linear load transposes to *p += ct, a linear store to ct_v += *p; *p = 0.
; Within the block the cells' cotangents stay SSA values and each cell is
; written once: dv[0] = old dv[2], dv[1] += k old dv[2], dv[2] = 0.
; RUN: %opt -passes=ad-transpose,ad-verify %s -S | FileCheck %s

%f.tape = type { ptr, double }
declare void @f(ptr)

define internal void @f.lin(ptr %tape) #0 {
entry:
  %dv.slot = getelementptr inbounds %f.tape, ptr %tape, i32 0, i32 0
  %dv = load ptr, ptr %dv.slot, !ad.static !0
  %k.slot = getelementptr inbounds %f.tape, ptr %tape, i32 0, i32 1
  %k = load double, ptr %k.slot, !ad.static !0
  %p1.shadow = getelementptr inbounds double, ptr %dv, i64 1
  %p2.shadow = getelementptr inbounds double, ptr %dv, i64 2
  %a.d = load double, ptr %dv, !ad.linear !0
  %b.d = load double, ptr %p1.shadow, !ad.linear !0
  %m.d = fmul double %k, %b.d, !ad.linear !0
  %s.d = fadd double %a.d, %m.d, !ad.linear !0
  store double %s.d, ptr %p2.shadow, !ad.linear !0
  store double 0.0, ptr %dv, !ad.linear !0
  ret void
}

attributes #0 = { "ad-activity"="d" "ad-kind"="lin" "ad-primal"="f" }
!0 = !{}

; CHECK-LABEL: define internal void @f.rev(
; CHECK-SAME: ptr [[TAPE:%.*]]) #{{[0-9]+}} {
; CHECK-NEXT:  seed:
; CHECK-NEXT:    br label %entry
; CHECK:       entry:
; CHECK-NEXT:    [[DV:%.*]] = load ptr, ptr [[TAPE]], align 8
; CHECK-NEXT:    [[P2_SHADOW:%.*]] = getelementptr inbounds{{( nuw)?}} double, ptr [[DV]], i64 2
; CHECK-NEXT:    [[TMP0:%.*]] = load double, ptr [[P2_SHADOW]], align 8
; CHECK-NEXT:    [[K_SLOT:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr [[TAPE]], i32 0, i32 1
; CHECK-NEXT:    [[K:%.*]] = load double, ptr [[K_SLOT]], align 8
; CHECK-NEXT:    [[TMP1:%.*]] = fmul double [[TMP0]], [[K]]
; CHECK-NEXT:    [[P1_SHADOW:%.*]] = getelementptr inbounds{{( nuw)?}} double, ptr [[DV]], i64 1
; CHECK-NEXT:    store double [[TMP0]], ptr [[DV]], align 8
; CHECK-NEXT:    [[TMP2:%.*]] = load double, ptr [[P1_SHADOW]], align 8
; CHECK-NEXT:    [[TMP3:%.*]] = fadd double [[TMP2]], [[TMP1]]
; CHECK-NEXT:    store double [[TMP3]], ptr [[P1_SHADOW]], align 8
; CHECK-NEXT:    store double 0.000000e+00, ptr [[P2_SHADOW]], align 8
; CHECK-NEXT:    ret void
