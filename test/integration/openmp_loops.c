// OpenMP worksharing loops: forward and reverse mode through
// '#pragma omp parallel for' with static, static-chunked and dynamic
// schedules, reduction(+:s), private and firstprivate variables, a stencil
// whose reverse pass adds into neighbouring shadow cells from different
// threads (schedule(static, 1) puts neighbours on different threads, so
// non-atomic accumulation would lose updates), and a shared scalar every
// iteration reads. Each gradient is checked against the analytic one and
// central differences, and against the gradient on a team of one thread.
//
// REQUIRES: openmp
// clang-format off
// RUN: %adcc -O0 -fopenmp %s -o %t.O0 %adlibs && env OMP_NUM_THREADS=1 %t.O0 && env OMP_NUM_THREADS=4 %t.O0
// RUN: %adcc -O2 -fopenmp %s -o %t.O2 %adlibs && env OMP_NUM_THREADS=1 %t.O2 && env OMP_NUM_THREADS=4 %t.O2
// RUN: %adcc -O0 -g -fopenmp %s -o %t.g %adlibs && env OMP_NUM_THREADS=4 %t.g
// clang-format on

#include "ad.h"
#include "adcheck.h"
#include <omp.h>
#include <stdlib.h>

#define N 200000

// A shared scalar (*p) read by every iteration; a private temporary.
double sum_static(const double *x, const double *p, int n) {
  double s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s)
  for (int i = 0; i < n; i++) {
    double t = sin(x[i]) * *p; // private
    s += t * x[i];
  }
  return s;
}

// Neighbours read by neighbouring iterations, on different threads.
void stencil(const double *x, double *y, int n) {
#pragma omp parallel for schedule(static, 1)
  for (int i = 1; i < n - 1; i++)
    y[i] = x[i - 1] * x[i] + sin(x[i + 1]);
}

double stencil_sum(const double *x, double *y, const double *w, int n) {
  stencil(x, y, n);
  double s = 0;
  for (int i = 1; i < n - 1; i++)
    s += w[i] * y[i];
  return s;
}

// Dynamic schedule, a firstprivate integer and a firstprivate pointer.
double sum_dynamic(const double *x, const double *p, int n) {
  double s = 0;
  int k = 3;
#pragma omp parallel for schedule(dynamic, 3) firstprivate(k, p)               \
    reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += exp(-x[i] * x[i] * k) * p[0];
  return s;
}

// An if clause: a team only from 100 elements on, the calling thread alone
// below.
double sum_if(const double *x, int n) {
  double s = 0;
#pragma omp parallel for reduction(+ : s) if (n > 100)
  for (int i = 0; i < n; i++)
    s += x[i] * x[i] * x[i];
  return s;
}

static double d_sum_static(const double *x, double p, int i) {
  return p * (cos(x[i]) * x[i] + sin(x[i]));
}

static double d_stencil(const double *x, const double *w, int n, int j) {
  double g = 0;
  if (j + 1 < n - 1 && j + 1 >= 1)
    g += w[j + 1] * x[j + 1]; // y[j+1] = x[j] * x[j+1] + ...
  if (j >= 1 && j < n - 1)
    g += w[j] * x[j - 1]; // y[j] = x[j-1] * x[j] + ...
  if (j - 1 >= 1 && j - 1 < n - 1)
    g += w[j - 1] * cos(x[j]); // y[j-1] = ... + sin(x[j])
  return g;
}

static double d_sum_dynamic(const double *x, double p, int i) {
  return -6 * x[i] * exp(-3 * x[i] * x[i]) * p;
}

static const int Probes[] = {0, 1, 2, 3, 4, 777, N / 2, N - 2, N - 1};

