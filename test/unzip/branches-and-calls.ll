; Unzip of a function with a branch, a merge and a call of a user function:
;  * f.fwd tapes the branch condition, the residuals read by linear code,
;    and at the merge block which predecessor it came from (an i8 index);
;  * the callee's tape is a field of the caller's tape, filled by sq.fwd;
;  * f.lin keeps the CFG, branches on the taped condition, calls sq.lin, and
;    reads residuals from the tape in the block that uses them.
; RUN: %opt -passes=ad-linearize,ad-unzip,ad-verify %s -S | FileCheck %s

; CHECK-DAG: %sq.tape = type { double }
; CHECK-DAG: %f.tape = type { i1, %sq.tape, double, double, double, double, double, i8 }

; CHECK-LABEL: define internal double @f.fwd(double %x, double %y, ptr noalias %tape)
; CHECK:       entry:
; CHECK:         %c = fcmp ogt double %x, %y
; CHECK-NEXT:    [[CSLOT:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr %tape, i32 0, i32 0
; CHECK-NEXT:    store i1 %c, ptr [[CSLOT]]
; CHECK-NEXT:    br i1 %c, label %then, label %else
; CHECK:       then:
; CHECK-NEXT:    [[SQTAPE:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr %tape, i32 0, i32 1
; CHECK-NEXT:    [[A:%.*]] = call double @sq.fwd(double %x, ptr [[SQTAPE]])
; CHECK:         store double [[A]]
; CHECK:         %a2 = fmul double [[A]], %y
; CHECK:       join:
; CHECK-NEXT:    %r = phi double [ %a2, %then ], [ %b, %else ]
; CHECK-NEXT:    %pred.idx = phi i8 [ 1, %else ], [ 0, %then ]
; CHECK-NEXT:    [[PSLOT:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr %tape, i32 0, i32 7
; CHECK-NEXT:    store i8 %pred.idx, ptr [[PSLOT]]
; CHECK-NEXT:    ret double %r

; CHECK-LABEL: define internal double @f.lin(ptr %tape, double %dx, double %dy)
; CHECK:       entry:
; CHECK-NEXT:    [[CSLOT:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr %tape, i32 0, i32 0
; CHECK-NEXT:    %c = load i1, ptr [[CSLOT]]
; CHECK-NEXT:    br i1 %c, label %then, label %else
; CHECK:       then:
; CHECK-NEXT:    [[SQTAPE:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr %tape, i32 0, i32 1
; CHECK-NEXT:    [[DA:%.*]] = call double @sq.lin(ptr [[SQTAPE]], double %dx), !ad.linear
; CHECK-NOT:   call
; CHECK:       join:
; CHECK-NEXT:    %r.d = phi double [ {{%.*}}, %then ], [ {{%.*}}, %else ], !ad.linear
; CHECK:         %pred.idx = load i8, ptr {{%.*}}, !ad.pred
; CHECK-NEXT:    ret double %r.d

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
