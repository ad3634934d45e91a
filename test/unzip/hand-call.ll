; ad-unzip alone on a hand-written f.jvp that calls g.jvp.
;   f(x, y) = g(x) * exp(y), g(v) = v * v, both arguments active
; The call of g.jvp splits into g.fwd in f.fwd and g.lin in f.lin; g's tape
; is the first field of f's, which g.fwd fills and g.lin reads. g.lin
; recomputes 2 v from the taped v rather than taping the product too.
; RUN: %opt -passes=ad-unzip,ad-verify %s -S | FileCheck %s

declare double @f(double, double)
declare double @g(double)
declare double @llvm.exp.f64(double)

define internal { double, double } @f.jvp(double %x, double %y, double %dx, double %dy) #0 {
entry:
  %gx.pair = call { double, double } @g.jvp(double %x, double %dx)
  %gx = extractvalue { double, double } %gx.pair, 0
  %gx.d = extractvalue { double, double } %gx.pair, 1, !ad.linear !0
  %e = call double @llvm.exp.f64(double %y)
  %e.d = fmul double %e, %dy, !ad.linear !0
  %r = fmul double %gx, %e
  %r.d1 = fmul double %e, %gx.d, !ad.linear !0
  %r.d2 = fmul double %gx, %e.d, !ad.linear !0
  %r.d = fadd double %r.d1, %r.d2, !ad.linear !0
  %ret0 = insertvalue { double, double } poison, double %r, 0
  %ret = insertvalue { double, double } %ret0, double %r.d, 1, !ad.linear !0
  ret { double, double } %ret
}

define internal { double, double } @g.jvp(double %v, double %dv) #1 {
entry:
  %m = fmul double %v, %v
  %twice.v = fmul double 2.0, %v
  %m.d = fmul double %twice.v, %dv, !ad.linear !0
  %ret0 = insertvalue { double, double } poison, double %m, 0
  %ret = insertvalue { double, double } %ret0, double %m.d, 1, !ad.linear !0
  ret { double, double } %ret
}

attributes #0 = { "ad-activity"="aa" "ad-kind"="jvp" "ad-primal"="f" }
attributes #1 = { "ad-activity"="a" "ad-kind"="jvp" "ad-primal"="g" }
!0 = !{}

; CHECK: %f.tape = type { %g.tape, double, double }
; CHECK: %g.tape = type { double }
; CHECK-LABEL: define internal double @f.fwd(
; CHECK-SAME: double [[X:%.*]], double [[Y:%.*]], ptr noalias [[TAPE:%.*]]) #{{[0-9]+}} {
; CHECK-NEXT:  entry:
; CHECK-NEXT:    [[TMP0:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr [[TAPE]], i32 0, i32 0
; CHECK-NEXT:    [[TMP1:%.*]] = call double @g.fwd(double [[X]], ptr [[TMP0]])
; CHECK-NEXT:    [[TMP2:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr [[TAPE]], i32 0, i32 2
; CHECK-NEXT:    store double [[TMP1]], ptr [[TMP2]], align 8
; CHECK-NEXT:    [[E:%.*]] = call double @llvm.exp.f64(double [[Y]])
; CHECK-NEXT:    [[TMP3:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr [[TAPE]], i32 0, i32 1
; CHECK-NEXT:    store double [[E]], ptr [[TMP3]], align 8
; CHECK-NEXT:    [[R:%.*]] = fmul double [[TMP1]], [[E]]
; CHECK-NEXT:    ret double [[R]]
;
; CHECK-LABEL: define internal double @f.lin(
; CHECK-SAME: ptr [[TAPE:%.*]], double [[DX:%.*]], double [[DY:%.*]]) #{{[0-9]+}} {
; CHECK-NEXT:  entry:
; CHECK-NEXT:    [[TMP0:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr [[TAPE]], i32 0, i32 0
; CHECK-NEXT:    [[TMP1:%.*]] = call double @g.lin(ptr [[TMP0]], double [[DX]]), !ad.linear !{{[0-9]+}}
; CHECK-NEXT:    [[TMP2:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr [[TAPE]], i32 0, i32 1
; CHECK-NEXT:    [[E:%.*]] = load double, ptr [[TMP2]], align 8, !ad.static !{{[0-9]+}}
; CHECK-NEXT:    [[E_D:%.*]] = fmul double [[E]], [[DY]], !ad.linear !{{[0-9]+}}
; CHECK-NEXT:    [[R_D1:%.*]] = fmul double [[E]], [[TMP1]], !ad.linear !{{[0-9]+}}
; CHECK-NEXT:    [[TMP3:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr [[TAPE]], i32 0, i32 2
; CHECK-NEXT:    [[GX:%.*]] = load double, ptr [[TMP3]], align 8, !ad.static !{{[0-9]+}}
; CHECK-NEXT:    [[R_D2:%.*]] = fmul double [[GX]], [[E_D]], !ad.linear !{{[0-9]+}}
; CHECK-NEXT:    [[R_D:%.*]] = fadd double [[R_D1]], [[R_D2]], !ad.linear !{{[0-9]+}}
; CHECK-NEXT:    ret double [[R_D]]
;
; CHECK-LABEL: define internal double @g.fwd(
; CHECK-SAME: double [[V:%.*]], ptr noalias [[TAPE:%.*]]) #{{[0-9]+}} {
; CHECK-NEXT:  entry:
; CHECK-NEXT:    [[TMP0:%.*]] = getelementptr inbounds{{( nuw)?}} %g.tape, ptr [[TAPE]], i32 0, i32 0
; CHECK-NEXT:    store double [[V]], ptr [[TMP0]], align 8
; CHECK-NEXT:    [[M:%.*]] = fmul double [[V]], [[V]]
; CHECK-NEXT:    ret double [[M]]
;
; CHECK-LABEL: define internal double @g.lin(
; CHECK-SAME: ptr [[TAPE:%.*]], double [[DV:%.*]]) #{{[0-9]+}} {
; CHECK-NEXT:  entry:
; CHECK-NEXT:    [[TMP0:%.*]] = getelementptr inbounds{{( nuw)?}} %g.tape, ptr [[TAPE]], i32 0, i32 0
; CHECK-NEXT:    [[V:%.*]] = load double, ptr [[TMP0]], align 8, !ad.static !{{[0-9]+}}
; CHECK-NEXT:    [[TWICE_V:%.*]] = fmul double 2.000000e+00, [[V]]
; CHECK-NEXT:    [[M_D:%.*]] = fmul double [[TWICE_V]], [[DV]], !ad.linear !{{[0-9]+}}
; CHECK-NEXT:    ret double [[M_D]]
