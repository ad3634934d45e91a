// Extended Rosenbrock function (Moré, Garbow & Hillstrom 1981, problem 21),
// n = 10^6 (n even):
//   f(x) = sum_{i even} 100 (x_{i+1} - x_i^2)^2 + (1 - x_i)^2
#include "harness.h"

double rosenbrock(const double *x, int n) {
  double f = 0;
  for (int i = 0; i < n; i += 2) {
    double a = 1 - x[i];
    double b = x[i + 1] - x[i] * x[i];
    f += a * a + 100 * b * b;
  }
  return f;
}

void rosenbrock_grad_hand(const double *x, double *g, int n) {
  for (int i = 0; i < n; i += 2) {
    double a = 1 - x[i];
    double b = x[i + 1] - x[i] * x[i];
    g[i] = -2 * a - 400 * x[i] * b;
    g[i + 1] = 200 * b;
  }
}

typedef struct {
  int n;
  double *x, *g_ad, *g_hand;
} ctx_t;

static void run_primal(void *p) {
  ctx_t *c = p;
  do_not_optimize_double(rosenbrock(c->x, c->n));
}

static void run_ad(void *p) {
  ctx_t *c = p;
  memset(c->g_ad, 0, (size_t)c->n * sizeof(double));
  __ad_gradient_void(rosenbrock, c->x, c->g_ad, c->n);
  do_not_optimize(c->g_ad);
}

static void run_hand(void *p) {
  ctx_t *c = p;
  rosenbrock_grad_hand(c->x, c->g_hand, c->n);
  do_not_optimize(c->g_hand);
}

int main(int argc, char **argv) {
  if (bench_wants_header(argc, argv))
    return 0;
  ctx_t c = {.n = bench_opaque_int(1000000)};
  c.x = bench_alloc(c.n);
  c.g_ad = bench_alloc(c.n);
  c.g_hand = bench_alloc(c.n);
  uint64_t seed = 3;
  for (int i = 0; i < c.n; ++i)
    c.x[i] = bench_uniform(&seed, -2, 2);
  bench_spec s = {"rosenbrock", "10^6", &c, run_primal, run_ad, run_hand,
                  c.g_ad, c.g_hand, (size_t)c.n};
  return bench_row(&s);
}
