; ad-unzip alone on a hand-written f.jvp with a branch and a merge.
;   f(x, y) = x > y ? x * y : y - x, both arguments active
; f.fwd tapes the branch condition and, at the merge, the index of the
; predecessor it came from (0 for then, 1 for else: predecessors in layout
; order). f.lin branches on the taped condition, reads x and y from the tape
; in the block that needs them, and reads the index (!ad.pred) for
; ad-transpose to branch on.
; RUN: %opt -passes=ad-unzip,ad-verify %s -S | FileCheck %s

declare double @f(double, double)

define internal { double, double } @f.jvp(double %x, double %y, double %dx, double %dy) #0 {
entry:
  %c = fcmp ogt double %x, %y
  br i1 %c, label %then, label %else
then:
  %a = fmul double %x, %y
  %a.d1 = fmul double %y, %dx, !ad.linear !0
  %a.d2 = fmul double %x, %dy, !ad.linear !0
  %a.d = fadd double %a.d1, %a.d2, !ad.linear !0
  br label %join
else:
  %b = fsub double %y, %x
  %b.d = fsub double %dy, %dx, !ad.linear !0
  br label %join
join:
  %r = phi double [ %a, %then ], [ %b, %else ]
  %r.d = phi double [ %a.d, %then ], [ %b.d, %else ], !ad.linear !0
  %ret0 = insertvalue { double, double } poison, double %r, 0
  %ret = insertvalue { double, double } %ret0, double %r.d, 1, !ad.linear !0
  ret { double, double } %ret
}

attributes #0 = { "ad-activity"="aa" "ad-kind"="jvp" "ad-primal"="f" }
!0 = !{}

; CHECK: %f.tape = type { i1, double, double, i8 }
; CHECK-LABEL: define internal double @f.fwd(
; CHECK-SAME: double [[X:%.*]], double [[Y:%.*]], ptr noalias [[TAPE:%.*]]) #{{[0-9]+}} {
; CHECK-NEXT:  entry:
; CHECK-NEXT:    [[TMP0:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr [[TAPE]], i32 0, i32 2
; CHECK-NEXT:    store double [[X]], ptr [[TMP0]], align 8
; CHECK-NEXT:    [[TMP1:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr [[TAPE]], i32 0, i32 1
; CHECK-NEXT:    store double [[Y]], ptr [[TMP1]], align 8
; CHECK-NEXT:    [[C:%.*]] = fcmp ogt double [[X]], [[Y]]
; CHECK-NEXT:    [[TMP2:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr [[TAPE]], i32 0, i32 0
; CHECK-NEXT:    store i1 [[C]], ptr [[TMP2]], align 1
; CHECK-NEXT:    br i1 [[C]], label %then, label %else
; CHECK:       then:
; CHECK-NEXT:    [[A:%.*]] = fmul double [[X]], [[Y]]
; CHECK-NEXT:    br label %join
; CHECK:       else:
; CHECK-NEXT:    [[B:%.*]] = fsub double [[Y]], [[X]]
; CHECK-NEXT:    br label %join
; CHECK:       join:
; CHECK-NEXT:    [[R:%.*]] = phi double [ [[A]], %then ], [ [[B]], %else ]
; CHECK-NEXT:    [[PRED_IDX:%.*]] = phi i8 [ 1, %else ], [ 0, %then ]
; CHECK-NEXT:    [[TMP3:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr [[TAPE]], i32 0, i32 3
; CHECK-NEXT:    store i8 [[PRED_IDX]], ptr [[TMP3]], align 1
; CHECK-NEXT:    ret double [[R]]
;
; CHECK-LABEL: define internal double @f.lin(
; CHECK-SAME: ptr [[TAPE:%.*]], double [[DX:%.*]], double [[DY:%.*]]) #{{[0-9]+}} {
; CHECK-NEXT:  entry:
; CHECK-NEXT:    [[TMP0:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr [[TAPE]], i32 0, i32 0
; CHECK-NEXT:    [[C:%.*]] = load i1, ptr [[TMP0]], align 1, !ad.static !{{[0-9]+}}
; CHECK-NEXT:    br i1 [[C]], label %then, label %else
; CHECK:       then:
; CHECK-NEXT:    [[TMP1:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr [[TAPE]], i32 0, i32 1
; CHECK-NEXT:    [[Y:%.*]] = load double, ptr [[TMP1]], align 8, !ad.static !{{[0-9]+}}
; CHECK-NEXT:    [[A_D1:%.*]] = fmul double [[Y]], [[DX]], !ad.linear !{{[0-9]+}}
; CHECK-NEXT:    [[TMP2:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr [[TAPE]], i32 0, i32 2
; CHECK-NEXT:    [[X:%.*]] = load double, ptr [[TMP2]], align 8, !ad.static !{{[0-9]+}}
; CHECK-NEXT:    [[A_D2:%.*]] = fmul double [[X]], [[DY]], !ad.linear !{{[0-9]+}}
; CHECK-NEXT:    [[A_D:%.*]] = fadd double [[A_D1]], [[A_D2]], !ad.linear !{{[0-9]+}}
; CHECK-NEXT:    br label %join
; CHECK:       else:
; CHECK-NEXT:    [[B_D:%.*]] = fsub double [[DY]], [[DX]], !ad.linear !{{[0-9]+}}
; CHECK-NEXT:    br label %join
; CHECK:       join:
; CHECK-NEXT:    [[R_D:%.*]] = phi double [ [[A_D]], %then ], [ [[B_D]], %else ], !ad.linear !{{[0-9]+}}
; CHECK-NEXT:    [[TMP3:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr [[TAPE]], i32 0, i32 3
; CHECK-NEXT:    [[PRED_IDX:%.*]] = load i8, ptr [[TMP3]], align 1, !ad.pred !{{[0-9]+}}
; CHECK-NEXT:    ret double [[R_D]]