static void check_static(double *x) {
  double p = 1.5, dp = 0;
  double *g = calloc(N, sizeof *g);
  __ad_gradient(sum_static, x, g, &p, &dp, N);
  double dp_want = 0;
  for (int i = 0; i < N; i++)
    dp_want += sin(x[i]) * x[i];
  for (unsigned k = 0; k < sizeof Probes / sizeof *Probes; k++) {
    int i = Probes[k];
    ad_deriv(ad_fmt("static d/dx[%d]", i), g[i], d_sum_static(x, p, i),
             AD_FD(x[i], sum_static(x, &p, N)), AD_TOL_D);
  }
  double max_err = 0;
  for (int i = 0; i < N; i++)
    max_err = fmax(max_err, fabs(g[i] - d_sum_static(x, p, i)));
  ad_check("static every component", max_err, 0, 0, 1e-12);
  ad_deriv("static d/dp (shared scalar)", dp, dp_want,
           AD_FD(p, sum_static(x, &p, N)), (ad_tol){1e-9, 1e-9, 1e-6, 1e-6});
  // A second request on the same thread, after the first.
  double dp2 = 0;
  double *g2 = calloc(N, sizeof *g2);
  __ad_gradient(sum_static, x, g2, &p, &dp2, N);
  ad_check("static second request", dp2, dp, 1e-12, 0);
  ad_check("static second request g[N/2]", g2[N / 2], g[N / 2], 1e-15, 0);
  free(g);
  free(g2);
}

static void check_stencil(double *x) {
  double *y = calloc(N, sizeof *y), *dy = calloc(N, sizeof *dy);
  double *w = malloc(N * sizeof *w), *g = calloc(N, sizeof *g);
  for (int i = 0; i < N; i++)
    w[i] = 1 + 0.25 * cos(i);
  __ad_gradient(stencil_sum, x, g, y, dy, AD_CONST, w, N);
  double max_err = 0;
  for (int j = 0; j < N; j++)
    max_err = fmax(max_err, fabs(g[j] - d_stencil(x, w, N, j)));
  ad_check("stencil every component", max_err, 0, 0, 1e-12);
  for (unsigned k = 0; k < sizeof Probes / sizeof *Probes; k++) {
    int j = Probes[k];
    ad_deriv(ad_fmt("stencil d/dx[%d]", j), g[j], d_stencil(x, w, N, j),
             AD_FD(x[j], stencil_sum(x, y, w, N)), AD_TOL_D);
  }
  free(y), free(dy), free(w), free(g);
}

// On all N elements a dynamic schedule sums in an order that changes from
// run to run, which is noise in central differences: those are taken on
// the first 1000 elements.
static void check_dynamic(double *x, int n) {
  double p = 0.75, dp = 0;
  double *g = calloc(n, sizeof *g);
  __ad_gradient(sum_dynamic, x, g, &p, &dp, n);
  double max_err = 0;
  for (int i = 0; i < n; i++)
    max_err = fmax(max_err, fabs(g[i] - d_sum_dynamic(x, p, i)));
  ad_check(ad_fmt("dynamic (n = %d) every component", n), max_err, 0, 0, 1e-12);
  for (unsigned k = 0; n <= 1000 && k < sizeof Probes / sizeof *Probes; k++) {
    int i = Probes[k] % n;
    ad_deriv(ad_fmt("dynamic d/dx[%d]", i), g[i], d_sum_dynamic(x, p, i),
             AD_FD(x[i], sum_dynamic(x, &p, n)), AD_TOL_D);
  }
  ad_check("dynamic d/dp", dp, sum_dynamic(x, &(double){1}, n), 1e-9, 1e-12);
  free(g);
}

static void check_forward(double *x) {
  double p = 1.5, dp = 0.5;
  double *t = malloc(N * sizeof *t);
  double want = 0;
  for (int i = 0; i < N; i++) {
    t[i] = cos(0.1 * i);
    want += d_sum_static(x, p, i) * t[i] + sin(x[i]) * x[i] * dp;
  }
  double got = __ad_derivative(sum_static, x, t, &p, &dp, N);
  ad_check("forward static", got, want, 1e-9, 1e-12);
  double want_dyn = 0;
  for (int i = 0; i < N; i++)
    want_dyn += d_sum_dynamic(x, p, i) * t[i];
  double got_dyn = __ad_derivative(sum_dynamic, x, t, &p, &(double){0}, N);
  ad_check("forward dynamic", got_dyn, want_dyn, 1e-9, 1e-12);
  free(t);
}

