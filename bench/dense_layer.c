// One dense layer with a tanh activation, summed with weights v:
//   f(W, v) = sum_i v_i tanh(sum_j W_ij x_j),  W m x n row-major, m = n = 512,
// x constant (AD_CONST). Gradient w.r.t. W and v:
//   dW_ij = v_i (1 - t_i^2) x_j,  dv_i = t_i,  t_i = tanh((W x)_i).
#include "harness.h"

double dense_layer(const double *W, const double *v, const double *x, int m,
                   int n) {
  double f = 0;
  for (int i = 0; i < m; ++i) {
    double s = 0;
    for (int j = 0; j < n; ++j)
      s += W[(size_t)i * n + j] * x[j];
    f += v[i] * tanh(s);
  }
  return f;
}

/* Row by row: row i of dW needs only t_i, so nothing is kept across rows. */
void dense_layer_grad_hand(const double *W, const double *v, const double *x,
                           int m, int n, double *dW, double *dv) {
  for (int i = 0; i < m; ++i) {
    const double *row = W + (size_t)i * n;
    double s = 0;
    for (int j = 0; j < n; ++j)
      s += row[j] * x[j];
    double t = tanh(s);
    dv[i] = t;
    double c = v[i] * (1 - t * t);
    double *drow = dW + (size_t)i * n;
    for (int j = 0; j < n; ++j)
      drow[j] = c * x[j];
  }
}

typedef struct {
  int m, n;
  double *W, *v, *x;
  double *g_ad, *g_hand; /* dW (m * n), then dv (m) */
} ctx_t;

static size_t grad_len(const ctx_t *c) {
  return (size_t)c->m * c->n + (size_t)c->m;
}

static void run_primal(void *p) {
  ctx_t *c = p;
  do_not_optimize_double(dense_layer(c->W, c->v, c->x, c->m, c->n));
}

static void run_ad(void *p) {
  ctx_t *c = p;
  memset(c->g_ad, 0, grad_len(c) * sizeof(double));
  __ad_gradient_void(dense_layer, c->W, c->g_ad, c->v,
                     c->g_ad + (size_t)c->m * c->n, AD_CONST, c->x, c->m,
                     c->n);
  do_not_optimize(c->g_ad);
}

static void run_hand(void *p) {
  ctx_t *c = p;
  dense_layer_grad_hand(c->W, c->v, c->x, c->m, c->n, c->g_hand,
                        c->g_hand + (size_t)c->m * c->n);
  do_not_optimize(c->g_hand);
}

int main(int argc, char **argv) {
  if (bench_wants_header(argc, argv))
    return 0;
  ctx_t c = {.m = bench_opaque_int(512), .n = bench_opaque_int(512)};
  size_t mn = (size_t)c.m * c.n;
  c.W = bench_alloc(mn);
  c.v = bench_alloc(c.m);
  c.x = bench_alloc(c.n);
  c.g_ad = bench_alloc(grad_len(&c));
  c.g_hand = bench_alloc(grad_len(&c));
  uint64_t seed = 6;
  /* Weights of scale 1/sqrt(n), so that tanh is not saturated. */
  double scale = 1 / sqrt((double)c.n);
  for (size_t i = 0; i < mn; ++i)
    c.W[i] = bench_uniform(&seed, -scale, scale);
  for (int i = 0; i < c.m; ++i)
    c.v[i] = bench_uniform(&seed, -1, 1);
  for (int j = 0; j < c.n; ++j)
    c.x[j] = bench_uniform(&seed, -2, 2);
  /* Per output row; the row-fused hand-written gradient keeps nothing. */
  bench_spec s = {"dense_layer", "512×512", &c, run_primal, run_ad, run_hand,
                  c.g_ad, c.g_hand, grad_len(&c), c.m, 0};
  return bench_row(&s);
}
