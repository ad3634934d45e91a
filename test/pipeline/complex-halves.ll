; Two consecutive double arguments of a forward-mode request that are the
; halves of one complex number passed whole: adjacent loads of fields 0 and
; 1 of one literal { double, double } (MarkerLowering.cpp,
; markWholeComplexArguments; the C forms are in
; diagnostics/complex-forward.c). Elements of an array of complex numbers
; reached by pointer arithmetic (a one-index address, which has no field
; index) are not: that case crashed the pass at pipeline start.
; RUN: not %opt -passes='default<O0>' %s -S -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=error:
; CHECK: error: {{.*}}in function whole double (ptr): __ad_derivative: the value for parameter 1 of 'g' is a _Complex double passed whole

declare double @__ad_derivative(ptr, ...)

define double @g(double %x, double %y) {
  %m = fmul double %x, %y
  ret double %m
}

define double @cursor(ptr %zp) {
  %a = getelementptr inbounds { double, double }, ptr %zp, i64 1
  %x = load double, ptr %a
  %b = getelementptr inbounds { double, double }, ptr %zp, i64 2
  %y = load double, ptr %b
  %r = call double (ptr, ...) @__ad_derivative(ptr @g, double %x, double %y, double 1.0, double 0.0)
  ret double %r
}

define double @whole(ptr %zp) {
  %re.p = getelementptr inbounds { double, double }, ptr %zp, i32 0, i32 0
  %re = load double, ptr %re.p
  %im.p = getelementptr inbounds { double, double }, ptr %zp, i32 0, i32 1
  %im = load double, ptr %im.p
  %r = call double (ptr, ...) @__ad_derivative(ptr @g, double %re, double %im, double 1.0, double 0.0)
  ret double %r
}
