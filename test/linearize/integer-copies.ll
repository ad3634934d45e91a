; Bytes moved as integers between memories with shadows: their shadow bytes
; move too. An i64 copy of a double (a local [2 x double]) gets a linear
; double load of the shadow where the integer is loaded, and a linear store
; where it is stored; a double stored as its bits stores its tangent; an
; i64 tagged "any pointer" copies the shadow pointer's bits (non-linear).
; An i64 tagged "long" is an integer: nothing moves. Bits changed by
; integer arithmetic and stored are an error, and so are 8 bytes whose kind
; cannot be told (memory read both as a double and as a pointer, no TBAA).
; RUN: split-file %s %t
; RUN: %opt -passes=ad-linearize %t/copies.ll -S | FileCheck %s
; RUN: not %opt -passes=ad-linearize %t/twiddle.ll -disable-output 2>&1 | FileCheck %s --check-prefix=ERR
; RUN: not %opt -passes=ad-linearize %t/unknown.ll -disable-output 2>&1 | FileCheck %s --check-prefix=UNKNOWN

; CHECK-LABEL: define internal { double, double } @f.jvp(
; CHECK: store double [[DV:%.*]], ptr %y.shadow, align 8, !ad.linear
; CHECK: %a = load i64, ptr %y
; CHECK-NEXT: %a.shadow.bits = load double, ptr %y.shadow, align 4, !ad.linear
; CHECK-NEXT: store i64 %a, ptr %p1
; CHECK-NEXT: store double %a.shadow.bits, ptr %p1.shadow, align 4, !ad.linear
; CHECK-NEXT: %bits = bitcast double %v to i64
; CHECK-NEXT: store i64 %bits, ptr %y
; CHECK-NEXT: store double [[DV]], ptr %y.shadow, align 4, !ad.linear
; CHECK-LABEL: define internal ptr @g.jvp(
; CHECK: %q = load i64, ptr %from, align 8, !tbaa
; CHECK-NEXT: %q.shadow.bits = load i64, ptr %dfrom, align 8{{$}}
; CHECK-NEXT: store i64 %q, ptr %to
; CHECK-NEXT: store i64 %q.shadow.bits, ptr %dto, align 8{{$}}
; CHECK-LABEL: define internal ptr @counts.jvp(
; CHECK: %n = load i64, ptr %from, align 8, !tbaa
; CHECK-NEXT: store i64 %n, ptr %to, align 8, !tbaa
; CHECK-NEXT: load ptr, ptr %to
; UNKNOWN: error: {{.*}}cannot differentiate: data is moved as an integer between memory that carries derivatives, and whether it is floating-point data, a pointer or an integer cannot be told here
; ERR: error: {{.*}}cannot differentiate floating-point bit manipulation (an active value reinterpreted as an integer, changed, and stored)

;--- copies.ll
declare double @__ad_gradient(ptr, ...)

define double @f(double %x) {
  %y = alloca [2 x double], align 8
  %p0 = getelementptr inbounds [2 x double], ptr %y, i64 0, i64 0
  %p1 = getelementptr inbounds [2 x double], ptr %y, i64 0, i64 1
  %v = fmul double %x, %x
  store double %v, ptr %p0
  %a = load i64, ptr %p0
  store i64 %a, ptr %p1
  %bits = bitcast double %v to i64
  store i64 %bits, ptr %p0
  %r = call double @read(ptr %y)
  ret double %r
}

; Keeps %y in memory.
define internal double @read(ptr %y) noinline {
  %p1 = getelementptr inbounds double, ptr %y, i64 1
  %v = load double, ptr %p1
  ret double %v
}

define ptr @g(ptr %from, ptr %to) {
  %q = load i64, ptr %from, align 8, !tbaa !0
  store i64 %q, ptr %to, align 8, !tbaa !0
  %r = load ptr, ptr %to
  ret ptr %r
}

define ptr @counts(ptr %from, ptr %to) {
  %n = load i64, ptr %from, align 8, !tbaa !4
  store i64 %n, ptr %to, align 8, !tbaa !4
  %r = load ptr, ptr %to
  ret ptr %r
}

define void @use(ptr %f, ptr %df, ptr %t, ptr %dt) {
  %d = call double (ptr, ...) @__ad_gradient(ptr @f, double 1.0)
  %e = call double (ptr, ...) @__ad_gradient(ptr @g, ptr %f, ptr %df, ptr %t, ptr %dt)
  %c = call double (ptr, ...) @__ad_gradient(ptr @counts, ptr %f, ptr %df, ptr %t, ptr %dt)
  ret void
}

!0 = !{!1, !1, i64 0}
!1 = !{!"any pointer", !2, i64 0}
!2 = !{!"omnipotent char", !3, i64 0}
!3 = !{!"Simple C/C++ TBAA"}
!4 = !{!5, !5, i64 0}
!5 = !{!"long", !2, i64 0}

;--- unknown.ll
declare void @__ad_gradient(ptr, ...)

; %a's memory is read both as a double and as a pointer here.
define double @h(ptr %a, ptr %b) {
  %d = load double, ptr %a
  %p = load ptr, ptr %a
  %e = load double, ptr %p
  %v = load i64, ptr %a
  store i64 %v, ptr %b
  %s = fadd double %d, %e
  ret double %s
}

define void @use(ptr %a, ptr %da, ptr %b, ptr %db) {
  call void (ptr, ...) @__ad_gradient(ptr @h, ptr %a, ptr %da, ptr %b, ptr %db)
  ret void
}

;--- twiddle.ll
declare double @__ad_gradient(ptr, ...)

define double @f(double %x) {
  %y = alloca double, align 8
  %bits = bitcast double %x to i64
  %neg = xor i64 %bits, 4611686018427387904
  store i64 %neg, ptr %y
  %r = call double @read(ptr %y)
  ret double %r
}

define internal double @read(ptr %y) noinline {
  %v = load double, ptr %y
  ret double %v
}

define void @use() {
  %d = call double (ptr, ...) @__ad_gradient(ptr @f, double 1.0)
  ret void
}