// The same gradient on a team of one thread, to rounding.
static void check_team_sizes(double *x) {
  double p = 1.5, dp1 = 0, dp4 = 0;
  double *g1 = calloc(N, sizeof *g1), *g4 = calloc(N, sizeof *g4);
  int threads = omp_get_max_threads();
  __ad_gradient(sum_static, x, g4, &p, &dp4, N);
  omp_set_num_threads(1);
  __ad_gradient(sum_static, x, g1, &p, &dp1, N);
  omp_set_num_threads(threads);
  ad_check("team sizes d/dp", dp4, dp1, 1e-12, 0);
  double max_err = 0;
  for (int i = 0; i < N; i++)
    max_err = fmax(max_err, fabs(g4[i] - g1[i]));
  ad_check("team sizes every component", max_err, 0, 0, 0);
  free(g1), free(g4);
}

// Lost updates of a non-atomic accumulation show only when two threads
// add into the same cell at the same moment: the stencil's neighbours and
// the shared scalar are differentiated again and again.
static void check_no_lost_updates(double *x) {
  double *y = calloc(N, sizeof *y), *dy = calloc(N, sizeof *dy);
  double *w = malloc(N * sizeof *w), *g = malloc(N * sizeof *g);
  for (int i = 0; i < N; i++)
    w[i] = 1 + 0.25 * cos(i);
  double p = 1.5, dp_want = 0;
  for (int i = 0; i < N; i++)
    dp_want += sin(x[i]) * x[i];
  double stencil_err = 0, dp_err = 0;
  for (int rep = 0; rep < 24; rep++) {
    memset(g, 0, N * sizeof *g);
    __ad_gradient(stencil_sum, x, g, y, dy, AD_CONST, w, N);
    for (int j = 0; j < N; j++)
      stencil_err = fmax(stencil_err, fabs(g[j] - d_stencil(x, w, N, j)));
    double dp = 0;
    memset(g, 0, N * sizeof *g);
    __ad_gradient(sum_static, x, g, &p, &dp, N);
    dp_err = fmax(dp_err, fabs(dp - dp_want) / fabs(dp_want));
  }
  ad_check("stencil repeated, every component", stencil_err, 0, 0, 1e-12);
  ad_check("shared scalar repeated", dp_err, 0, 0, 1e-12);
  free(y), free(dy), free(w), free(g);
}

static void check_if_clause(double *x) {
  double *g = calloc(N, sizeof *g);
  int sizes[] = {50, N};
  for (int k = 0; k < 2; k++) {
    int n = sizes[k];
    memset(g, 0, N * sizeof *g);
    __ad_gradient(sum_if, x, g, n);
    double max_err = 0;
    for (int i = 0; i < n; i++)
      max_err = fmax(max_err, fabs(g[i] - 3 * x[i] * x[i]));
    ad_check(ad_fmt("if clause (n = %d) every component", n), max_err, 0, 0,
             1e-13);
    ad_deriv(ad_fmt("if clause (n = %d) d/dx[7]", n), g[7], 3 * x[7] * x[7],
             AD_FD(x[7], sum_if(x, n)), AD_TOL_D);
    double want = 0;
    for (int i = 0; i < n; i++)
      want += 3 * x[i] * x[i] * cos(i);
    double *t = malloc(n * sizeof *t);
    for (int i = 0; i < n; i++)
      t[i] = cos(i);
    ad_check(ad_fmt("if clause (n = %d) forward", n),
             __ad_derivative(sum_if, x, t, n), want, 1e-10, 1e-12);
    free(t);
  }
  free(g);
}

int main(void) {
  double *x = malloc(N * sizeof *x);
  for (int i = 0; i < N; i++)
    x[i] = 0.8 * sin(0.37 * i) + 0.1;
  check_static(x);
  check_stencil(x);
  check_dynamic(x, N);
  check_dynamic(x, 1000);
  check_forward(x);
  check_team_sizes(x);
  check_no_lost_updates(x);
  check_if_clause(x);
  free(x);
  return ad_finish();
}
