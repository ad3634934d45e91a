// Eigen's vectorised exp at -O0 without SSE4.1: its rounding adds and
// subtracts 2^52 in calls of their own, with the barrier between them, so
// the barrier is not read as rounding (integration/rounding_barrier.c) and
// stays an error rather than passing the derivative through the rounding.
// From -O1, and with SSE4.1 or AVX, it works (integration/cxx_eigen_exp.cpp).
// REQUIRES: eigen
// RUN: not %adcxx -O0 -I/usr/include/eigen3 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <Eigen/Dense>
#include <ad.h>

double exp_sum(const double *x, int n) {
  Eigen::Map<const Eigen::ArrayXd> v(x, n);
  return v.exp().sum();
}

void grad(const double *x, double *dx, int n) {
  // CHECK: eigen-exp-O0.cpp:[[@LINE+1]]:3: error: cannot differentiate inline assembly (in function '{{.*}}print
  __ad_gradient_void(exp_sum, x, dx, n);
}
