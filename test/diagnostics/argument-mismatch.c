// The argument list must match the parameters of the function: count, types
// (after C's default promotions), a shadow after each pointer, and a tangent
// after each active argument in forward mode.
// RUN: not %adcc -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %adcc -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <ad.h>

double f(double x, double y) { return x * y; }
double g(double *p) { return *p; }

double use(double x, double y, double *p) {
  double r = 0;
  // CHECK: argument-mismatch.c:[[@LINE+1]]:8: error: __ad_gradient: too few arguments: 'f' has more parameters (missing the value for parameter 2)
  r += __ad_gradient(f, x);
  // CHECK: argument-mismatch.c:[[@LINE+1]]:8: error: __ad_gradient: too many arguments: 'f' takes 2 parameter(s)
  r += __ad_gradient(f, x, y, y);
  // CHECK: argument-mismatch.c:[[@LINE+1]]:8: error: __ad_gradient: the value for parameter 2 of 'f' must be double, but int was passed (an integer literal such as 2 is passed as an int: write 2.0)
  r += __ad_gradient(f, x, AD_CONST, 2);
  // CHECK: argument-mismatch.c:[[@LINE+1]]:8: error: __ad_derivative: too few arguments: 'f' has more parameters (missing the tangent for parameter 2)
  r += __ad_derivative(f, x, 1.0, y);
  // CHECK: argument-mismatch.c:[[@LINE+1]]:8: error: __ad_derivative: too many arguments: 'f' takes 2 parameter(s), each active one followed by its tangent
  r += __ad_derivative(f, x, 1.0, y, 0.0, 0.0);
  // CHECK: argument-mismatch.c:[[@LINE+1]]:8: error: __ad_gradient: too few arguments: 'g' has more parameters (missing the shadow for parameter 1)
  r += __ad_gradient(g, p);
  // CHECK: argument-mismatch.c:[[@LINE+1]]:8: error: __ad_gradient: the shadow for parameter 1 of 'g' must be a pointer, but double was passed
  r += __ad_gradient(g, p, x);
  // CHECK: argument-mismatch.c:[[@LINE+1]]:8: error: __ad_gradient: AD_DUP precedes parameter 1 of 'f', which is not a pointer
  r += __ad_gradient(f, AD_DUP, x, y);
  // A tag after the pointer it was meant for is taken as its shadow.
  // CHECK: argument-mismatch.c:[[@LINE+1]]:8: error: __ad_gradient: AD_CONST was passed as the shadow for parameter 1 of 'g'; a tag goes right before the argument it marks (AD_CONST, p)
  r += __ad_gradient(g, p, AD_CONST);
  // CHECK: argument-mismatch.c:[[@LINE+1]]:8: error: __ad_gradient: AD_CONST was passed as the value for parameter 2 of 'f'; a tag goes right before the argument it marks (AD_CONST, p)
  r += __ad_gradient(f, x, AD_CONST, AD_CONST, y);
  return r;
}
