; ad-unzip alone on a hand-written f.jvp with a counted loop.
;   f(x, n) = sum_{i<n} x[i]^2, x with a shadow dx, n constant
; The trip count is known before the loop (ScalarEvolution), so f.fwd
; allocates one array of n records before it and stores 2 x[i] in record i;
; the array goes on %f.tape, at the preheader, where the exit block (which
; the preheader dominates) reads it too; the count n goes on the tape as a
; value, and f.lin computes the number of iterations from it on either side.
; f.lin counts iterations (!ad.counter) and indexes the same array; the
; shadow address dx + 8i is recomputed from the counter, not taped.
; RUN: %opt -passes=ad-unzip,ad-verify %s -S | FileCheck %s

declare double @f(ptr, i64)

define internal { double, double } @f.jvp(ptr %x, i64 %n, ptr %dx) #0 {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %s.d = phi double [ 0.0, %entry ], [ %s.next.d, %loop ], !ad.linear !0
  %p = getelementptr inbounds double, ptr %x, i64 %i
  %p.shadow = getelementptr inbounds double, ptr %dx, i64 %i
  %v = load double, ptr %p
  %v.d = load double, ptr %p.shadow, !ad.linear !0
  %sq = fmul double %v, %v
  %twice.v = fmul double 2.0, %v
  %sq.d = fmul double %twice.v, %v.d, !ad.linear !0
  %s.next = fadd double %s, %sq
  %s.next.d = fadd double %s.d, %sq.d, !ad.linear !0
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  %ret0 = insertvalue { double, double } poison, double %s.next, 0
  %ret = insertvalue { double, double } %ret0, double %s.next.d, 1, !ad.linear !0
  ret { double, double } %ret
}

attributes #0 = { "ad-activity"="dc" "ad-kind"="jvp" "ad-primal"="f" }
!0 = !{}

