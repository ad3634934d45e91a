// Newton iterations with a data-dependent exit, `while (fabs(r) > tol)`:
// the real root x(p, q) of x^3 + p x - q = 0 (p > 0, so exactly one root),
// differentiated through 4..10 iterations and checked against the implicit
// function theorem, dx/dp = -x / (3x^2 + p), dx/dq = 1 / (3x^2 + p), and
// against finite differences. Variants: scalar parameters (a struct of two
// partials), parameters read through a pointer with a shadow, a loss over
// several roots (a nested loop whose inner trip count is data-dependent),
// a void kernel writing the roots to an output array (vector-Jacobian
// product), and Newton for sqrt(a) where the active tolerance only steers
// control flow (its derivative is exactly 0).
//
// The exit tolerance is tight (1e-12), and Newton converges quadratically,
// so the derivative of the iterate equals the implicit derivative to far
// below the 1e-9 check tolerance, and the iteration count changing under a
// finite-difference perturbation moves the root by ~1e-16 only.
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O3 %s -o %t.O3 %adlibs && %t.O3

#include "ad.h"
#include "adcheck.h"
#include <math.h>

typedef struct {
  double dp, dq;
} grad2;
grad2 __ad_gradient_2(void *fn, ...) AD_MARKER;

#define TOL 1e-12

double cubic_root(double p, double q) {
  double x = 1.0;
  double r = x * x * x + p * x - q;
  while (fabs(r) > TOL) {
    x -= r / (3 * x * x + p);
    r = x * x * x + p * x - q;
  }
  return x;
}

double cubic_root_ptr(const double *pq) {
  double x = 1.0;
  double r = x * x * x + pq[0] * x - pq[1];
  while (fabs(r) > TOL) {
    x -= r / (3 * x * x + pq[0]);
    r = x * x * x + pq[0] * x - pq[1];
  }
  return x;
}

// sum_i x_i^2 over the roots of the cubics with (p, q) = (pq[2i], pq[2i+1]).
double roots_loss(const double *pq, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double p = pq[2 * i], q = pq[2 * i + 1];
    double x = 1.0, r = 1.0 + p - q;
    while (fabs(r) > TOL) {
      x = x - r / (3 * x * x + p);
      r = (x * x + p) * x - q;
    }
    s += x * x;
  }
  return s;
}

// out[i] = root of the i-th cubic (a pure output).
void roots_out(const double *pq, double *out, int n) {
  for (int i = 0; i < n; i++) {
    double p = pq[2 * i], q = pq[2 * i + 1];
    double x = 1.0, r = 1.0 + p - q;
    while (fabs(r) > TOL) {
      x = x - r / (3 * x * x + p);
      r = (x * x + p) * x - q;
    }
    out[i] = x;
  }
}

// sqrt(a) by Newton from x = a, stopping on a relative residual.
double newton_sqrt(double a, double tol) {
  double x = a;
  double r = x * x - a;
  while (fabs(r) > tol * a) {
    x = 0.5 * (x + a / x);
    r = x * x - a;
  }
  return x;
}

static volatile double vps[] = {0.5, 1.7, 3.0, 0.85};
static volatile double vqs[] = {-2.3, 0.4, 5.1, 1.35};
static volatile double vas[] = {0.3, 2.0, 17.5, 400.0};
static volatile int vn = 4;

static int iterations(double p, double q) {
  double x = 1.0, r = x * x * x + p * x - q;
  int it = 0;
  while (fabs(r) > TOL) {
    x -= r / (3 * x * x + p);
    r = x * x * x + p * x - q;
    it++;
  }
  return it;
}

