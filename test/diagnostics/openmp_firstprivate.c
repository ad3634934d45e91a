// A firstprivate variable whose value carries a derivative is an error at
// the region: the fork passes it as the bits of an integer, which no
// tangent follows (the derivative with respect to p came out 0). A shared
// variable, or a firstprivate pointer, is passed with its shadow.
// REQUIRES: openmp
// RUN: not %adcc -O0 -g -fopenmp -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %adcc -O2 -g -fopenmp -c %s -o /dev/null 2>&1 | FileCheck %s
// clang-format off
// CHECK: openmp_firstprivate.c:[[@LINE+7]]:{{[0-9]+}}: error: cannot differentiate this OpenMP parallel region: a variable passed to it by value (firstprivate) carries a derivative (not supported); make it shared
// clang-format on
#include <ad.h>

double scaled_sum(const double *x, const double *p, int n) {
  double a = *p * 2, s = 0;
  // The region's fork.
#pragma omp parallel for firstprivate(a) reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += a * x[i];
  return s;
}

void grad(const double *x, double *g, const double *p, double *dp, int n) {
  __ad_gradient(scaled_sum, x, g, p, dp, n);
}
