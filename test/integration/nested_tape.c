// Nested derivatives of functions whose loops keep per-iteration values
// with derivatives on the runtime tape (while loops with data-dependent
// exits at every level, counted loops at -O0): the inner derived code's
// records get shadows, and each nesting level has its own tape. Every
// combination of forward and reverse mode, through pointers and arrays,
// and three and four levels deep. Checked against hand derivatives and central
// differences of the inner derivative.
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O3 %s -o %t.O3 %adlibs && %t.O3

#include "ad.h"
#include "adcheck.h"

typedef struct {
  double dx, dy;
} grad_xy;
grad_xy __ad_gradient_xy(void *, ...) AD_MARKER;
void __ad_gradient_void(void *, ...) AD_MARKER;
void __ad_derivative_void(void *, ...) AD_MARKER;

//===--- A while loop with a data-dependent exit ----------------------------
// Euler steps of u' = -x u + sin(y t) with a step that grows with t, until
// t reaches 1: how many steps run depends on nothing but t, but every step
// keeps u, t and the partials of sin on the runtime tape.
static double rate(double t, double u, double x, double y) {
  return -x * u + sin(y * t) * u;
}
double euler(double x, double y) {
  double t = 0, u = x * y, h = 0.01;
  while (t < 1) {
    u += h * rate(t, u, x, y);
    t += h;
    h *= 1.05;
  }
  return u * u + x * u;
}
grad_xy deuler(double x, double y) { return __ad_gradient_xy(euler, x, y); }
double deuler_dx(double x, double y) {
  return __ad_gradient_xy(euler, x, y).dx;
}

// Forward over reverse: the Hessian of euler along (1, 0) and (0, 1).
grad_xy __ad_derivative_xy(void *, ...) AD_MARKER;
grad_xy hess_col_x(double x, double y) {
  return __ad_derivative_xy(deuler, x, 1.0, y, 0.0);
}

// Reverse over reverse: the gradient of d euler / dx.
grad_xy rr_dx(double x, double y) { return __ad_gradient_xy(deuler_dx, x, y); }

//===--- A time-stepping loop with a data-dependent trip count --------------
// t += h f(t, x) until t reaches 1: the number of steps depends on x, and
// so does every value the steps keep.
double steps(double x) {
  double t = 0, s = 0, h = 0.05;
  while (t < 1) {
    double f = 1 + x * x * cos(t);
    s += h * f * f;
    t += h * f;
  }
  return s + t * x;
}
double dsteps(double x) { return __ad_gradient(steps, x); }
double fr_steps(double x) { return __ad_derivative(dsteps, x, 1.0); }
double rr_steps(double x) { return __ad_gradient(dsteps, x); }

// The inner gradient taken several times by the function differentiated:
// the shadows of its records are the same memory each time.
double steps_sum(double x) {
  double s = 0;
  for (int k = 1; k <= 3; k++)
    s += dsteps(x * (0.9 + 0.1 * k)) * k;
  return s;
}
double fr_steps_sum(double x) { return __ad_derivative(steps_sum, x, 1.0); }
double rr_steps_sum(double x) { return __ad_gradient(steps_sum, x); }

// Tens of thousands of records: they cross chunks of the runtime tape.
double long_sum(double x) {
  double t = 0, s = 0;
  while (t < 3000) {
    s += sin(x * t) * 1e-3;
    t += 0.1;
  }
  return s;
}
double dlong_sum(double x) { return __ad_gradient(long_sum, x); }
double fr_long_sum(double x) { return __ad_derivative(dlong_sum, x, 1.0); }
double rr_long_sum(double x) { return __ad_gradient(dlong_sum, x); }

//===--- Forward inside: reverse over forward, forward over forward ---------
double poly_loop(double x, int n) {
  double p = 1, s = 0;
  for (int i = 0; i < n; i++) {
    p *= x;
    s += p / (i + 1);
  }
  return s; // sum_{k=1..n} x^k / k
}
double dpoly(double x, int n) { return __ad_derivative(poly_loop, x, 1.0, n); }
double rf_poly(double x, int n) { return __ad_gradient(dpoly, x, n); }
double ff_poly(double x, int n) { return __ad_derivative(dpoly, x, 1.0, n); }

