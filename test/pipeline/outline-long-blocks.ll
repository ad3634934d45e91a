; Derived blocks longer than -ad-outline-block-threshold instructions are cut
; into runs of -ad-outline-run-length, and every run but the last moves into
; a function of its own (pass/OutlineLongBlocks.h): the SLP vectorizer and
; the machine scheduler are quadratic in block length. Only at -O1 and
; above, last in the ad pass: the runs are noinline, and they are not
; derived functions themselves (no ad-* attributes). Small limits here; the
; defaults (8000, 3000) leave this f alone.
;   double f(double *v) { v[3] = v[1] + v[2] * v[5]; v[0] = v[3] + v[4] * v[7];
;     v[6] = v[0] + v[3] * v[3]; v[2] = v[6] + v[0] * v[1]; return v[2] * v[0]; }
; RUN: %opt -passes='ad<O2>' -ad-outline-block-threshold=30 -ad-outline-run-length=20 %s -S | FileCheck %s
; RUN: %opt -passes='ad<O2>' %s -S | FileCheck %s --check-prefix=NONE
; RUN: %opt -passes='ad<O2>' -ad-outline-block-threshold=0 -ad-outline-run-length=20 %s -S | FileCheck %s --check-prefix=NONE
; RUN: %opt -passes=ad -ad-outline-block-threshold=30 -ad-outline-run-length=20 %s -S | FileCheck %s --check-prefix=NONE

declare double @__ad_gradient(ptr, ...)

define double @f(ptr %v) {
  %p1 = getelementptr inbounds i8, ptr %v, i64 8
  %v1 = load double, ptr %p1
  %p2 = getelementptr inbounds i8, ptr %v, i64 16
  %v2 = load double, ptr %p2
  %p5 = getelementptr inbounds i8, ptr %v, i64 40
  %v5 = load double, ptr %p5
  %m1 = fmul double %v2, %v5
  %a1 = fadd double %v1, %m1
  %p3 = getelementptr inbounds i8, ptr %v, i64 24
  store double %a1, ptr %p3
  %p4 = getelementptr inbounds i8, ptr %v, i64 32
  %v4 = load double, ptr %p4
  %p7 = getelementptr inbounds i8, ptr %v, i64 56
  %v7 = load double, ptr %p7
  %m2 = fmul double %v4, %v7
  %a2 = fadd double %a1, %m2
  store double %a2, ptr %v
  %m3 = fmul double %a1, %a1
  %a3 = fadd double %m3, %a2
  %p6 = getelementptr inbounds i8, ptr %v, i64 48
  store double %a3, ptr %p6
  %m4 = fmul double %v1, %a2
  %a4 = fadd double %a3, %m4
  store double %a4, ptr %p2
  %r = fmul double %a2, %a4
  ret double %r
}
define void @g(ptr %v, ptr %dv) {
  call double (ptr, ...) @__ad_gradient(ptr @f, ptr %v, ptr %dv)
  ret void
}

; f.fwd's one block of 44 instructions is cut into runs of 20, 20 and 4:
; the first stays (it begins the block, where phis and allocas are), the
; second is outlined, its results returned through memory, the last stays
; (it ends in the block's terminator). f.rev (65) has two middle runs.
; Addresses at constant offsets (%p3, the shadow cells, tape fields) are
; recomputed in each run, not passed: a run gets the base pointers.
; CHECK-LABEL: define internal double @f.fwd(
; CHECK:         call void @f.fwd.run(ptr %v, double %a1, ptr %tape, double %v1, ptr %a2.loc, ptr %a4.loc)
; CHECK:         ret double %r
; CHECK-LABEL: define internal void @f.rev(
; CHECK:         call void @f.rev.run(
; CHECK-NOT:     shadow
; CHECK-SAME:    ){{$}}
; CHECK:         call void @f.rev.run.1(
; CHECK-NOT:     shadow
; CHECK-SAME:    ){{$}}
; CHECK:         ret void
; CHECK-LABEL: define internal void @f.fwd.run(
; CHECK-SAME:    #[[PART:[0-9]+]]
; CHECK:         store double
; CHECK:         ret void
; CHECK-LABEL: define internal void @f.rev.run(
; CHECK-SAME:    #[[PART]]
; CHECK-LABEL: define internal void @f.rev.run.1(
; CHECK-SAME:    #[[PART]]
; CHECK:       attributes #[[PART]] = { noinline }

; NONE-NOT: .run
