// BENCH_CFLAGS: -fopenmp
// sum_i x_i log x_i (negative entropy, the regulariser of entropic optimal
// transport and of mirror descent on the simplex) over a '#pragma omp
// parallel for' with reduction(+:s), n = 4 * 10^6, x_i in (0.01, 1). Each
// iteration reads its own x_i only, so the reverse pass adds into shadow
// cells no other iteration touches, without atomics. Gradient:
// g_i = log x_i + 1. Run with OMP_NUM_THREADS=1 and 2 to compare the
// speedups of f and of its gradient.
#include "harness.h"

double omp_entropy(const double *x, int n) {
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; ++i)
    s += x[i] * log(x[i]);
  return s;
}

void omp_entropy_grad_hand(const double *x, double *g, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; ++i)
    g[i] = log(x[i]) + 1;
}

BENCH_VECTOR_GRADIENT(omp_entropy, omp_entropy_grad_hand, "omp_entropy",
                      4000000, "4*10^6", 1, 0.01, 1, 0)
