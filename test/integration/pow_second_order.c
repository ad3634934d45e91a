// Second derivatives of pow(a, b) by nested requests, at b == 0 (where the
// first derivative in a is the constant 0: its own derivative was NaN in
// forward over forward mode at -O0, found by the randomized probe) and
// away from it. Checked against hand derivatives and central differences
// of the first derivative.
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2

#include "ad.h"
#include "adcheck.h"

static double p(double a, double b) { return pow(1.5 + a * a, b); }
double dp_f(double a, double b) { return __ad_derivative(p, a, 1.0, b, 0.0); }
double dp_r(double a, double b) { return __ad_gradient(p, a, AD_CONST, b); }
double ff(double a, double b) { return __ad_derivative(dp_f, a, 1.0, b, 0.0); }
double rf(double a, double b) { return __ad_gradient(dp_f, a, AD_CONST, b); }
double fr(double a, double b) { return __ad_derivative(dp_r, a, 1.0, b, 0.0); }
double rr(double a, double b) { return __ad_gradient(dp_r, a, AD_CONST, b); }

int main(void) {
  volatile double vb = 0;
  double a = 0.62;
  for (int k = 0; k < 3; k++) {
    double b = vb + 0.75 * k; // 0, 0.75, 1.5
    double u = 1.5 + a * a;
    // d/da u^b = 2 a b u^(b-1); again: 2 b u^(b-1) + 4 a^2 b (b-1) u^(b-2).
    double want =
        2 * b * pow(u, b - 1) + 4 * a * a * b * (b - 1) * pow(u, b - 2);
    double fd = AD_FD(a, dp_f(a, b));
    ad_deriv(ad_fmt("forward over forward, b = %g", b), ff(a, b), want, fd,
             AD_TOL_D);
    ad_deriv(ad_fmt("reverse over forward, b = %g", b), rf(a, b), want, fd,
             AD_TOL_D);
    ad_deriv(ad_fmt("forward over reverse, b = %g", b), fr(a, b), want, fd,
             AD_TOL_D);
    ad_deriv(ad_fmt("reverse over reverse, b = %g", b), rr(a, b), want, fd,
             AD_TOL_D);
  }
  return ad_finish();
}
