// Hessian-vector product, forward over reverse (__ad_derivative of a
// function that calls __ad_gradient), against the gradient alone, for a
// looping function of n = 1000 inputs:
//   f(x) = sum_i (x_{i+1} - x_i)^4 + sin(x_i) x_{i+1}
// Checked against the hand-written (tridiagonal) Hessian times v. Prints
// one line: the median times of f, of the gradient and of the
// Hessian-vector product, and the ratio of the last two (2 to 4 is the
// usual figure). Build and run it like the other kernels:
//   bench/run.sh hvp      (under a header of its own)
// BENCH_OWN_TABLE
#include "harness.h"

void __ad_gradient_void(void *, ...) AD_MARKER;
void __ad_derivative_void(void *, ...) AD_MARKER;

double energy(const double *x, int n) {
  double s = 0;
  for (int i = 0; i + 1 < n; i++) {
    double d = x[i + 1] - x[i];
    s += d * d * d * d + sin(x[i]) * x[i + 1];
  }
  return s;
}

void energy_grad(const double *x, double *g, int n) {
  memset(g, 0, (size_t)n * sizeof(double));
  __ad_gradient_void(energy, x, g, n);
}

static void hand_hvp(const double *x, const double *v, double *hv, int n) {
  memset(hv, 0, (size_t)n * sizeof(double));
  for (int i = 0; i + 1 < n; i++) {
    double d = x[i + 1] - x[i], c = 12 * d * d, dv = v[i + 1] - v[i];
    hv[i] += -c * dv - sin(x[i]) * x[i + 1] * v[i] + cos(x[i]) * v[i + 1];
    hv[i + 1] += c * dv + cos(x[i]) * v[i];
  }
}

typedef struct {
  int n;
  double *x, *v, *g, *gt, *hv, *hv_hand;
} ctx_t;

static void run_primal(void *p) {
  ctx_t *c = p;
  do_not_optimize_double(energy(c->x, c->n));
}

static void run_grad(void *p) {
  ctx_t *c = p;
  energy_grad(c->x, c->g, c->n);
  do_not_optimize(c->g);
}

static void run_hvp(void *p) {
  ctx_t *c = p;
  __ad_derivative_void(energy_grad, c->x, c->v, c->gt, c->hv, c->n);
  do_not_optimize(c->hv);
}

int main(int argc, char **argv) {
  ctx_t c = {.n = bench_opaque_int(1000)};
  c.x = bench_alloc(c.n);
  c.v = bench_alloc(c.n);
  c.g = bench_alloc(c.n);
  c.gt = bench_alloc(c.n);
  c.hv = bench_alloc(c.n);
  c.hv_hand = bench_alloc(c.n);
  uint64_t seed = 11;
  for (int i = 0; i < c.n; ++i) {
    c.x[i] = bench_uniform(&seed, -1, 1);
    c.v[i] = bench_uniform(&seed, -1, 1);
  }
  run_hvp(&c);
  hand_hvp(c.x, c.v, c.hv_hand, c.n);
  size_t worst;
  double err = bench_max_rel_err(c.hv, c.hv_hand, (size_t)c.n, &worst);
  // This row has columns of its own: --header prints their names.
  if (argc > 1 && strcmp(argv[1], "--header") == 0)
    printf("| kernel | n | primal (µs) | gradient (µs) | Hessian-vector "
           "product (µs) | HVP / gradient | max rel err |\n"
           "|---|---|--:|--:|--:|--:|--:|\n");
  if (!(err <= BENCH_TOL)) {
    printf("| hvp | %d | FAIL: max rel err %.3g at %zu | | | | |\n", c.n, err,
           worst);
    return 1;
  }
  bench_fn fns[3] = {run_primal, run_grad, run_hvp};
  double ns[3];
  bench_measure(3, fns, &c, ns);
  printf("| hvp (forward over reverse) | %d | %.2f | %.2f | %.2f | %.2f | %.1e "
         "|\n",
         c.n, ns[0] / 1e3, ns[1] / 1e3, ns[2] / 1e3, ns[2] / ns[1], err);
  return 0;
}
