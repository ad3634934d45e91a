// Deep straight-line chains where every level uses the previous value more
// than once (the adjoint of each level is a sum of several contributions):
//   share_sin:  v = v + 0.02 * sin(v) * v               60 times
//   share_sq:   v = v * v * 0.5 + 0.5                    60 times
//   share_two:  p, q = p + 0.02*p*q, q - 0.02*p*q*q      60 times (2 inputs)
// The differentiated functions have no loops; main propagates the exact
// derivative level by level with the chain rule (in a loop) as the
// reference, and also compares with finite differences.
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

/* X60(s) pastes the statement s 60 times. */
#define X5(s) s s s s s
#define X10(s) X5(s) X5(s)
#define X60(s) X10(s) X10(s) X10(s) X10(s) X10(s) X10(s)

#define LEVELS 60

double share_sin(double x) {
  double v = x;
  X60(v = v + 0.02 * sin(v) * v;)
  return v;
}

double share_sq(double x) {
  double v = x;
  X60(v = v * v * 0.5 + 0.5;)
  return v;
}

double share_two(double p, double q) {
  double np;
  X60(np = p + 0.02 * p * q; q = q - 0.02 * p * q * q; p = np;)
  return p * q + p;
}

static volatile double pts_sin[] = {-2.9, -1.7, -0.6, 0.45, 1.3, 2.4};
static volatile double pts_sq[] = {-1.01, -0.95, 0.9, 0.99, 1.005, 1.01};
static volatile double pts_pq[][2] = {{1.0, 1.0}, {0.6, 1.4}, {-0.5, 0.8}};

int main(void) {
  for (unsigned i = 0; i < sizeof pts_sin / sizeof pts_sin[0]; i++) {
    double x = pts_sin[i], v = x, d = 1;
    for (int k = 0; k < LEVELS; k++) {
      d *= 1 + 0.02 * (cos(v) * v + sin(v));
      v = v + 0.02 * sin(v) * v;
    }
    double got = __ad_gradient(share_sin, x);
    double fd = AD_FD(x, share_sin(x));
    ad_deriv(ad_fmt("share_sin'(%g)", x), got, d, fd, AD_TOL_D);
  }
  for (unsigned i = 0; i < sizeof pts_sq / sizeof pts_sq[0]; i++) {
    double x = pts_sq[i], v = x, d = 1;
    for (int k = 0; k < LEVELS; k++) {
      d *= v;
      v = v * v * 0.5 + 0.5;
    }
    double got = __ad_gradient(share_sq, x);
    double fd = AD_FD(x, share_sq(x));
    ad_deriv(ad_fmt("share_sq'(%g)", x), got, d, fd, AD_TOL_D);
  }
  for (unsigned i = 0; i < sizeof pts_pq / sizeof pts_pq[0]; i++) {
    double p0 = pts_pq[i][0], q0 = pts_pq[i][1];
    /* J = d(p, q)/d(p0, q0), propagated level by level */
    double p = p0, q = q0, jpp = 1, jpq = 0, jqp = 0, jqq = 1;
    for (int k = 0; k < LEVELS; k++) {
      double a = 1 + 0.02 * q, b = 0.02 * p;            /* dp'/dp, dp'/dq */
      double c = -0.02 * q * q, e = 1 - 0.04 * p * q;   /* dq'/dp, dq'/dq */
      double npp = a * jpp + b * jqp, npq = a * jpq + b * jqq;
      double nqp = c * jpp + e * jqp, nqq = c * jpq + e * jqq;
      jpp = npp, jpq = npq, jqp = nqp, jqq = nqq;
      double np = p + 0.02 * p * q;
      q = q - 0.02 * p * q * q;
      p = np;
    }
    /* result r = p*q + p: dr/dp = q + 1, dr/dq = p */
    double wp = (q + 1) * jpp + p * jqp, wq = (q + 1) * jpq + p * jqq;
    grad2 g = __ad_gradient_2(share_two, p0, q0);
    double fdp = AD_FD(p0, share_two(p0, q0)), fdq = AD_FD(q0, share_two(p0, q0));
    ad_deriv(ad_fmt("share_two d/dp (%g,%g)", p0, q0), g.dp, wp, fdp, AD_TOL_D);
    ad_deriv(ad_fmt("share_two d/dq (%g,%g)", p0, q0), g.dq, wq, fdq, AD_TOL_D);
  }
  return ad_finish();
}
