// dot(x, c) = sum_i x_i c_i with c held constant (AD_CONST), n = 10^6.
// Gradient: c.
#include "harness.h"

double dot(const double *x, const double *c, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += x[i] * c[i];
  return s;
}

void dot_grad_hand(const double *c, double *g, int n) {
  for (int i = 0; i < n; ++i)
    g[i] = c[i];
}

// The same under ADPass's contract: adds into g, which the caller zeroes.
void dot_grad_hand_acc(const double *c, double *g, int n) {
  for (int i = 0; i < n; ++i)
    g[i] += c[i];
}

typedef struct {
  int n;
  double *x, *c, *g_ad, *g_hand, *g_hand_acc;
} ctx_t;

static void run_primal(void *p) {
  ctx_t *c = p;
  do_not_optimize_double(dot(c->x, c->c, c->n));
}

static void run_ad(void *p) {
  ctx_t *c = p;
  double *x = c->x, *w = c->c, *g = c->g_ad;
  int n = c->n;
  memset(g, 0, (size_t)n * sizeof(double));
  __ad_gradient_void(dot, x, g, AD_CONST, w, n);
  do_not_optimize(g);
}

static void run_hand(void *p) {
  ctx_t *c = p;
  dot_grad_hand(c->c, c->g_hand, c->n);
  do_not_optimize(c->g_hand);
}

static void run_hand_acc(void *p) {
  ctx_t *c = p;
  double *w = c->c, *g = c->g_hand_acc;
  int n = c->n;
  memset(g, 0, (size_t)n * sizeof(double));
  dot_grad_hand_acc(w, g, n);
  do_not_optimize(g);
}

int main(int argc, char **argv) {
  if (bench_wants_header(argc, argv))
    return 0;
  ctx_t c = {.n = bench_opaque_int(1000000)};
  c.x = bench_alloc(c.n);
  c.c = bench_alloc(c.n);
  c.g_ad = bench_alloc(c.n);
  c.g_hand = bench_alloc(c.n);
  c.g_hand_acc = bench_alloc(c.n);
  uint64_t seed = 2;
  for (int i = 0; i < c.n; ++i) {
    c.x[i] = bench_uniform(&seed, -1, 1);
    c.c[i] = bench_uniform(&seed, -1, 1);
  }
  bench_spec s = {"dot", "10^6", &c, run_primal, run_ad, run_hand,
                  c.g_ad, c.g_hand, (size_t)c.n, c.n, 0};
  s.hand_acc_grad = run_hand_acc;
  s.hand_acc_out = c.g_hand_acc;
  return bench_row(&s);
}
