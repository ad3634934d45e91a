// Variable-length arrays and alloca() of a run-time size in differentiated
// code: at function scope, in a loop body (one array per iteration, given
// back by the stack restore at the end of its scope), nested scopes, a 2-D
// VLA, an over-aligned VLA, alloca() in one branch only, a scope left early
// by a return, alloca() filled by memcpy, and a callee with a VLA called in
// a loop. The shadow of such an array is heap memory of the same size,
// freed where the array's storage is given back (forward mode), or where
// the reverse pass is done with it. Gradients and forward-mode derivatives
// against central finite differences, and no heap memory left behind.
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O3 -march=native %s -o %t.O3 %adlibs && %t.O3

#include "ad.h"
#include "adkernel.h"
#include <malloc.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define N 7

double vla_basic(const double *x, int n) {
  double w[n];
  for (int i = 0; i < n; i++)
    w[i] = sin(x[i]) * x[i];
  double s = 0;
  for (int i = 0; i < n; i++)
    s += w[i] * w[n - 1 - i];
  return s;
}

double alloca_basic(const double *x, int n) {
  double *w = __builtin_alloca(n * sizeof *w);
  for (int i = 0; i < n; i++)
    w[i] = exp(x[i] / 3);
  double s = 0;
  for (int i = 1; i < n; i++)
    s += w[i] * w[i - 1];
  return s;
}

// A fresh array of k elements per iteration.
double vla_in_loop(const double *x, int n) {
  double s = 0;
  for (int k = 1; k <= n; k++) {
    double w[k];
    for (int i = 0; i < k; i++)
      w[i] = x[i] * (k + i);
    for (int i = 0; i < k; i++)
      s += w[i] * w[k - 1 - i] / (k * k);
  }
  return s;
}

// An array for the whole function and one per iteration inside it.
double vla_nested(const double *x, int n) {
  double acc[n];
  for (int i = 0; i < n; i++)
    acc[i] = cos(x[i]);
  double s = 0;
  for (int k = 2; k <= n; k++) {
    double w[k];
    for (int i = 0; i < k; i++)
      w[i] = acc[i] * x[k - 1 - i];
    for (int i = 0; i < k; i++)
      s += w[i] * acc[(i + k) % n];
  }
  return s;
}

double vla_2d(const double *x, int n) {
  int m = 3;
  double a[n][m];
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      a[i][j] = x[i] * (j + 1) + x[(i + j) % n];
  double s = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      s += a[i][j] * a[n - 1 - i][m - 1 - j];
  return s;
}

double vla_aligned(const double *x, int n) {
  double w[n] __attribute__((aligned(64)));
  if ((uintptr_t)w % 64)
    abort();
  for (int i = 0; i < n; i++)
    w[i] = x[i] * x[i];
  double s = 0;
  for (int i = 0; i < n; i++)
    s += w[i] * x[n - 1 - i];
  return s;
}

// alloca() only when x[0] > 0: the other path reaches the return without
// it.
double alloca_in_branch(const double *x, int n) {
  double s = x[1] * x[1];
  if (x[0] > 0) {
    double *w = __builtin_alloca(n * sizeof *w);
    for (int i = 0; i < n; i++)
      w[i] = x[i] * s;
    for (int i = 0; i < n; i++)
      s += w[i] * w[(i + 2) % n];
  }
  return s;
}

// The scope of w is left by a return from inside it, or at its end.
double vla_early_return(const double *x, int n) {
  double s = 0;
  for (int k = 2; k <= n; k++) {
    double w[k];
    for (int i = 0; i < k; i++)
      w[i] = x[i] * x[k - 1 - i];
    for (int i = 0; i < k; i++)
      s += w[i];
    if (s > 4.0)
      return s * s;
  }
  return s;
}

double alloca_memcpy(const double *x, int n) {
  double *w = __builtin_alloca(n * sizeof *w);
  memcpy(w, x, n * sizeof *w);
  for (int i = 0; i < n; i++)
    w[i] = w[i] * w[(i + 1) % n];
  double s = 0;
  for (int i = 0; i < n; i++)
    s += (i + 1) * w[i];
  return s;
}

__attribute__((noinline)) static double smooth(const double *x, int n, int k) {
  double w[n];
  for (int i = 0; i < n; i++)
    w[i] = x[i] * x[(i + k) % n];
  double s = 0;
  for (int i = 0; i < n; i++)
    s += w[i] * w[(i + 1) % n];
  return sqrt(s);
}

double callee_in_loop(const double *x, int n) {
  double s = 0;
  for (int k = 0; k < n; k++)
    s += smooth(x, n, k) * (k + 1);
  return s;
}

#define CHECK(f, x0) ad_check_kernel(#f, N, x0, f, grad_##f, deriv_##f)

AD_KERNEL_REQUESTS(vla_basic)
AD_KERNEL_REQUESTS(alloca_basic)
AD_KERNEL_REQUESTS(vla_in_loop)
AD_KERNEL_REQUESTS(vla_nested)
AD_KERNEL_REQUESTS(vla_2d)
AD_KERNEL_REQUESTS(vla_aligned)
AD_KERNEL_REQUESTS(alloca_in_branch)
AD_KERNEL_REQUESTS(vla_early_return)
AD_KERNEL_REQUESTS(alloca_memcpy)
AD_KERNEL_REQUESTS(callee_in_loop)

int main(void) {
  static const double x0[N] = {0.7, -1.3, 1.1, 0.45, -0.6, 1.15, -0.85};
  static const double neg[N] = {-0.7, -1.3, 1.1, 0.45, -0.6, 1.15, -0.85};
  static const double big[N] = {1.7, 1.3, 1.1, 0.45, 0.6, 1.15, 0.85};
  CHECK(vla_basic, x0);
  CHECK(alloca_basic, x0);
  CHECK(vla_in_loop, x0);
  CHECK(vla_nested, x0);
  CHECK(vla_2d, x0);
  CHECK(vla_aligned, x0);
  CHECK(alloca_in_branch, x0);
  CHECK(alloca_in_branch, neg);
  CHECK(vla_early_return, x0);
  CHECK(vla_early_return, big);
  CHECK(alloca_memcpy, x0);
  CHECK(callee_in_loop, x0);
  return ad_finish();
}