int main(int argc, char **argv) {
  (void)argv;
  int n = vn + (argc - 1);
  double pq[8], dpq[8];

  for (int a = 0; a < n; a++)
    for (int b = 0; b < n; b++) {
      double p = vps[a], q = vqs[b];
      double x = cubic_root(p, q), fx = 3 * x * x + p;
      const char *at = ad_fmt("(p=%g,q=%g)", p, q);
      ad_check(ad_fmt("cubic_root%s converges", at), x * x * x + p * x - q, 0,
               0, TOL);
      ad_check(ad_fmt("cubic_root%s takes >= 4 iterations", at),
               iterations(p, q) >= 4, 1, 0, 0);

      grad2 g = __ad_gradient_2(cubic_root, p, q);
      double fdp = AD_FD(p, cubic_root(p, q));
      double fdq = AD_FD(q, cubic_root(p, q));
      ad_deriv(ad_fmt("cubic_root%s d/dp", at), g.dp, -x / fx, fdp, AD_TOL_D);
      ad_deriv(ad_fmt("cubic_root%s d/dq", at), g.dq, 1 / fx, fdq, AD_TOL_D);

      double s[2] = {p, q}, ds[2] = {0.25, -0.5}; // accumulates (+=)
      __ad_gradient(cubic_root_ptr, s, ds);
      fdp = AD_FD(s[0], cubic_root_ptr(s));
      fdq = AD_FD(s[1], cubic_root_ptr(s));
      ad_deriv(ad_fmt("cubic_root_ptr%s d/dp (+0.25)", at), ds[0],
               0.25 - x / fx, 0.25 + fdp, AD_TOL_D);
      ad_deriv(ad_fmt("cubic_root_ptr%s d/dq (-0.5)", at), ds[1],
               -0.5 + 1 / fx, -0.5 + fdq, AD_TOL_D);
    }

  // Several roots at once.
  for (int i = 0; i < n; i++) {
    pq[2 * i] = vps[i];
    pq[2 * i + 1] = vqs[(i + 1) % n];
  }
  for (int i = 0; i < 2 * n; i++)
    dpq[i] = 0;
  __ad_gradient(roots_loss, pq, dpq, n);
  for (int i = 0; i < n; i++) {
    double p = pq[2 * i], q = pq[2 * i + 1];
    double x = cubic_root(p, q), fx = 3 * x * x + p;
    double fdp = AD_FD(pq[2 * i], roots_loss(pq, n));
    double fdq = AD_FD(pq[2 * i + 1], roots_loss(pq, n));
    ad_deriv(ad_fmt("roots_loss d/dp[%d]", i), dpq[2 * i], 2 * x * (-x / fx),
             fdp, AD_TOL_D);
    ad_deriv(ad_fmt("roots_loss d/dq[%d]", i), dpq[2 * i + 1], 2 * x / fx, fdq,
             AD_TOL_D);
  }

  // The same as a VJP: out shadow seeded with w, ends zero (pure output).
  {
    double out[4], dout[4], w[4] = {1.5, -0.75, 2.25, 0.5};
    for (int i = 0; i < n; i++)
      dout[i] = w[i];
    for (int i = 0; i < 2 * n; i++)
      dpq[i] = 0;
    __ad_gradient_void(roots_out, pq, dpq, out, dout, n);
    for (int i = 0; i < n; i++) {
      double p = pq[2 * i], q = pq[2 * i + 1];
      double x = cubic_root(p, q), fx = 3 * x * x + p;
      ad_check(ad_fmt("roots_out primal out[%d]", i), out[i], x, 0, 0);
      ad_check(ad_fmt("roots_out dout[%d] ends zero", i), dout[i], 0, 0, 0);
#define WSUM(o) (roots_out(pq, o, n), o[0] * w[0] + o[1] * w[1] + o[2] * w[2] + o[3] * w[3])
      double tmp[4];
      double fdp = AD_FD(pq[2 * i], WSUM(tmp));
      double fdq = AD_FD(pq[2 * i + 1], WSUM(tmp));
      ad_deriv(ad_fmt("roots_out vjp d/dp[%d]", i), dpq[2 * i],
               w[i] * (-x / fx), fdp, AD_TOL_D);
      ad_deriv(ad_fmt("roots_out vjp d/dq[%d]", i), dpq[2 * i + 1], w[i] / fx,
               fdq, AD_TOL_D);
    }
  }

  // sqrt by Newton: d/da = 1 / (2 sqrt a), d/dtol = 0.
  for (int i = 0; i < n; i++) {
    double a = vas[i], tol = 1e-13;
    grad2 g = __ad_gradient_2(newton_sqrt, a, tol);
    double fda = AD_FD(a, newton_sqrt(a, tol));
    ad_deriv(ad_fmt("newton_sqrt(%g) d/da", a), g.dp, 0.5 / sqrt(a), fda,
             AD_TOL_D);
    ad_check(ad_fmt("newton_sqrt(%g) d/dtol", a), g.dq, 0, 0, 0);
  }

  return ad_finish();
}
