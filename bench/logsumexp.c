// log(sum_i exp(x_i)), computed stably with the max trick, n = 10^6.
// Gradient: softmax(x).
#include "harness.h"

double logsumexp(const double *x, int n) {
  double m = x[0];
  for (int i = 1; i < n; ++i)
    if (x[i] > m)
      m = x[i];
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += exp(x[i] - m);
  return m + log(s);
}

// One exp per element: store exp(x_i - m) in g, then scale by 1/s.
void logsumexp_grad_hand(const double *x, double *g, int n) {
  double m = x[0];
  for (int i = 1; i < n; ++i)
    if (x[i] > m)
      m = x[i];
  double s = 0;
  for (int i = 0; i < n; ++i) {
    g[i] = exp(x[i] - m);
    s += g[i];
  }
  double r = 1 / s;
  for (int i = 0; i < n; ++i)
    g[i] *= r;
}

// The same under ADPass's contract: adds into g, which the caller zeroes.
// g cannot hold exp(x_i - m) while s is summed, and keeping it elsewhere
// would take n doubles of scratch: exp is computed twice per element, as
// ADPass's gradient does.
void logsumexp_grad_hand_acc(const double *x, double *g, int n) {
  double m = x[0];
  for (int i = 1; i < n; ++i)
    if (x[i] > m)
      m = x[i];
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += exp(x[i] - m);
  double r = 1 / s;
  for (int i = 0; i < n; ++i)
    g[i] += exp(x[i] - m) * r;
}

BENCH_VECTOR_GRADIENT_ACC(logsumexp, logsumexp_grad_hand,
                          logsumexp_grad_hand_acc, "logsumexp", 1000000, "10^6",
                          4, -10, 10, 0)