//===--- Through pointers: a Hessian-vector product of an array function ----
double chain(const double *x, int n) {
  double s = 0, c = 1;
  for (int i = 0; i < n; i++) {
    c = c * 0.5 + x[i] * x[i];
    s += c * sin(x[i]);
  }
  return s;
}
void grad_chain(const double *x, double *g, int n) {
  for (int i = 0; i < n; i++)
    g[i] = 0;
  __ad_gradient_void(chain, x, g, n);
}
// g . v, whose gradient is H v.
double grad_chain_dot(const double *x, const double *v, int n) {
  double g[8];
  grad_chain(x, g, n);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += g[i] * v[i];
  return s;
}

//===--- Three levels ---------------------------------------------------------
double waves(double x, int n) {
  double s = 0;
  for (int i = 1; i <= n; i++)
    s += sin(i * x) / i;
  return s;
}
double d1waves(double x, int n) { return __ad_gradient(waves, x, n); }
double d2waves_rr(double x, int n) { return __ad_gradient(d1waves, x, n); }
double d3waves_frr(double x, int n) {
  return __ad_derivative(d2waves_rr, x, 1.0, n);
}
double d2waves_fr(double x, int n) {
  return __ad_derivative(d1waves, x, 1.0, n);
}
double d3waves_rfr(double x, int n) { return __ad_gradient(d2waves_fr, x, n); }
double d3waves_rrr(double x, int n) { return __ad_gradient(d2waves_rr, x, n); }

//===--- Four levels, the deepest through loops
//(diagnostics/nested-reverse-loop.c)
double hwhile(double x, int n) {
  double s = 0, t = 1;
  while (t <= n) {
    s += sin(x * t) / t;
    t += 1;
  }
  return s;
}
double e1(double x, int n) { return __ad_gradient(hwhile, x, n); }
double e2(double x, int n) { return __ad_gradient(e1, x, n); }
double e3(double x, int n) { return __ad_gradient(e2, x, n); }
double e4_rrrr(double x, int n) { return __ad_gradient(e3, x, n); }
double e4_frrr(double x, int n) { return __ad_derivative(e3, x, 1.0, n); }

static void check_euler(void) {
  double x = 0.8, y = 1.3;
  grad_xy h = hess_col_x(x, y);
  double fd_xx = AD_FD(x, deuler(x, y).dx), fd_yx = AD_FD(x, deuler(x, y).dy);
  ad_check("euler: forward over reverse d2/dx2", h.dx, fd_xx, 1e-6, 1e-8);
  ad_check("euler: forward over reverse d2/dxdy", h.dy, fd_yx, 1e-6, 1e-8);
  grad_xy r = rr_dx(x, y);
  double fd_xy = AD_FD(y, deuler(x, y).dx);
  ad_check("euler: reverse over reverse d2/dx2", r.dx, fd_xx, 1e-6, 1e-8);
  ad_check("euler: reverse over reverse d2/dydx", r.dy, fd_xy, 1e-6, 1e-8);
  ad_check("euler: symmetric Hessian", r.dy, h.dy, 1e-9, 1e-12);
}

static void check_steps(void) {
  // Away from the points where the number of steps changes.
  double x = 0.6;
  double fd = AD_FD(x, dsteps(x));
  ad_check("steps: forward over reverse", fr_steps(x), fd, 1e-6, 1e-8);
  ad_check("steps: reverse over reverse", rr_steps(x), fd, 1e-6, 1e-8);
  double fd_sum = AD_FD(x, steps_sum(x));
  ad_check("steps, three times: forward over reverse", fr_steps_sum(x), fd_sum,
           1e-6, 1e-8);
  ad_check("steps, three times: reverse over reverse", rr_steps_sum(x), fd_sum,
           1e-6, 1e-8);
}

