// sum_i x_i^2, n = 10^6. Gradient: 2 x.
#include "harness.h"

double sumsq(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += x[i] * x[i];
  return s;
}

void sumsq_grad_hand(const double *x, double *g, int n) {
  for (int i = 0; i < n; ++i)
    g[i] = 2 * x[i];
}

// The same under ADPass's contract: adds into g, which the caller zeroes.
void sumsq_grad_hand_acc(const double *x, double *g, int n) {
  for (int i = 0; i < n; ++i)
    g[i] += 2 * x[i];
}

BENCH_VECTOR_GRADIENT_ACC(sumsq, sumsq_grad_hand, sumsq_grad_hand_acc, "sumsq",
                          1000000, "10^6", 1, -1, 1, 0)
