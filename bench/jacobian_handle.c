// The Jacobian of a map R^64 -> R^64 whose primal work is mostly
// transcendental functions, column by column: once by 64 __ad_derivative
// calls (each runs the primal work again with its tangent), once by one
// __ad_linearize and 64 __ad_jvp calls (the primal work once; each column
// runs only the linear part). The two Jacobians must agree (BENCH_TOL);
// the row reports both times, per Jacobian, and their ratio.
//
//   clang-19 -O2 -fpass-plugin=build/pass/libADPass.so -Iinclude -Ibench \
//       bench/jacobian_handle.c build/runtime/libADRuntime.a -lm \
//       -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free,\
//   --wrap=posix_memalign,--wrap=aligned_alloc -o jacobian_handle
//   ./jacobian_handle
// BENCH_OWN_TABLE
#include "harness.h"

enum { N = 64 };

// Each output mixes three neighbours through exp, sin, log1p, atan and
// tanh: about a dozen libm calls per output, a few multiplications per
// partial derivative.
void model(const double *x, double *y, int n) {
  for (int i = 0; i < n; ++i) {
    double a = x[i], b = x[(i + 1) % n], c = x[(i + n - 1) % n];
    double u = exp(sin(a) * cos(b)) + log1p(a * a + c * c);
    double v = atan(b - c) * tanh(0.5 * a + 0.25 * c);
    double w = sqrt(1.0 + exp(-a * b)) * cos(u - v);
    y[i] = u * v + w + sin(w * c);
  }
}

typedef struct {
  double *x, *jac_fwd, *jac_handle;
} jac_ctx;

static void run_primal(void *p) {
  jac_ctx *c = p;
  double y[N];
  model(c->x, y, bench_opaque_int(N));
  do_not_optimize(y);
}

static void run_derivatives(void *p) {
  jac_ctx *c = p;
  int n = bench_opaque_int(N);
  for (int j = 0; j < n; ++j) {
    double e[N] = {0}, y[N];
    e[j] = 1;
    __ad_derivative_void(model, c->x, e, y, c->jac_fwd + j * N, n);
  }
  do_not_optimize(c->jac_fwd);
}

static void run_handle(void *p) {
  jac_ctx *c = p;
  int n = bench_opaque_int(N);
  double y[N];
  ad_linear *L = __ad_linearize(model, c->x, y, n);
  for (int j = 0; j < n; ++j) {
    double e[N] = {0};
    e[j] = 1;
    __ad_jvp_void(model, L, c->x, e, y, c->jac_handle + j * N, n);
  }
  ad_linear_free(L);
  do_not_optimize(c->jac_handle);
}

int main(int argc, char **argv) {
  jac_ctx c = {bench_alloc(N), bench_alloc(N * N), bench_alloc(N * N)};
  uint64_t seed = 11;
  for (int i = 0; i < N; ++i)
    c.x[i] = bench_uniform(&seed, -1.5, 1.5);
  run_derivatives(&c);
  run_handle(&c);
  size_t worst = 0;
  double err = bench_max_rel_err(c.jac_handle, c.jac_fwd, N * N, &worst);
  // This row has columns of its own: --header prints their names.
  if (argc > 1 && strcmp(argv[1], "--header") == 0)
    printf("| kernel | n | primal (µs) | 64 x __ad_derivative (µs) | "
           "__ad_linearize + 64 x __ad_jvp (µs) | handle / derivative | "
           "max rel err |\n|---|---|--:|--:|--:|--:|--:|\n");
  if (!(err <= BENCH_TOL)) {
    printf("| jacobian_handle | 64 | FAIL: Jacobians differ at %zu (%.2e) "
           "| | | | |\n",
           worst, err);
    return 1;
  }
  bench_fn fns[3] = {run_primal, run_derivatives, run_handle};
  double ns[3];
  bench_measure(3, fns, &c, ns);
  printf("| jacobian_handle | 64 | %.2f | %.2f | %.2f | %.3f | %.1e |\n",
         ns[0] / 1e3, ns[1] / 1e3, ns[2] / 1e3, ns[2] / ns[1], err);
  return 0;
}
