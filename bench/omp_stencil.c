// BENCH_CFLAGS: -fopenmp
// sum_{i=1}^{n-2} sin(x_i) (x_{i-1} + x_{i+1}) over a '#pragma omp parallel
// for' with reduction(+:s), n = 4 * 10^6. The reverse pass adds into the
// shadows of three neighbours per iteration from every thread (atomically).
// Gradient: g_j = cos(x_j) (x_{j-1} + x_{j+1}) + sin(x_{j-1}) + sin(x_{j+1}),
// the terms whose i lies in [1, n-2]. Run with OMP_NUM_THREADS=1 and 2 to
// compare the speedups of f and of its gradient.
#include "harness.h"

double omp_stencil(const double *x, int n) {
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 1; i < n - 1; ++i)
    s += sin(x[i]) * (x[i - 1] + x[i + 1]);
  return s;
}

void omp_stencil_grad_hand(const double *x, double *g, int n) {
#pragma omp parallel for
  for (int j = 0; j < n; ++j) {
    double gj = 0;
    if (j >= 1 && j <= n - 2)
      gj += cos(x[j]) * (x[j - 1] + x[j + 1]);
    if (j - 1 >= 1)
      gj += sin(x[j - 1]);
    if (j + 1 <= n - 2)
      gj += sin(x[j + 1]);
    g[j] = gj;
  }
}

BENCH_VECTOR_GRADIENT(omp_stencil, omp_stencil_grad_hand, "omp_stencil",
                      4000000, "4*10^6", 1, -1, 1, 0)