static void check_long_sum(void) {
  double x = 0.3, t = 0, d2 = 0; // -1e-3 sum t^2 sin(x t) over the same t
  while (t < 3000) {
    d2 -= t * t * sin(x * t) * 1e-3;
    t += 0.1;
  }
  ad_check("long loop: forward over reverse", fr_long_sum(x), d2, 1e-9, 1e-9);
  ad_check("long loop: reverse over reverse", rr_long_sum(x), d2, 1e-9, 1e-9);
}

static void check_poly(void) {
  volatile int vn = 6;
  int n = vn;
  double x = 0.7, want1 = 0, want2 = 0; // sum x^(k-1), sum (k-1) x^(k-2)
  for (int k = 1; k <= n; k++) {
    want1 += pow(x, k - 1);
    want2 += (k - 1) * pow(x, k - 2);
  }
  ad_deriv("poly: forward", dpoly(x, n), want1, AD_FD(x, poly_loop(x, n)),
           AD_TOL_D);
  double fd = AD_FD(x, dpoly(x, n));
  ad_deriv("poly: reverse over forward", rf_poly(x, n), want2, fd, AD_TOL_D);
  ad_deriv("poly: forward over forward", ff_poly(x, n), want2, fd, AD_TOL_D);
}

static void check_chain(void) {
  enum { N = 6 };
  volatile int vn = N;
  int n = vn;
  double x[N] = {0.3, -0.5, 0.8, 0.1, -0.9, 0.4};
  double v[N] = {1, 0.5, -0.3, 0.2, 0.7, -1};
  double g[N], hv[N], rr[N] = {0};
  __ad_derivative_void(grad_chain, x, v, g, hv, n);
  __ad_gradient_void(grad_chain_dot, x, rr, AD_CONST, v, n);
  double step = 1e-5, xp[N], xm[N], gp[N], gm[N];
  for (int i = 0; i < n; i++) {
    xp[i] = x[i] + step * v[i];
    xm[i] = x[i] - step * v[i];
  }
  grad_chain(xp, gp, n);
  grad_chain(xm, gm, n);
  for (int i = 0; i < n; i++) {
    double fd = (gp[i] - gm[i]) / (2 * step);
    ad_check(ad_fmt("chain: forward over reverse (Hv)[%d]", i), hv[i], fd, 1e-6,
             1e-8);
    ad_check(ad_fmt("chain: reverse over reverse (Hv)[%d]", i), rr[i], fd, 1e-6,
             1e-8);
    ad_check(ad_fmt("chain: both modes agree (Hv)[%d]", i), rr[i], hv[i], 1e-9,
             1e-12);
  }
}

static void check_three_levels(void) {
  volatile int vn = 5;
  int n = vn;
  double x = 0.7, d2 = 0, d3 = 0; // of sum sin(i x) / i
  for (int i = 1; i <= n; i++) {
    d2 -= i * sin(i * x);
    d3 -= i * i * cos(i * x);
  }
  double fd2 = AD_FD(x, d1waves(x, n));
  ad_deriv("waves: reverse over reverse", d2waves_rr(x, n), d2, fd2, AD_TOL_D);
  ad_deriv("waves: forward over reverse", d2waves_fr(x, n), d2, fd2, AD_TOL_D);
  double fd3 = AD_FD(x, d2waves_rr(x, n));
  ad_deriv("waves: forward over reverse over reverse", d3waves_frr(x, n), d3,
           fd3, AD_TOL_D);
  ad_deriv("waves: reverse over forward over reverse", d3waves_rfr(x, n), d3,
           fd3, AD_TOL_D);
  ad_deriv("waves: reverse over reverse over reverse", d3waves_rrr(x, n), d3,
           fd3, AD_TOL_D);
  double d4 = 0; // of the same sum, through a while loop
  for (int i = 1; i <= n; i++)
    d4 += i * i * i * sin(i * x);
  double fd4 = AD_FD(x, e3(x, n));
  ad_deriv("four levels, reverse", e4_rrrr(x, n), d4, fd4, AD_TOL_D);
  ad_deriv("four levels, forward over reverse", e4_frrr(x, n), d4, fd4,
           AD_TOL_D);
}

int main(void) {
  check_euler();
  check_steps();
  check_long_sum();
  check_poly();
  check_chain();
  check_three_levels();
  return ad_finish();
}
