; ad-unzip alone on a hand-written f.jvp with a loop whose trip count depends
; on data.
;   f(a): x = a; do x = sqrt(x); while (x > 2); return x
; Each execution of the loop block pushes a record on the runtime tape
; (__ad_tape_push) with the predecessor index, the residual 2 sqrt(x) and the
; exit condition; %f.tape is empty. f.lin reads the records forwards
; (__ad_tape_read).
; RUN: %opt -passes=ad-unzip,ad-verify %s -S | FileCheck %s

declare double @f(double)
declare double @llvm.sqrt.f64(double)

define internal { double, double } @f.jvp(double %a, double %da) #0 {
entry:
  br label %loop
loop:
  %x = phi double [ %a, %entry ], [ %x.next, %loop ]
  %x.d = phi double [ %da, %entry ], [ %x.next.d, %loop ], !ad.linear !0
  %x.next = call double @llvm.sqrt.f64(double %x)
  %twice = fmul double 2.0, %x.next
  %x.next.d = fdiv double %x.d, %twice, !ad.linear !0
  %more = fcmp ogt double %x.next, 2.0
  br i1 %more, label %loop, label %exit
exit:
  %ret0 = insertvalue { double, double } poison, double %x.next, 0
  %ret = insertvalue { double, double } %ret0, double %x.next.d, 1, !ad.linear !0
  ret { double, double } %ret
}

attributes #0 = { "ad-activity"="a" "ad-kind"="jvp" "ad-primal"="f" }
!0 = !{}

; CHECK-LABEL: define internal double @f.fwd(
; CHECK-SAME: double [[A:%.*]], ptr noalias [[TAPE:%.*]]) #{{[0-9]+}} {
; CHECK-NEXT:  entry:
; CHECK-NEXT:    br label %loop
; CHECK:       loop:
; CHECK-NEXT:    [[X:%.*]] = phi double [ [[A]], %entry ], [ [[X_NEXT:%.*]], %loop ]
; CHECK-NEXT:    [[PRED_IDX:%.*]] = phi i8 [ 1, %loop ], [ 0, %entry ]
; CHECK-NEXT:    [[X_NEXT]] = call double @llvm.sqrt.f64(double [[X]])
; CHECK-NEXT:    [[TWICE:%.*]] = fmul double 2.000000e+00, [[X_NEXT]]
; CHECK-NEXT:    [[MORE:%.*]] = fcmp ogt double [[X_NEXT]], 2.000000e+00
; CHECK-NEXT:    [[RECORD:%.*]] = call ptr @__ad_tape_push(i64 24)
; CHECK-NEXT:    [[TMP0:%.*]] = getelementptr inbounds{{( nuw)?}} { i8, double, i1 }, ptr [[RECORD]], i32 0, i32 0
; CHECK-NEXT:    store i8 [[PRED_IDX]], ptr [[TMP0]], align 1
; CHECK-NEXT:    [[TMP1:%.*]] = getelementptr inbounds{{( nuw)?}} { i8, double, i1 }, ptr [[RECORD]], i32 0, i32 1
; CHECK-NEXT:    store double [[TWICE]], ptr [[TMP1]], align 8
; CHECK-NEXT:    [[TMP2:%.*]] = getelementptr inbounds{{( nuw)?}} { i8, double, i1 }, ptr [[RECORD]], i32 0, i32 2
; CHECK-NEXT:    store i1 [[MORE]], ptr [[TMP2]], align 1
; CHECK-NEXT:    br i1 [[MORE]], label %loop, label %exit
; CHECK:       exit:
; CHECK-NEXT:    ret double [[X_NEXT]]
;
; CHECK-LABEL: define internal double @f.lin(
; CHECK-SAME: ptr [[TAPE:%.*]], double [[DA:%.*]]) #{{[0-9]+}} {
; CHECK-NEXT:  entry:
; CHECK-NEXT:    br label %loop
; CHECK:       loop:
; CHECK-NEXT:    [[X_D:%.*]] = phi double [ [[DA]], %entry ], [ [[X_NEXT_D:%.*]], %loop ], !ad.linear !{{[0-9]+}}
; CHECK-NEXT:    [[RECORD:%.*]] = call ptr @__ad_tape_read(i64 24)
; CHECK-NEXT:    [[TMP0:%.*]] = getelementptr inbounds{{( nuw)?}} { i8, double, i1 }, ptr [[RECORD]], i32 0, i32 0
; CHECK-NEXT:    [[PRED_IDX:%.*]] = load i8, ptr [[TMP0]], align 1, !ad.pred !{{[0-9]+}}
; CHECK-NEXT:    [[TMP1:%.*]] = getelementptr inbounds{{( nuw)?}} { i8, double, i1 }, ptr [[RECORD]], i32 0, i32 1
; CHECK-NEXT:    [[TWICE:%.*]] = load double, ptr [[TMP1]], align 8
; CHECK-NEXT:    [[X_NEXT_D]] = fdiv double [[X_D]], [[TWICE]], !ad.linear !{{[0-9]+}}
; CHECK-NEXT:    [[TMP2:%.*]] = getelementptr inbounds{{( nuw)?}} { i8, double, i1 }, ptr [[RECORD]], i32 0, i32 2
; CHECK-NEXT:    [[MORE:%.*]] = load i1, ptr [[TMP2]], align 1
; CHECK-NEXT:    br i1 [[MORE]], label %loop, label %exit
; CHECK:       exit:
; CHECK-NEXT:    ret double [[X_NEXT_D]]
