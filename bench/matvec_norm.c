// ||A x||_2 with A a constant n x n matrix (row-major, AD_CONST), n = 1000.
// y = A x goes to a caller-provided work vector. Gradient w.r.t. x:
// A^T y / ||y||.
#include "harness.h"

double matvec_norm(const double *A, const double *x, double *y, int n) {
  for (int i = 0; i < n; ++i) {
    double s = 0;
    for (int j = 0; j < n; ++j)
      s += A[(size_t)i * n + j] * x[j];
    y[i] = s;
  }
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += y[i] * y[i];
  return sqrt(s);
}

void matvec_norm_grad_hand(const double *A, const double *x, double *y,
                           double *g, int n) {
  double r = matvec_norm(A, x, y, n);
  for (int j = 0; j < n; ++j)
    g[j] = 0;
  for (int i = 0; i < n; ++i) {
    double w = y[i] / r;
    for (int j = 0; j < n; ++j)
      g[j] += A[(size_t)i * n + j] * w;
  }
}

typedef struct {
  int n;
  double *A, *x, *y, *dy, *g_ad, *g_hand;
} ctx_t;

static void run_primal(void *p) {
  ctx_t *c = p;
  do_not_optimize_double(matvec_norm(c->A, c->x, c->y, c->n));
}

// y is written by matvec_norm, so it needs a shadow; its final contents are
// not an output here, so their cotangent (dy on entry) is zero.
static void run_ad(void *p) {
  ctx_t *c = p;
  memset(c->g_ad, 0, (size_t)c->n * sizeof(double));
  memset(c->dy, 0, (size_t)c->n * sizeof(double));
  __ad_gradient_void(matvec_norm, AD_CONST, c->A, c->x, c->g_ad, c->y, c->dy,
                     c->n);
  do_not_optimize(c->g_ad);
}

static void run_hand(void *p) {
  ctx_t *c = p;
  matvec_norm_grad_hand(c->A, c->x, c->y, c->g_hand, c->n);
  do_not_optimize(c->g_hand);
}

int main(int argc, char **argv) {
  if (bench_wants_header(argc, argv))
    return 0;
  ctx_t c = {.n = bench_opaque_int(1000)};
  size_t n = (size_t)c.n;
  c.A = bench_alloc(n * n);
  c.x = bench_alloc(n);
  c.y = bench_alloc(n);
  c.dy = bench_alloc(n);
  c.g_ad = bench_alloc(n);
  c.g_hand = bench_alloc(n);
  uint64_t seed = 5;
  for (size_t i = 0; i < n * n; ++i)
    c.A[i] = bench_uniform(&seed, -1, 1);
  for (size_t i = 0; i < n; ++i)
    c.x[i] = bench_uniform(&seed, -1, 1);
  bench_spec s = {"matvec_norm", "1000 (A: 1000×1000)", &c, run_primal, run_ad,
                  run_hand, c.g_ad, c.g_hand, n,
                  (double)n * n, 0}; /* per element of A */
  return bench_row(&s);
}
