// void functions as vector-Jacobian products, and the shadow-memory
// contract of API.md:
//   - a kernel y = F(x) writing an output array: with dy seeded with w,
//     dx += J^T w and dy ends as zero (a pure output); the full Jacobian
//     recovered row by row with unit seeds matches the analytic one; the
//     primal output is written exactly as a plain call would;
//   - accumulation: an input shadow pre-filled with c ends as c + gradient
//     (for a double-returning function and for a VJP), and two requests in a
//     row add up;
//   - AD_CONST on a pointer argument (on the parameters, then on x), and an
//     explicit AD_DUP;
//   - an in/out array (y[i] += ...): its shadow is unchanged, because the
//     cotangent of the initial contents equals that of the final ones;
//     entries never written keep their seeded shadow; an entry written
//     twice ends zero;
//   - two outputs at once, and a double-returning function that also
//     writes an output (return seed 1 plus the output seed).
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O3 %s -o %t.O3 %adlibs && %t.O3

#include "ad.h"
#include "adcheck.h"
#include <math.h>

#define N 5

// y_i = sin(x_i) x_{i+1} + p_i x_i^2 (indices mod n).
void kernel(const double *x, const double *p, double *y, int n) {
  for (int i = 0; i < n; i++)
    y[i] = sin(x[i]) * x[(i + 1) % n] + p[i] * x[i] * x[i];
}

// J_ij = dy_i/dx_j.
static double jac(const double *x, const double *p, int n, int i, int j) {
  double d = 0;
  if (j == i)
    d += cos(x[i]) * x[(i + 1) % n] + 2 * p[i] * x[i];
  if (j == (i + 1) % n)
    d += sin(x[i]);
  return d;
}

// y_i += x_i^2 (in/out), and y_{n-1} only for i < m.
void accumulate(const double *x, double *y, int m) {
  for (int i = 0; i < m; i++)
    y[i] += x[i] * x[i];
}

// y_0 written twice; y_1 = x_0 x_1; y_2 untouched.
void twice(const double *x, double *y) {
  y[0] = x[0];
  y[0] = y[0] * x[1] + x[2];
  y[1] = x[0] * x[1];
}

// Two outputs: s_i = x_i + x_{i+1}, q_i = x_i x_{i+1} (i < n-1).
void two_outputs(const double *x, double *s, double *q, int n) {
  for (int i = 0; i + 1 < n; i++) {
    s[i] = x[i] + x[i + 1];
    q[i] = x[i] * x[i + 1];
  }
}

// Returns sum x_i^3 and writes y_i = exp(x_i).
double ret_and_out(const double *x, double *y, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    y[i] = exp(x[i]);
    s += x[i] * x[i] * x[i];
  }
  return s;
}

double sum_sq(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return s;
}

static volatile int vn = N;
static volatile double vx[N] = {0.7, -1.3, 1.1, 0.45, -0.6};
static volatile double vp[N] = {0.3, -0.8, 1.25, 0.5, -0.35};
static volatile double vw[N] = {1.5, -0.75, 2.25, 0.5, -1.2};

// <w, kernel(x, p)>
static double wk(const double *x, const double *p, const double *w, int n) {
  double y[N], s = 0;
  kernel(x, p, y, n);
  for (int i = 0; i < n; i++)
    s += w[i] * y[i];
  return s;
}

