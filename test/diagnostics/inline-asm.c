// Inline assembly is refused, except the SSE packed min and max Eigen
// writes (integration/cxx_eigen_minmax.cpp) and its rounding barrier
// (integration/rounding_barrier.c), recognised by their exact
// text: the scalar minsd (which keeps the destination's upper lane), a
// string holding more than the one instruction, and any other instruction
// stay errors.
// RUN: not %adcc -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %adcc -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <ad.h>

typedef double v2d __attribute__((vector_size(16)));

double scalar_min(double x, double y) {
  v2d a = {x, 0}, r = {y, 0};
  __asm__("minsd %[a], %[r]" : [r] "+x"(r) : [a] "x"(a));
  return r[0];
}

double min_then_max(double x, double y) {
  v2d a = {x, x}, r = {y, y};
  __asm__("minpd %[a], %[r]\n\tmaxpd %[a], %[r]" : [r] "+x"(r) : [a] "x"(a));
  return r[0];
}

// Rounding by 2^52 behind a barrier is read as rounding only for an
// addend that cannot be negative (integration/rounding_barrier.c): for
// x < 0 the sum does not round to an integer.
double signed_rounding(double x) {
  double r = x + 4503599627370496.0;
  __asm__("" : "+g,x"(r));
  return r - 4503599627370496.0;
}

double other(double x) {
  __asm__("addsd %1, %0" : "+x"(x) : "x"(x));
  return x;
}

double use(double x, double y) {
  // CHECK: inline-asm.c:[[@LINE+1]]:14: error: cannot differentiate inline assembly
  double a = __ad_gradient(scalar_min, x, AD_CONST, y);
  // CHECK: inline-asm.c:[[@LINE+1]]:14: error: cannot differentiate inline assembly
  double b = __ad_gradient(min_then_max, x, AD_CONST, y);
  // CHECK: inline-asm.c:[[@LINE+1]]:14: error: cannot differentiate inline assembly
  double c = __ad_derivative(other, x, 1.0);
  // CHECK: inline-asm.c:[[@LINE+1]]:14: error: cannot differentiate inline assembly
  double d = __ad_gradient(signed_rounding, x);
  return a + b + c + d;
}
