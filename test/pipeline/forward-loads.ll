; The prepared copy of f forwards, within a block, a load of a cell the
; block has already stored or loaded, when nothing in between may have
; written that cell (pass/prepare/ForwardLoads.h). Cells are told apart only by
; constant offsets from one base, or by being two distinct identified
; objects. Each function below differentiates one case; f.fwd shows which
; loads are left. At -O0 (ad) and -O2 (ad<O2>) alike; the cases
; where -O2's GVN goes further are in forward-loads-O0.ll.
; RUN: %opt -passes=ad %s -S | FileCheck %s
; RUN: %opt -passes='ad<O2>' %s -S | FileCheck %s

declare double @__ad_gradient(ptr, ...)
define void @touch(ptr %p) {
  %x = load double, ptr %p
  %y = fmul double %x, %x
  store double %y, ptr %p
  ret void
}

@a = internal global double 1.0
@b = internal global double 2.0

; Stores to other offsets of the same base leave v[0] and v[1] known: the
; reads after them are the values already there.
define double @same_base(ptr %v) {
  %p1 = getelementptr inbounds double, ptr %v, i64 1
  %p2 = getelementptr inbounds double, ptr %v, i64 2
  %x = load double, ptr %v
  %m = fmul double %x, %x
  store double %m, ptr %p1
  store double %x, ptr %p2
  %y = load double, ptr %v
  %z = load double, ptr %p1
  %s = fadd double %y, %z
  ret double %s
}
; CHECK-LABEL: define internal double @same_base.fwd(
; CHECK:         %x = load double, ptr %v
; CHECK-NOT:     load
; CHECK:         %s = fadd double %x, %m
; CHECK-NOT:     load
; CHECK:         ret double %s

; A store through another pointer may write v[0]: v[0] is read again.
define double @other_base(ptr %v, ptr %w) {
  %x = load double, ptr %v
  store double 3.0, ptr %w
  %y = load double, ptr %v
  %s = fmul double %x, %y
  ret double %s
}
; CHECK-LABEL: define internal double @other_base.fwd(
; CHECK:         %x = load double, ptr %v
; CHECK:         store double 3.0{{.*}}, ptr %w
; CHECK:         %y = load double, ptr %v
; CHECK:         %s = fmul double %x, %y

; A call may write anything; a volatile load is not replaced.
define double @call_and_volatile(ptr %v) {
  %x = load double, ptr %v
  call void @touch(ptr %v)
  %y = load double, ptr %v
  %z = load volatile double, ptr %v
  %s = fadd double %x, %y
  %t = fadd double %s, %z
  ret double %t
}
; CHECK-LABEL: define internal double @call_and_volatile.fwd(
; CHECK:         %x = load double, ptr %v
; CHECK:         call void @touch.fwd{{(\.[a-z0-9]+)?}}(
; CHECK:         %y = load double, ptr %v
; CHECK:         %z = load volatile double, ptr %v

; Two globals are distinct objects: a store to @b keeps @a known. A store
; through a pointer that may point to @a forgets it.
define double @globals(ptr %v) {
  %x = load double, ptr @a
  store double %x, ptr @b
  %y = load double, ptr @a
  store double 0.0, ptr %v
  %z = load double, ptr @a
  %s = fmul double %x, %y
  %t = fmul double %s, %z
  ret double %t
}
; CHECK-LABEL: define internal double @globals.fwd(
; CHECK:         %x = load double, ptr @a
; CHECK-NEXT:    store double %x, ptr @b
; CHECK-NEXT:    store double 0.0{{.*}}, ptr %v
; CHECK-NEXT:    %z = load double, ptr @a
; CHECK-NEXT:    %s = fmul double %x, %x

define void @requests(ptr %v, ptr %dv, ptr %w, ptr %dw) {
  call double (ptr, ...) @__ad_gradient(ptr @same_base, ptr %v, ptr %dv)
  call double (ptr, ...) @__ad_gradient(ptr @other_base, ptr %v, ptr %dv, ptr %w, ptr %dw)
  call double (ptr, ...) @__ad_gradient(ptr @call_and_volatile, ptr %v, ptr %dv)
  call double (ptr, ...) @__ad_gradient(ptr @globals, ptr %v, ptr %dv)
  ret void
}
