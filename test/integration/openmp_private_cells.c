// Reverse passes of '#pragma omp parallel for' loops that add into shadow
// cells one iteration owns (plain additions) and into cells iterations
// share (atomic additions): every gradient against the analytic one and
// central differences, repeated so that lost updates of a shared cell
// would show, on teams of one and four threads.
//
// REQUIRES: openmp
// clang-format off
// RUN: %adcc -O0 -fopenmp %s -o %t.O0 %adlibs && env OMP_NUM_THREADS=1 %t.O0 && env OMP_NUM_THREADS=4 %t.O0
// RUN: %adcc -O2 -fopenmp %s -o %t.O2 %adlibs && env OMP_NUM_THREADS=1 %t.O2 && env OMP_NUM_THREADS=4 %t.O2
// clang-format on

#include "adcheck.h"
#include "omp_private_cells.h"
#include <stdlib.h>

#define N 20000
#define ROWS 40
#define COLS 500
#define REPEATS 10

typedef double (*kernel)(const double *, int);
typedef void (*gradient)(const double *, double *, int);

#define GRADIENT(f)                                                            \
  static void f##_gradient(const double *x, double *g, int n) {                \
    __ad_gradient(f, x, g, n);                                                 \
  }
GRADIENT(private_loss)
GRADIENT(private_loss_dynamic)
GRADIENT(stencil3)
GRADIENT(next_pair)
GRADIENT(callee_pair)
GRADIENT(twice_index)

static double loss_grad(const double *x, int j) {
  return 2 * x[j] / (1 + x[j] * x[j]);
}
static double stencil3_grad(const double *x, int j) {
  double g = 0;
  if (j >= 1 && j <= N - 2)
    g += x[j - 1] + x[j + 1];
  if (j + 1 >= 1 && j + 1 <= N - 2)
    g += x[j + 1];
  if (j - 1 >= 1 && j - 1 <= N - 2)
    g += x[j - 1];
  return g;
}
static double next_pair_grad(const double *x, int j) {
  return (j <= N - 2 ? cos(x[j]) * x[j + 1] : 0) + (j >= 1 ? sin(x[j - 1]) : 0);
}
static double callee_pair_grad(const double *x, int j) {
  return (j <= N - 2 ? x[j + 1] : 0) + (j >= 1 ? x[j - 1] : 0);
}
static double twice_index_grad(const double *x, int j) {
  return (j < N ? x[2 * j] : 0) + (j % 2 == 0 ? x[j / 2] : 0);
}

static const int Probes[] = {0, 1, 2, 3, 777, N / 2, N - 2, N - 1};

/// The gradient of \p f at x (of \p len elements), REPEATS times, each
/// against \p want in every component, and once against central
/// differences at the probes (not under a dynamic schedule, whose sum's
/// order changes from run to run, which is noise in the differences).
static void check(const char *name, kernel f, gradient df, double *x, int len,
                  double (*want)(const double *, int), int fd) {
  double *g = malloc(len * sizeof *g);
  double max_err = 0;
  for (int r = 0; r < REPEATS; r++) {
    for (int j = 0; j < len; j++)
      g[j] = 0;
    df(x, g, N);
    for (int j = 0; j < len; j++)
      max_err = fmax(max_err, fabs(g[j] - want(x, j)));
  }
  ad_check(ad_fmt("%s every component", name), max_err, 0, 0, 1e-12);
  for (unsigned k = 0; fd && k < sizeof Probes / sizeof *Probes; k++) {
    int j = Probes[k];
    ad_deriv(ad_fmt("%s d/dx[%d]", name, j), g[j], want(x, j),
             AD_FD(x[j], f(x, N)), AD_TOL_D);
  }
  free(g);
}