int main(int argc, char **argv) {
  (void)argv;
  int n = vn + (argc - 1);
  double x[N], p[N], w[N], y[N], dx[N], dp[N], dy[N];
  for (int i = 0; i < N; i++)
    x[i] = vx[i], p[i] = vp[i], w[i] = vw[i];

  // VJP with params constant; dx pre-filled (+=); dy ends zero.
  for (int i = 0; i < N; i++)
    dx[i] = 0.125 * (i + 1), dy[i] = w[i], y[i] = -99;
  __ad_gradient_void(kernel, x, dx, AD_CONST, p, y, dy, n);
  for (int j = 0; j < N; j++) {
    double want = 0;
    for (int i = 0; i < N; i++)
      want += w[i] * jac(x, p, n, i, j);
    double c = 0.125 * (j + 1);
    ad_deriv(ad_fmt("kernel vjp d/dx[%d] (+%g)", j, c), dx[j], c + want,
             c + AD_FD(x[j], wk(x, p, w, n)), AD_TOL_D);
    ad_check(ad_fmt("kernel dy[%d] ends zero", j), dy[j], 0, 0, 0);
    ad_check(ad_fmt("kernel primal y[%d]", j), y[j],
             sin(x[j]) * x[(j + 1) % n] + p[j] * x[j] * x[j], 1e-15, 1e-15);
  }

  // Jacobian rows by unit seeds (also: explicit AD_DUP).
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < N; j++)
      dx[j] = 0, dy[j] = i == j;
    __ad_gradient_void(kernel, AD_DUP, x, dx, AD_CONST, p, AD_DUP, y, dy, n);
    for (int j = 0; j < N; j++) {
      double e[N] = {0};
      e[i] = 1;
      ad_deriv(ad_fmt("kernel J[%d][%d]", i, j), dx[j], jac(x, p, n, i, j),
               AD_FD(x[j], wk(x, p, e, n)), AD_TOL_D);
    }
  }

  // Params active too, x constant: d<w,y>/dp_i = w_i x_i^2.
  for (int i = 0; i < N; i++)
    dp[i] = -1.0, dy[i] = w[i];
  __ad_gradient_void(kernel, AD_CONST, x, p, dp, y, dy, n);
  for (int i = 0; i < N; i++) {
    ad_deriv(ad_fmt("kernel vjp d/dp[%d] (x const, -1)", i), dp[i],
             -1.0 + w[i] * x[i] * x[i], -1.0 + AD_FD(p[i], wk(x, p, w, n)),
             AD_TOL_D);
    ad_check(ad_fmt("kernel (x const) dy[%d] ends zero", i), dy[i], 0, 0, 0);
  }

  // Both active at once.
  for (int i = 0; i < N; i++)
    dp[i] = 0, dx[i] = 0, dy[i] = w[i];
  __ad_gradient_void(kernel, x, dx, p, dp, y, dy, n);
  for (int j = 0; j < N; j++) {
    double want = 0;
    for (int i = 0; i < N; i++)
      want += w[i] * jac(x, p, n, i, j);
    ad_deriv(ad_fmt("kernel vjp (all active) d/dx[%d]", j), dx[j], want,
             AD_FD(x[j], wk(x, p, w, n)), AD_TOL_D);
    ad_deriv(ad_fmt("kernel vjp (all active) d/dp[%d]", j), dp[j],
             w[j] * x[j] * x[j], AD_FD(p[j], wk(x, p, w, n)), AD_TOL_D);
  }

  // Accumulation for a scalar-returning function: twice in a row.
  for (int i = 0; i < N; i++)
    dx[i] = 3.0 - i;
  __ad_gradient(sum_sq, x, dx, n);
  __ad_gradient(sum_sq, x, dx, n);
  for (int i = 0; i < N; i++)
    ad_deriv(ad_fmt("sum_sq twice d/dx[%d] (+%g)", i, 3.0 - i), dx[i],
             3.0 - i + 4 * x[i], 3.0 - i + 2 * AD_FD(x[i], sum_sq(x, n)),
             AD_TOL_D);

  // In/out accumulation: m = n-1 entries updated, the last never written.
  {
    int m = n - 1;
    for (int i = 0; i < N; i++)
      y[i] = 10.0 + i, dy[i] = w[i], dx[i] = 0.5;
    __ad_gradient_void(accumulate, x, dx, y, dy, m);
    for (int i = 0; i < N; i++) {
      double xi = x[i];
      ad_check(ad_fmt("accumulate dy[%d] unchanged", i), dy[i], w[i], 0, 0);
      ad_check(ad_fmt("accumulate primal y[%d]", i), y[i],
               10.0 + i + (i < m ? xi * xi : 0), 1e-15, 0);
      ad_deriv(ad_fmt("accumulate d/dx[%d] (+0.5)", i), dx[i],
               0.5 + (i < m ? 2 * w[i] * xi : 0),
               0.5 + (i < m ? w[i] * AD_FD(xi, xi * xi) : 0), AD_TOL_D);
    }
  }

  // Written twice / untouched.
  {
    double t[3] = {x[0], x[1], x[2]}, dt[3] = {0, 0, 0};
    double ty[3] = {0, 0, 5.0}, dty[3] = {w[0], w[1], w[2]};
    __ad_gradient_void(twice, t, dt, ty, dty);
    ad_check("twice dy[0] ends zero", dty[0], 0, 0, 0);
    ad_check("twice dy[1] ends zero", dty[1], 0, 0, 0);
    ad_check("twice dy[2] untouched", dty[2], w[2], 0, 0);
    ad_check("twice y[2] untouched", ty[2], 5.0, 0, 0);
#define TW() (twice(t, ty), w[0] * ty[0] + w[1] * ty[1])
    ad_deriv("twice d/dx0", dt[0], (w[0] + w[1]) * t[1], AD_FD(t[0], TW()),
             AD_TOL_D);
    ad_deriv("twice d/dx1", dt[1], (w[0] + w[1]) * t[0], AD_FD(t[1], TW()),
             AD_TOL_D);
    ad_deriv("twice d/dx2", dt[2], w[0], AD_FD(t[2], TW()), AD_TOL_D);
  }

  // Two outputs.
  {
    double s[N], q[N], ds[N], dq[N], ws[N], wq[N];
    for (int i = 0; i < N; i++) {
      ws[i] = w[i];
      wq[i] = p[i];
      ds[i] = ws[i], dq[i] = wq[i], dx[i] = 0;
    }
    __ad_gradient_void(two_outputs, x, dx, s, ds, q, dq, n);
    for (int j = 0; j < N; j++) {
      double want = 0;
      if (j < n - 1)
        want += ws[j] + wq[j] * x[j + 1];
      if (j > 0)
        want += ws[j - 1] + wq[j - 1] * x[j - 1];
#define TWO()                                                                  \
  __extension__({                                                              \
    double s_[N], q_[N], r_ = 0;                                               \
    two_outputs(x, s_, q_, n);                                                 \
    for (int k_ = 0; k_ + 1 < n; k_++)                                         \
      r_ += ws[k_] * s_[k_] + wq[k_] * q_[k_];                                 \
    r_;                                                                        \
  })
      ad_deriv(ad_fmt("two_outputs d/dx[%d]", j), dx[j], want,
               AD_FD(x[j], TWO()), AD_TOL_D);
      ad_check(ad_fmt("two_outputs ds[%d]", j), ds[j], j < n - 1 ? 0 : ws[j], 0, 0);
      ad_check(ad_fmt("two_outputs dq[%d]", j), dq[j], j < n - 1 ? 0 : wq[j], 0, 0);
    }
  }

  // Return value (seed 1) plus an output (seed w).
#define RO()                                                                   \
  __extension__({                                                              \
    double y_[N], r_ = ret_and_out(x, y_, n);                                  \
    for (int k_ = 0; k_ < n; k_++)                                             \
      r_ += w[k_] * y_[k_];                                                    \
    r_;                                                                        \
  })
  for (int i = 0; i < N; i++)
    dx[i] = 0, dy[i] = w[i];
  __ad_gradient(ret_and_out, x, dx, y, dy, n);
  for (int i = 0; i < N; i++) {
    double xi = x[i];
    ad_deriv(ad_fmt("ret_and_out d/dx[%d]", i), dx[i],
             3 * xi * xi + w[i] * exp(xi),
             AD_FD(x[i], RO()), AD_TOL_D);
    ad_check(ad_fmt("ret_and_out dy[%d] ends zero", i), dy[i], 0, 0, 0);
    ad_check(ad_fmt("ret_and_out primal y[%d]", i), y[i], exp(xi), 1e-15, 0);
  }

  return ad_finish();
}
