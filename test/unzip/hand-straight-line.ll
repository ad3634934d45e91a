; ad-unzip alone on a hand-written f.jvp without control flow.
;   f(v, x) = sin(x) * v[1] + v[2], v with a shadow dv, x active
; %f.tape holds what linear code reads: the shadow pointer dv and the
; residuals cos(x), v[1] and sin(x). v[2] is read only by primal code and is
; not taped; the shadow addresses dv+1 and dv+2 are recomputed in f.lin from
; the taped dv. f.lin keeps only the linear instructions.
; All that ad-unzip reads: a function with "ad-kind"="jvp", "ad-primal" naming
; a function of the module (a declaration is enough) and "ad-activity", whose
; linear instructions carry !ad.linear.
; RUN: %opt -passes=ad-unzip,ad-verify %s -S | FileCheck %s

declare double @f(ptr, double)
declare double @llvm.sin.f64(double)
declare double @llvm.cos.f64(double)

define internal { double, double } @f.jvp(ptr %v, double %x, ptr %dv, double %dx) #0 {
entry:
  %p1 = getelementptr inbounds double, ptr %v, i64 1
  %p1.shadow = getelementptr inbounds double, ptr %dv, i64 1
  %p2 = getelementptr inbounds double, ptr %v, i64 2
  %p2.shadow = getelementptr inbounds double, ptr %dv, i64 2
  %a = load double, ptr %p1
  %a.d = load double, ptr %p1.shadow, !ad.linear !0
  %b = load double, ptr %p2
  %b.d = load double, ptr %p2.shadow, !ad.linear !0
  %s = call double @llvm.sin.f64(double %x)
  %cos = call double @llvm.cos.f64(double %x)
  %s.d = fmul double %cos, %dx, !ad.linear !0
  %m = fmul double %s, %a
  %m.d1 = fmul double %a, %s.d, !ad.linear !0
  %m.d2 = fmul double %s, %a.d, !ad.linear !0
  %m.d = fadd double %m.d1, %m.d2, !ad.linear !0
  %r = fadd double %m, %b
  %r.d = fadd double %m.d, %b.d, !ad.linear !0
  %ret0 = insertvalue { double, double } poison, double %r, 0
  %ret = insertvalue { double, double } %ret0, double %r.d, 1, !ad.linear !0
  ret { double, double } %ret
}

attributes #0 = { "ad-activity"="da" "ad-kind"="jvp" "ad-primal"="f" }
!0 = !{}

; CHECK: %f.tape = type { ptr, double, double, double }
; CHECK-LABEL: define internal double @f.fwd(
; CHECK-SAME: ptr [[V:%.*]], double [[X:%.*]], ptr [[DV:%.*]], ptr noalias [[TAPE:%.*]]) #{{[0-9]+}} {
; CHECK-NEXT:  entry:
; CHECK-NEXT:    [[TMP0:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr [[TAPE]], i32 0, i32 0
; CHECK-NEXT:    store ptr [[DV]], ptr [[TMP0]], align 8
; CHECK-NEXT:    [[P1:%.*]] = getelementptr inbounds{{( nuw)?}} double, ptr [[V]], i64 1
; CHECK-NEXT:    [[P2:%.*]] = getelementptr inbounds{{( nuw)?}} double, ptr [[V]], i64 2
; CHECK-NEXT:    [[A:%.*]] = load double, ptr [[P1]], align 8
; CHECK-NEXT:    [[TMP1:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr [[TAPE]], i32 0, i32 2
; CHECK-NEXT:    store double [[A]], ptr [[TMP1]], align 8
; CHECK-NEXT:    [[B:%.*]] = load double, ptr [[P2]], align 8
; CHECK-NEXT:    [[S:%.*]] = call double @llvm.sin.f64(double [[X]])
; CHECK-NEXT:    [[TMP2:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr [[TAPE]], i32 0, i32 3
; CHECK-NEXT:    store double [[S]], ptr [[TMP2]], align 8
; CHECK-NEXT:    [[COS:%.*]] = call double @llvm.cos.f64(double [[X]])
; CHECK-NEXT:    [[TMP3:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr [[TAPE]], i32 0, i32 1
; CHECK-NEXT:    store double [[COS]], ptr [[TMP3]], align 8
; CHECK-NEXT:    [[M:%.*]] = fmul double [[S]], [[A]]
; CHECK-NEXT:    [[R:%.*]] = fadd double [[M]], [[B]]
; CHECK-NEXT:    ret double [[R]]
;
; CHECK-LABEL: define internal double @f.lin(
; CHECK-SAME: ptr [[TAPE:%.*]], double [[DX:%.*]]) #{{[0-9]+}} {
; CHECK-NEXT:  entry:
; CHECK-NEXT:    [[TMP0:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr [[TAPE]], i32 0, i32 0
; CHECK-NEXT:    [[DV:%.*]] = load ptr, ptr [[TMP0]], align 8, !ad.static !{{[0-9]+}}
; CHECK-NEXT:    [[P1_SHADOW:%.*]] = getelementptr inbounds{{( nuw)?}} double, ptr [[DV]], i64 1
; CHECK-NEXT:    [[A_D:%.*]] = load double, ptr [[P1_SHADOW]], align 8, !ad.linear !{{[0-9]+}}
; CHECK-NEXT:    [[P2_SHADOW:%.*]] = getelementptr inbounds{{( nuw)?}} double, ptr [[DV]], i64 2
; CHECK-NEXT:    [[B_D:%.*]] = load double, ptr [[P2_SHADOW]], align 8, !ad.linear !{{[0-9]+}}
; CHECK-NEXT:    [[TMP1:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr [[TAPE]], i32 0, i32 1
; CHECK-NEXT:    [[COS:%.*]] = load double, ptr [[TMP1]], align 8, !ad.static !{{[0-9]+}}
; CHECK-NEXT:    [[S_D:%.*]] = fmul double [[COS]], [[DX]], !ad.linear !{{[0-9]+}}
; CHECK-NEXT:    [[TMP2:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr [[TAPE]], i32 0, i32 2
; CHECK-NEXT:    [[A:%.*]] = load double, ptr [[TMP2]], align 8, !ad.static !{{[0-9]+}}
; CHECK-NEXT:    [[M_D1:%.*]] = fmul double [[A]], [[S_D]], !ad.linear !{{[0-9]+}}
; CHECK-NEXT:    [[TMP3:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr [[TAPE]], i32 0, i32 3
; CHECK-NEXT:    [[S:%.*]] = load double, ptr [[TMP3]], align 8, !ad.static !{{[0-9]+}}
; CHECK-NEXT:    [[M_D2:%.*]] = fmul double [[S]], [[A_D]], !ad.linear !{{[0-9]+}}
; CHECK-NEXT:    [[M_D:%.*]] = fadd double [[M_D1]], [[M_D2]], !ad.linear !{{[0-9]+}}
; CHECK-NEXT:    [[R_D:%.*]] = fadd double [[M_D]], [[B_D]], !ad.linear !{{[0-9]+}}
; CHECK-NEXT:    ret double [[R_D]]