static void check_shared_scalar(double *x) {
  double p = 1.5, dp_want = 0;
  for (int i = 0; i < N; i++)
    dp_want += x[i] * x[i];
  double *g = malloc(N * sizeof *g);
  for (int r = 0; r < REPEATS; r++) {
    double dp = 0;
    for (int j = 0; j < N; j++)
      g[j] = 0;
    __ad_gradient(shared_scalar, x, g, &p, &dp, N);
    ad_check("shared scalar d/dp", dp, dp_want, 1e-11, 0);
  }
  double max_err = 0;
  for (int j = 0; j < N; j++)
    max_err = fmax(max_err, fabs(g[j] - 2 * x[j] * p));
  ad_check("shared scalar every component", max_err, 0, 0, 1e-12);
  ad_deriv("shared scalar d/dx[5]", g[5], 2 * x[5] * p,
           AD_FD(x[5], shared_scalar(x, &p, N)), AD_TOL_D);
}

// idx[i] = i / 2: iterations 2k and 2k+1 (on different threads under
// schedule(static, 1)) read the same cell.
static void check_indirect(double *x) {
  int *idx = malloc(N * sizeof *idx), *didx = calloc(N, sizeof *didx);
  for (int i = 0; i < N; i++)
    idx[i] = i / 2;
  double *g = malloc(N * sizeof *g);
  double max_err = 0;
  for (int r = 0; r < REPEATS; r++) {
    for (int j = 0; j < N; j++)
      g[j] = 0;
    __ad_gradient(indirect, x, g, idx, didx, N);
    for (int j = 0; j < N; j++)
      max_err = fmax(max_err, fabs(g[j] - (j < N / 2 ? 4 * x[j] : 0)));
  }
  ad_check("indirect every component", max_err, 0, 0, 1e-12);
  ad_deriv("indirect d/dx[7]", g[7], 4 * x[7], AD_FD(x[7], indirect(x, idx, N)),
           AD_TOL_D);
  free(idx), free(didx), free(g);
}

static void check_collapsed(double *x) {
  double *g = malloc(ROWS * COLS * sizeof *g);
  double max_err = 0;
  for (int r = 0; r < REPEATS; r++) {
    for (int j = 0; j < ROWS * COLS; j++)
      g[j] = 0;
    __ad_gradient(collapsed_private, x, g, ROWS, COLS);
    for (int j = 0; j < ROWS * COLS; j++)
      max_err = fmax(max_err, fabs(g[j] - 3 * x[j] * x[j]));
  }
  ad_check("collapsed a[i*m+j] every component", max_err, 0, 0, 1e-12);
  ad_deriv("collapsed a[i*m+j] d/da[123]", g[123], 3 * x[123] * x[123],
           AD_FD(x[123], collapsed_private(x, ROWS, COLS)), AD_TOL_D);
  // Each a[j] is read by ROWS iterations, weighted i + 1.
  max_err = 0;
  double rows = ROWS * (ROWS + 1) / 2.0;
  for (int r = 0; r < REPEATS; r++) {
    for (int j = 0; j < COLS; j++)
      g[j] = 0;
    __ad_gradient(collapsed_column, x, g, ROWS, COLS);
    for (int j = 0; j < COLS; j++)
      max_err = fmax(max_err, fabs(g[j] - rows * cos(x[j])));
  }
  ad_check("collapsed a[j] every component", max_err, 0, 0, 1e-12);
  ad_deriv("collapsed a[j] d/da[17]", g[17], rows * cos(x[17]),
           AD_FD(x[17], collapsed_column(x, ROWS, COLS)), AD_TOL_D);
  free(g);
}

int main(void) {
  double *x = malloc(2 * N * sizeof *x);
  for (int i = 0; i < 2 * N; i++)
    x[i] = 0.5 + 0.4 * sin(0.37 * i);
  check("private", private_loss, private_loss_gradient, x, N, loss_grad, 1);
  check("private dynamic", private_loss_dynamic, private_loss_dynamic_gradient,
        x, N, loss_grad, 0);
  check("stencil", stencil3, stencil3_gradient, x, N, stencil3_grad, 1);
  check("next pair", next_pair, next_pair_gradient, x, N, next_pair_grad, 1);
  check("callee pair", callee_pair, callee_pair_gradient, x, N,
        callee_pair_grad, 1);
  check("twice index", twice_index, twice_index_gradient, x, 2 * N,
        twice_index_grad, 1);
  check_shared_scalar(x);
  check_indirect(x);
  check_collapsed(x);
  free(x);
  return ad_finish();
}
