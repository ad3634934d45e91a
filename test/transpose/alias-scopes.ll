; f.rev's memory accesses carry scoped alias metadata, one domain per f.rev
; (RevAliasScopes.h): shadow accumulations are in scope "shadow" and apart
; from "tape"; tape reads (f.rev's tape parameter, records popped, a loop's
; array of records) are in scope "tape" and apart from "shadow"; primal
; values read again are apart from "shadow" and in no scope, so that
; primal reads are not told apart from each other (nor shadow accesses).
; RUN: %opt -passes='ad<O2>' %s -S | FileCheck %s --check-prefix=O2
; RUN: %opt -passes=ad-linearize,ad-unzip,ad-transpose,ad-verify %s -S | FileCheck %s --check-prefix=STAGES

declare void @__ad_gradient_void(ptr, ...)
declare double @llvm.sin.f64(double)
declare double @llvm.fmuladd.f64(double, double, double)
@__ad_const_tag = external constant i8

; sum_i sin(x_i) c_i, c constant: at -O2 both x and c are read again.
define double @taped(ptr %x, ptr %c, i32 %n) {
entry:
  %cmp7 = icmp sgt i32 %n, 0
  br i1 %cmp7, label %for.body.preheader, label %for.cond.cleanup
for.body.preheader:
  %wide.trip.count = zext nneg i32 %n to i64
  br label %for.body
for.cond.cleanup:
  %s.0.lcssa = phi double [ 0.000000e+00, %entry ], [ %3, %for.body ]
  ret double %s.0.lcssa
for.body:
  %indvars.iv = phi i64 [ 0, %for.body.preheader ], [ %indvars.iv.next, %for.body ]
  %s.08 = phi double [ 0.000000e+00, %for.body.preheader ], [ %3, %for.body ]
  %arrayidx = getelementptr inbounds double, ptr %x, i64 %indvars.iv
  %0 = load double, ptr %arrayidx, align 8
  %1 = tail call double @llvm.sin.f64(double %0)
  %arrayidx2 = getelementptr inbounds double, ptr %c, i64 %indvars.iv
  %2 = load double, ptr %arrayidx2, align 8
  %3 = tail call double @llvm.fmuladd.f64(double %1, double %2, double %s.08)
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1
  %exitcond.not = icmp eq i64 %indvars.iv.next, %wide.trip.count
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body
}

; sum_i rows[i][0]^2: without the analyses of -O2, each row's shadow
; address is kept in the loop's array of records.
define double @reread(ptr %rows, i32 %n) {
entry:
  %cmp10 = icmp sgt i32 %n, 0
  br i1 %cmp10, label %for.body.preheader, label %for.cond.cleanup
for.body.preheader:
  %wide.trip.count = zext nneg i32 %n to i64
  br label %for.body
for.cond.cleanup:
  %s.0.lcssa = phi double [ 0.000000e+00, %entry ], [ %2, %for.body ]
  ret double %s.0.lcssa
for.body:
  %indvars.iv = phi i64 [ 0, %for.body.preheader ], [ %indvars.iv.next, %for.body ]
  %s.011 = phi double [ 0.000000e+00, %for.body.preheader ], [ %2, %for.body ]
  %arrayidx = getelementptr inbounds ptr, ptr %rows, i64 %indvars.iv
  %0 = load ptr, ptr %arrayidx, align 8
  %1 = load double, ptr %0, align 8
  %2 = tail call double @llvm.fmuladd.f64(double %1, double %1, double %s.011)
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1
  %exitcond.not = icmp eq i64 %indvars.iv.next, %wide.trip.count
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body
}

define void @g(ptr %x, ptr %dx, ptr %c, i32 %n) {
entry:
  tail call void (ptr, ...) @__ad_gradient_void(ptr @taped, ptr %x, ptr %dx, ptr @__ad_const_tag, ptr %c, i32 %n)
  ret void
}
define void @h(ptr %rows, ptr %drows, i32 %n) {
entry:
  tail call void (ptr, ...) @__ad_gradient_void(ptr @reread, ptr %rows, ptr %drows, i32 %n)
  ret void
}

; O2-LABEL: define internal void @taped.rev.dcc(
; O2:       %c = load ptr, ptr %{{[0-9]+}}, align 8, !alias.scope ![[T:[0-9]+]], !noalias ![[S:[0-9]+]]
; O2:       load double, ptr %{{[0-9]+}}, align 8, !noalias ![[S]]{{$}}
; O2:       %x = load ptr, ptr %{{[0-9]+}}, align 8, !alias.scope ![[T]], !noalias ![[S]]
; O2:       load double, ptr %{{[0-9]+}}, align 8, !noalias ![[S]]{{$}}
; O2:       %dx = load ptr, ptr %{{[0-9]+}}, align 8, !alias.scope ![[T]], !noalias ![[S]]
; O2:       load double, ptr %[[CELL:[0-9]+]], align 8, !alias.scope ![[S]], !noalias ![[T]]
; O2:       store double %{{[0-9]+}}, ptr %[[CELL]], align 8, !alias.scope ![[S]], !noalias ![[T]]
; O2:       load i32, ptr %tape, align 4, !alias.scope ![[T]], !noalias ![[S]]
; O2-DAG:   ![[T]] = !{![[TS:[0-9]+]]}
; O2-DAG:   ![[TS]] = distinct !{![[TS]], ![[D:[0-9]+]], !"tape"}
; O2-DAG:   ![[D]] = distinct !{![[D]], !"taped.rev.dcc"}
; O2-DAG:   ![[S]] = !{![[SS:[0-9]+]]}
; O2-DAG:   ![[SS]] = distinct !{![[SS]], ![[D]], !"shadow"}

; STAGES-LABEL: define internal void @reread.rev(
; STAGES:       %record = getelementptr { ptr, double }, ptr %array2
; STAGES:       load double, ptr %{{[0-9]+}}, align 8, !alias.scope ![[T:[0-9]+]], !noalias ![[S:[0-9]+]]
; STAGES:       %.shadow = load ptr, ptr %record, align 8, !alias.scope ![[T]], !noalias ![[S]]
; STAGES:       load double, ptr %.shadow, align 8, !alias.scope ![[S]], !noalias ![[T]]
; STAGES:       store double %{{[0-9]+}}, ptr %.shadow, align 8, !alias.scope ![[S]], !noalias ![[T]]
