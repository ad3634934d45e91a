// A thrown object reaches its handler through the C++ runtime, which does
// not carry a derivative: throwing a value that has one is an error at the
// throw, in both modes (a catch that used it would get a constant).
// RUN: not %adcxx -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %adcxx -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <ad.h>

double clipped(double x) {
  try {
    if (x > 1)
      // CHECK: thrown-derivative.cpp:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate: an active value is stored into memory without a shadow (the object of a throw expression: a thrown value cannot carry a derivative; throw a value without one (an error code, a message) and pass derivatives outside the exception)
      throw x * 2.0;
    return x * x;
  } catch (double e) {
    return e * 3;
  }
}

double gradient(double x) { return __ad_gradient(clipped, x); }
double tangent(double x) { return __ad_derivative(clipped, x, 1.0); }