; CHECK: %f.tape = type { ptr, i64, ptr }
; CHECK-LABEL: define internal double @f.fwd(
; CHECK-SAME: ptr [[X:%.*]], i64 [[N:%.*]], ptr [[DX:%.*]], ptr noalias [[TAPE:%.*]]) #{{[0-9]+}} {
; CHECK-NEXT:  entry:
; CHECK-NEXT:    [[TMP0:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr [[TAPE]], i32 0, i32 1
; CHECK-NEXT:    store i64 [[N]], ptr [[TMP0]], align 4
; CHECK-NEXT:    [[TMP1:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr [[TAPE]], i32 0, i32 0
; CHECK-NEXT:    store ptr [[DX]], ptr [[TMP1]], align 8
; CHECK-NEXT:    [[BACKEDGES:%.*]] = add i64 [[N]], -1
; CHECK-NEXT:    [[ITERATIONS:%.*]] = add i64 [[BACKEDGES]], 1
; CHECK-NEXT:    [[ARRAY_BYTES:%.*]] = mul i64 [[ITERATIONS]], 8
; CHECK-NEXT:    [[ARRAY:%.*]] = call ptr @__ad_tape_push(i64 [[ARRAY_BYTES]])
; CHECK-NEXT:    [[TMP2:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr [[TAPE]], i32 0, i32 2
; CHECK-NEXT:    store ptr [[ARRAY]], ptr [[TMP2]], align 8
; CHECK-NEXT:    br label %loop
; CHECK:       loop:
; CHECK-NEXT:    [[I:%.*]] = phi i64 [ 0, %entry ], [ [[I_NEXT:%.*]], %loop ]
; CHECK-NEXT:    [[S:%.*]] = phi double [ 0.000000e+00, %entry ], [ [[S_NEXT:%.*]], %loop ]
; CHECK-NEXT:    [[ITERATION:%.*]] = phi i64 [ 0, %entry ], [ [[ITERATION_NEXT:%.*]], %loop ]
; CHECK-NEXT:    [[P:%.*]] = getelementptr inbounds{{( nuw)?}} double, ptr [[X]], i64 [[I]]
; CHECK-NEXT:    [[V:%.*]] = load double, ptr [[P]], align 8
; CHECK-NEXT:    [[SQ:%.*]] = fmul double [[V]], [[V]]
; CHECK-NEXT:    [[TWICE_V:%.*]] = fmul double 2.000000e+00, [[V]]
; CHECK-NEXT:    [[S_NEXT]] = fadd double [[S]], [[SQ]]
; CHECK-NEXT:    [[I_NEXT]] = add nuw nsw i64 [[I]], 1
; CHECK-NEXT:    [[DONE:%.*]] = icmp eq i64 [[I_NEXT]], [[N]]
; CHECK-NEXT:    [[ITERATION_NEXT]] = add i64 [[ITERATION]], 1
; CHECK-NEXT:    [[RECORD:%.*]] = getelementptr { double }, ptr [[ARRAY]], i64 [[ITERATION]]
; CHECK-NEXT:    [[TMP3:%.*]] = getelementptr inbounds{{( nuw)?}} { double }, ptr [[RECORD]], i32 0, i32 0
; CHECK-NEXT:    store double [[TWICE_V]], ptr [[TMP3]], align 8
; CHECK-NEXT:    br i1 [[DONE]], label %exit, label %loop
; CHECK:       exit:
; CHECK-NEXT:    ret double [[S_NEXT]]

; CHECK-LABEL: define internal double @f.lin(
; CHECK-SAME: ptr [[TAPE:%.*]]) #{{[0-9]+}} {
; CHECK-NEXT:  entry:
; CHECK-NEXT:    [[TMP0:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr [[TAPE]], i32 0, i32 2
; CHECK-NEXT:    [[ARRAY:%.*]] = load ptr, ptr [[TMP0]], align 8, !ad.loop.base !{{[0-9]+}}
; CHECK-NEXT:    [[TMP1:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr [[TAPE]], i32 0, i32 1
; CHECK-NEXT:    [[N:%.*]] = load i64, ptr [[TMP1]], align 4, !ad.static !{{[0-9]+}}
; CHECK-NEXT:    [[BACKEDGES:%.*]] = add i64 -1, [[N]]
; CHECK-NEXT:    [[ITERATIONS:%.*]] = add i64 [[BACKEDGES]], 1, !ad.loop.count !{{[0-9]+}}
; CHECK-NEXT:    br label %loop
; CHECK:       loop:
; CHECK-NEXT:    [[S_D:%.*]] = phi double [ 0.000000e+00, %entry ], [ [[S_NEXT_D:%.*]], %loop ], !ad.linear !{{[0-9]+}}
; CHECK-NEXT:    [[ITERATION:%.*]] = phi i64 [ 0, %entry ], [ [[ITERATION_NEXT:%.*]], %loop ], !ad.counter !{{[0-9]+}}
; CHECK-NEXT:    [[RECORD:%.*]] = getelementptr { double }, ptr [[ARRAY]], i64 [[ITERATION]]
; CHECK-NEXT:    [[TMP2:%.*]] = mul i64 [[ITERATION]], 8
; CHECK-NEXT:    [[TMP3:%.*]] = add i64 0, [[TMP2]]
; CHECK-NEXT:    [[TMP4:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr [[TAPE]], i32 0, i32 0
; CHECK-NEXT:    [[DX:%.*]] = load ptr, ptr [[TMP4]], align 8, !ad.static !{{[0-9]+}}
; CHECK-NEXT:    [[TMP5:%.*]] = getelementptr i8, ptr [[DX]], i64 [[TMP3]]
; CHECK-NEXT:    [[V_D:%.*]] = load double, ptr [[TMP5]], align 8, !ad.linear !{{[0-9]+}}
; CHECK-NEXT:    [[TMP6:%.*]] = getelementptr inbounds{{( nuw)?}} { double }, ptr [[RECORD]], i32 0, i32 0
; CHECK-NEXT:    [[TWICE_V:%.*]] = load double, ptr [[TMP6]], align 8
; CHECK-NEXT:    [[SQ_D:%.*]] = fmul double [[TWICE_V]], [[V_D]], !ad.linear !{{[0-9]+}}
; CHECK-NEXT:    [[S_NEXT_D]] = fadd double [[S_D]], [[SQ_D]], !ad.linear !{{[0-9]+}}
; CHECK-NEXT:    [[ITERATION_NEXT]] = add i64 [[ITERATION]], 1
; CHECK-NEXT:    [[DONE:%.*]] = icmp eq i64 [[ITERATION_NEXT]], [[ITERATIONS]]
; CHECK-NEXT:    br i1 [[DONE]], label %exit, label %loop
; CHECK:       exit:
; CHECK-NEXT:    [[TMP7:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr [[TAPE]], i32 0, i32 2
; CHECK-NEXT:    [[ARRAY1:%.*]] = load ptr, ptr [[TMP7]], align 8, !ad.loop.base !{{[0-9]+}}
; CHECK-NEXT:    [[TMP8:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr [[TAPE]], i32 0, i32 1
; CHECK-NEXT:    [[N2:%.*]] = load i64, ptr [[TMP8]], align 4, !ad.static !{{[0-9]+}}
; CHECK-NEXT:    [[BACKEDGES2:%.*]] = add i64 -1, [[N2]]
; CHECK-NEXT:    [[ITERATIONS2:%.*]] = add i64 [[BACKEDGES2]], 1, !ad.loop.count !{{[0-9]+}}
; CHECK-NEXT:    ret double [[S_NEXT_D]]
