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

typedef struct {
  int n;
  double *x, *g_ad, *g_hand;
} ctx_t;

static void run_primal(void *p) {
  ctx_t *c = p;
  do_not_optimize_double(logsumexp(c->x, c->n));
}

static void run_ad(void *p) {
  ctx_t *c = p;
  memset(c->g_ad, 0, (size_t)c->n * sizeof(double));
  __ad_gradient_void(logsumexp, c->x, c->g_ad, c->n);
  do_not_optimize(c->g_ad);
}

static void run_hand(void *p) {
  ctx_t *c = p;
  logsumexp_grad_hand(c->x, c->g_hand, c->n);
  do_not_optimize(c->g_hand);
}

int main(int argc, char **argv) {
  if (bench_wants_header(argc, argv))
    return 0;
  ctx_t c = {.n = bench_opaque_int(1000000)};
  c.x = bench_alloc(c.n);
  c.g_ad = bench_alloc(c.n);
  c.g_hand = bench_alloc(c.n);
  uint64_t seed = 4;
  for (int i = 0; i < c.n; ++i)
    c.x[i] = bench_uniform(&seed, -10, 10);
  bench_spec s = {"logsumexp", "10^6", &c, run_primal, run_ad, run_hand,
                  c.g_ad, c.g_hand, (size_t)c.n};
  return bench_row(&s);
}
