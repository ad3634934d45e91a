; Long blocks of derived code get a single-thread fence (a compiler barrier
; that emits no code) after every -ad-sched-window memory accesses
; (pass/codegen/OutlineLongBlocks.h): the machine scheduler orders each access
; against all those before it since the last barrier or call, in time
; quadratic in their number. Only at -O1 and above, only in blocks longer
; than -ad-sched-window-threshold instructions, in derived functions and
; the callers derived code was inlined into, not in other functions (f).
; Small limits here; the defaults (256, 1000) leave this f alone.
;   double f(double *v) { v[3] = v[1] + v[2] * v[5]; v[0] = v[3] + v[4] * v[7];
;     v[6] = v[0] + v[3] * v[3]; v[2] = v[6] + v[0] * v[1]; return v[2] * v[0]; }
; RUN: %opt -passes='ad<O2>' -ad-outline-block-threshold=0 -ad-sched-window=3 -ad-sched-window-threshold=10 %s -S | FileCheck %s
; RUN: %opt -passes='ad<O2>' %s -S | FileCheck %s --check-prefix=NONE
; RUN: %opt -passes=ad -ad-sched-window=3 -ad-sched-window-threshold=10 %s -S | FileCheck %s --check-prefix=NONE

; The user's f is left as it is.
; CHECK-LABEL: define double @f(
; CHECK-NOT: fence
; CHECK: ret double
; A barrier after every third access of f.rev's long block.
; CHECK-LABEL: define internal {{.*}} @f.rev(
; CHECK-COUNT-3: {{load|store}}
; CHECK-NEXT: fence syncscope("singlethread") seq_cst
; CHECK-COUNT-3: {{load|store}}
; CHECK-NEXT: fence syncscope("singlethread") seq_cst
; NONE-NOT: fence

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
