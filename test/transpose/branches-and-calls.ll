; Transposition of a linear function with a branch and a call:
;  * f.rev starts at f.lin's return block and ends at its entry;
;  * the merge block `join` becomes a branch on the predecessor index that
;    f.fwd recorded; the linear PHI becomes an accumulation per edge;
;  * the call of sq.lin becomes a call of sq.rev with the same nested tape;
;  * the two branches meet again where f.lin began, and f.rev returns the
;    cotangents of dx and dy.
; RUN: %opt -passes=ad-linearize,ad-unzip,ad-transpose %s -S | FileCheck %s --check-prefix=SQ
; RUN: %opt -passes=ad-linearize,ad-unzip,ad-transpose %s -S | FileCheck %s

; sq(v) = v * v: one term 2 (v dv) (Linearize.cpp, mergeSquareTerms).
; SQ-LABEL: define internal double @sq.rev(ptr %tape, double %ct)
; SQ:         [[TWICE:%.*]] = fmul double %ct, 2.000000e+00
; SQ-NEXT:    %v = load double, ptr %tape
; SQ-NEXT:    fmul double [[TWICE]], %v

; CHECK-LABEL: define internal { double, double } @f.rev(ptr %tape, double %ct)
; CHECK:       seed:
; CHECK-NEXT:    br label %join
; CHECK:       join:
; CHECK:         %pred.idx = load i8, ptr {{%.*}}
; CHECK-NEXT:    [[FROMTHEN:%.*]] = icmp eq i8 %pred.idx, 0
; CHECK-NEXT:    br i1 [[FROMTHEN]], label %join.from.then, label %join.from.else
; CHECK:       then:
; CHECK:         [[CTA:%.*]] = fmul double %ct, %y
; CHECK-NEXT:    [[SQTAPE:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr %tape, i32 0, i32 1
; CHECK-NEXT:    [[CTX:%.*]] = call double @sq.rev(ptr [[SQTAPE]], double [[CTA]])
; CHECK:       entry:
; CHECK-DAG:     %dx.ct.0 = phi double [ [[CTX]], %then ], [ {{%.*}}, %else ]
; CHECK-DAG:     %dy.ct.0 = phi double
; CHECK:         ret { double, double }
; CHECK:       join.from.then:
; CHECK-NEXT:    br label %then
; CHECK:       join.from.else:
; CHECK-NEXT:    br label %else
declare double @__ad_gradient(ptr, ...)
declare double @llvm.exp.f64(double)

define internal double @sq(double %v) {
  %m = fmul double %v, %v
  ret double %m
}

define double @f(double %x, double %y) {
entry:
  %c = fcmp ogt double %x, %y
  br i1 %c, label %then, label %else
then:
  %a = call double @sq(double %x)
  %a2 = fmul double %a, %y
  br label %join
else:
  %e = call double @llvm.exp.f64(double %y)
  %b = fdiv double %e, %x
  br label %join
join:
  %r = phi double [ %a2, %then ], [ %b, %else ]
  ret double %r
}

define double @grad(double %x, double %y) {
  %g = call double (ptr, ...) @__ad_gradient(ptr @f, double %x, double %y)
  ret double %g
}
