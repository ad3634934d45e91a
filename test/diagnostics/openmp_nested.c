// The gradient of a function that itself asks for a gradient through an
// OpenMP region is an error: the inner reverse pass keeps a tape per
// thread, which a derivative of it would share between the threads of the
// outer one. (Reverse over forward is supported: integration/openmp_nested.c.)
// REQUIRES: openmp
// RUN: not %adcc -O0 -fopenmp -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %adcc -O2 -fopenmp -c %s -o /dev/null 2>&1 | FileCheck %s
// clang-format off
// CHECK: error: cannot differentiate a gradient of a function with an OpenMP parallel region (not supported): its reverse pass keeps a tape per thread; differentiate a forward derivative (__ad_derivative) of it instead
// clang-format on
#include <ad.h>

double f(const double *x, int n) {
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += x[i] * x[i] * x[i];
  return s;
}

double gv(const double *x, const double *v, double *g, int n) {
  for (int i = 0; i < n; i++)
    g[i] = 0;
  __ad_gradient(f, x, g, n);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += g[i] * v[i];
  return s;
}

void hvp(const double *x, double *h, const double *v, double *dv, double *g,
         double *dg, int n) {
  __ad_gradient(gv, x, h, v, dv, g, dg, n);
}
