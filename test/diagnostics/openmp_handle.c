// A handle (__ad_linearize) of a function with an OpenMP region is an
// error: the handle's tape is replayed any number of times, the region's
// per-thread tapes only once.
// REQUIRES: openmp
// RUN: not %adcc -O0 -fopenmp -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %adcc -O2 -fopenmp -c %s -o /dev/null 2>&1 | FileCheck %s
// clang-format off
// CHECK: error: cannot linearize a function with an OpenMP parallel region into a handle (not supported): use __ad_gradient or __ad_derivative
// clang-format on
#include <ad.h>

double f(const double *x, int n) {
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return s;
}

ad_linear *linearize(const double *x, double *y, int n) {
  return __ad_linearize(f, y, x, n);
}
