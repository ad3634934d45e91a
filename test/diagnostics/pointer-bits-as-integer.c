// A pointer kept as an integer (uintptr_t) and turned back into one: its
// load is tagged as an integer's, so it is not read as a pointer with a
// shadow (only loads clang tags as pointers are, PointerBitLoads.cpp), and
// active data stored through it stays an error.
// RUN: not %adcc -O1 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %adcc -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <ad.h>
#include <stdint.h>

__attribute__((noinline)) static double put(uintptr_t *slot, double v) {
  double *q = (double *)*slot;
  *q = v * v;
  return q[0] + v;
}

double f(double x) {
  double buf[2] = {0, 0};
  uintptr_t slot = (uintptr_t)buf;
  return put(&slot, x) + buf[0];
}

double df(double x) {
  // CHECK: pointer-bits-as-integer.c:[[@LINE+1]]:10: error: cannot differentiate: an active value is stored into memory without a shadow (a pointer made from an integer
  return __ad_derivative(f, x, 1.0);
}
