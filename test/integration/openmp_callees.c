// A region's body that calls a function taking pointers (not inlined): the
// function's reverse pass adds into neighbouring shadow cells and into the
// shadow of a shared scalar from every thread, so it accumulates
// atomically too, even when an earlier request in this file derived it for
// sequential code first (then it lost updates of the scalar's shadow).
//
// REQUIRES: openmp
// clang-format off
// RUN: %adcc -O0 -fopenmp %s -o %t.O0 %adlibs && env OMP_NUM_THREADS=1 %t.O0 && env OMP_NUM_THREADS=4 %t.O0
// RUN: %adcc -O2 -fopenmp %s -o %t.O2 %adlibs && env OMP_NUM_THREADS=4 %t.O2
// clang-format on

#include "ad.h"
#include "adcheck.h"
#include <stdlib.h>

#define N 100000

__attribute__((noinline)) double neighbours(const double *x, const double *p,
                                            int i) {
  return (x[i - 1] * x[i + 1] + sin(x[i])) * *p;
}

double sequential(const double *x, const double *p, int n) {
  double s = 0;
  for (int i = 1; i < n - 1; i++)
    s += neighbours(x, p, i);
  return s;
}

double parallel(const double *x, const double *p, int n) {
  double s = 0;
#pragma omp parallel for schedule(static, 1) reduction(+ : s)
  for (int i = 1; i < n - 1; i++)
    s += neighbours(x, p, i);
  return s;
}

static const double P = 1.25;

static double d_sum(const double *x, int n, int j) {
  double g = 0;
  if (j + 1 <= n - 2)
    g += x[j + 2]; // term j+1 reads x[j] as its left neighbour
  if (j - 1 >= 1)
    g += x[j - 2]; // term j-1 reads x[j] as its right neighbour
  if (j >= 1 && j <= n - 2)
    g += cos(x[j]);
  return g * P;
}

int main(void) {
  double *x = malloc(N * sizeof *x), *g = calloc(N, sizeof *g);
  for (int i = 0; i < N; i++)
    x[i] = 0.7 * sin(0.13 * i) + 0.2;
  double p = P, dp = 0, dp_want = sequential(x, &(double){1}, N);
  __ad_gradient(sequential, x, g, &p, &dp, N);
  double max_err = 0;
  for (int j = 0; j < N; j++)
    max_err = fmax(max_err, fabs(g[j] - d_sum(x, N, j)));
  ad_check("sequential every component", max_err, 0, 0, 1e-12);
  ad_check("sequential d/dp", dp, dp_want, 1e-12, 0);
  double dp_err = 0;
  for (int rep = 0; rep < 40; rep++) {
    memset(g, 0, N * sizeof *g);
    dp = 0;
    __ad_gradient(parallel, x, g, &p, &dp, N);
    for (int j = 0; j < N; j++)
      max_err = fmax(max_err, fabs(g[j] - d_sum(x, N, j)));
    dp_err = fmax(dp_err, fabs(dp - dp_want) / fabs(dp_want));
  }
  ad_check("parallel every component, repeated", max_err, 0, 0, 1e-12);
  ad_check("parallel d/dp, repeated", dp_err, 0, 0, 1e-12);
  static const int Probes[] = {0, 1, 2, 3, 4000, N - 2, N - 1};
  for (unsigned k = 0; k < sizeof Probes / sizeof *Probes; k++) {
    int j = Probes[k];
    ad_deriv(ad_fmt("parallel d/dx[%d]", j), g[j], d_sum(x, N, j),
             AD_FD(x[j], parallel(x, &p, N)),
             (ad_tol){1e-9, 1e-12, 1e-6, 1e-6});
  }
  free(x), free(g);
  return ad_finish();
}
