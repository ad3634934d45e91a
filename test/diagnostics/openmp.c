// OpenMP constructs other than worksharing loops ('#pragma omp parallel
// for' with static or dynamic schedules, private, firstprivate, shared and
// reduction(+:...) variables) are an error at their line, each with what
// is supported. Reductions other than + combine by compare-and-swap of the
// value's bits, an error at the reduction.
// REQUIRES: openmp
// RUN: not %adcc -O0 -g -fopenmp -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %adcc -O2 -g -fopenmp -c %s -o /dev/null 2>&1 | FileCheck %s
// clang-format off
// CHECK-DAG: openmp.c:[[@LINE+13]]:{{[0-9]+}}: error: cannot differentiate the OpenMP construct 'critical' in a parallel region: only worksharing loops
// CHECK-DAG: openmp.c:[[@LINE+23]]:{{[0-9]+}}: error: cannot differentiate the OpenMP construct 'barrier' in a parallel region
// CHECK-DAG: openmp.c:[[@LINE+38]]:{{[0-9]+}}: error: cannot differentiate
// CHECK-DAG: openmp.c:[[@LINE+48]]:{{[0-9]+}}: error: cannot differentiate the OpenMP construct 'single' in a parallel region
// CHECK-DAG: openmp.c:[[@LINE+60]]:{{[0-9]+}}: error: cannot differentiate the OpenMP construct '{{task|taskwait}}' in a parallel region
// CHECK-NOT: AD_INACTIVE
// clang-format on
#include <ad.h>

double crit(const double *x, int n) {
  double s = 0;
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
#pragma omp critical
    s += x[i] * x[i];
  }
  return s;
}

void g1(const double *x, double *g, int n) { __ad_gradient(crit, x, g, n); }

double two_loops(const double *x, double *y, int n) {
#pragma omp parallel
  {
#pragma omp for
    for (int i = 0; i < n; i++)
      y[i] = x[i] * x[i];
#pragma omp for
    for (int i = 0; i < n; i++)
      y[i] += x[i];
  }
  return y[0];
}

void g2(const double *x, double *g, double *y, double *dy, int n) {
  __ad_gradient(two_loops, x, g, y, dy, n);
}

double product(const double *x, int n) {
  double p = 1;
#pragma omp parallel for reduction(* : p)
  for (int i = 0; i < n; i++)
    p *= x[i];
  return p;
}

void g3(const double *x, double *g, int n) { __ad_gradient(product, x, g, n); }

double single(const double *x, double *y, int n) {
#pragma omp parallel
  {
#pragma omp single
    y[0] = x[0] * x[0];
  }
  return y[0];
}

void g4(const double *x, double *g, double *y, double *dy, int n) {
  __ad_gradient(single, x, g, y, dy, n);
}

double tasks(const double *x, double *y, int n) {
#pragma omp parallel
  {
#pragma omp task
    y[0] = x[0] * x[1];
  }
  return y[0];
}

void g5(const double *x, double *g, double *y, double *dy, int n) {
  __ad_gradient(tasks, x, g, y, dy, n);
}
