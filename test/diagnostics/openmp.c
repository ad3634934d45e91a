// An OpenMP parallel region in the differentiated function is an error that
// names it. The error named '__kmpc_fork_call' as a function without a
// body and suggested AD_INACTIVE, which would drop the region's derivative
// (found by a probe).
// RUN: not %adcc -O0 -fopenmp -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %adcc -O2 -fopenmp -c %s -o /dev/null 2>&1 | FileCheck %s
// clang-format off
// CHECK: error: cannot differentiate an OpenMP parallel region ('__kmpc_fork_call'): not supported; keep the parallel loop outside the differentiated function, or compile this file without -fopenmp
// CHECK-NOT: AD_INACTIVE
// clang-format on
#include <ad.h>

double sum_squares(const double *x, int n) {
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return s;
}

void grad(const double *x, double *g, int n) {
  __ad_gradient(sum_squares, x, g, n);
}
