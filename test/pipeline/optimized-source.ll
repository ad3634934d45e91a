; At -O1 and above (ad<O2>, what clang runs at -O2) the copy of f that is
; differentiated gets one more round of GVN and dead-store elimination
; first: here the first store to v[1] (overwritten) does not reach f.fwd.
; At -O0 (ad) the copy is put into SSA form and its loads of values the
; block already has are forwarded (pass/prepare/ForwardLoads.h), but no store is
; removed: f.fwd keeps both stores. At both levels the second load of v[0]
; (redundant across the store to v[1]) and the load of v[1] are gone.
;   double f(double *v) { v[1] = v[0] * v[0]; v[1] = v[0] + v[1];
;                         return v[1] * v[0]; }
; RUN: %opt -passes='ad<O2>' %s -S | FileCheck %s
; RUN: %opt -passes=ad %s -S | FileCheck %s --check-prefixes=CHECK,O0
; RUN: not %opt -passes='ad<O7>' %s -S 2>&1 | FileCheck %s --check-prefix=BADLEVEL

declare double @__ad_gradient(ptr, ...)

define double @f(ptr %v) {
  %p1 = getelementptr inbounds double, ptr %v, i64 1
  %a = load double, ptr %v
  %m = fmul double %a, %a
  store double %m, ptr %p1
  %b = load double, ptr %v
  %s = fadd double %b, %m
  store double %s, ptr %p1
  %c = load double, ptr %p1
  %r = fmul double %c, %a
  ret double %r
}

define void @g(ptr %v, ptr %dv) {
  call double (ptr, ...) @__ad_gradient(ptr @f, ptr %v, ptr %dv)
  ret void
}

; CHECK-LABEL: define internal double @f.fwd(ptr %v, ptr %dv, ptr noalias %tape)
; CHECK:         %a = load double, ptr %v
; O0:            store double %m, ptr %p1
; CHECK-NOT:     load
; CHECK:         %s = fadd double %a, %m
; CHECK-NOT:     load
; CHECK:         store double %s, ptr %p1
; CHECK-NEXT:    %r = fmul double %s, %a
; CHECK-NEXT:    ret double %r

; BADLEVEL: unknown pass name 'ad<O7>'
