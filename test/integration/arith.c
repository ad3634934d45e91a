// Reverse mode through plain double arithmetic: + - * /, unary minus,
// constants, cancellation (x*x - x*x, x/x), nested quotients and fmod
// (derivative 1 in the dividend, -trunc(x/y) in the divisor); degenerate
// functions (identity, constant, integer-valued result).
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O2 -ffast-math %s -o %t.fm %adlibs && %t.fm

#include "ad.h"
#include "adcheck.h"
#include <math.h>

typedef struct {
  double dx, dy;
} grad2;
grad2 __ad_gradient_2(void *fn, ...) AD_MARKER;

double f_add(double x) { return x + 3.5; }
double f_sub(double x) { return 2.0 - x; }
double f_poly(double x) { return 3 * x * x * x - 2 * x * x + x - 7; }
double f_horner(double x) { return ((0.5 * x - 1.25) * x + 2) * x - 3; }
double f_div(double x) { return (x + 1) / (x * x + 2); }
double f_recip(double x) { return 1 / x; }
double f_neg(double x) { return -x * -(x - 2); }
double f_negsq(double x) { return -(x * x) + -x; }
double f_cancel(double x) { return x * x - x * x + x; }
double f_xdivx(double x) { return x / x * 2 + x * 0.5; }
double f_nested_div(double x) { return x / (1 + x / (2 + x * x)); }
double f_cubic(double x) { return (x - 1) * (x + 2) * (x - 3) / 4; }
double f_fmod1(double x) { return fmod(x, 1.5); }
double f_fmod_sq(double x) { return fmod(x * x, 3.0) * x; }
static double f_chain(double x) {
  double a = x * 2 - 1;
  double b = a * a / 3;
  double c = b - a * x;
  return c * c + b;
}

// Degenerate results: the input itself, its negation, a constant, and an
// integer-valued (piecewise constant) result.
double f_id(double x) { return x; }
double f_neg_id(double x) { return -x; }
double f_const(double x) {
  (void)x;
  return 2.5;
}
double f_int_result(double x) { return (double)(int)(x * 3.3); }

double g_mixed(double x, double y) { return x * y - x / y + y * y * y; }
double g_fmod(double x, double y) { return fmod(x, y); }

// Points: none near 0 (1/x), multiples of 1.5 (fmod(x, 1.5)), x*x near
// multiples of 3 (fmod(x*x, 3)), or 3.3*x near integers.
static volatile double pts[] = {-2.3, -1.1, -0.7, 0.6, 1.1, 2.7, 3.4};

int main(void) {
  for (unsigned i = 0; i < sizeof pts / sizeof pts[0]; i++) {
    double x = pts[i];
    AD_CHECK1(f_id, 1.0);
    AD_CHECK1(f_neg_id, -1.0);
    AD_CHECK1(f_const, 0.0);
    AD_CHECK1(f_int_result, 0.0);
    AD_CHECK1(f_add, 1.0);
    AD_CHECK1(f_sub, -1.0);
    AD_CHECK1(f_poly, 9 * x * x - 4 * x + 1);
    AD_CHECK1(f_horner, 1.5 * x * x - 2.5 * x + 2);
    AD_CHECK1(f_div, (2 - 2 * x - x * x) / ((x * x + 2) * (x * x + 2)));
    AD_CHECK1(f_recip, -1 / (x * x));
    AD_CHECK1(f_neg, 2 * x - 2);
    AD_CHECK1(f_negsq, -2 * x - 1);
    AD_CHECK1(f_cancel, 1.0);
    AD_CHECK1(f_xdivx, 0.5);
    {
      double u = x / (2 + x * x);
      double du = (2 - x * x) / ((2 + x * x) * (2 + x * x));
      AD_CHECK1(f_nested_div, ((1 + u) - x * du) / ((1 + u) * (1 + u)));
    }
    AD_CHECK1(f_cubic,
              ((x + 2) * (x - 3) + (x - 1) * (x - 3) + (x - 1) * (x + 2)) / 4);
    AD_CHECK1(f_fmod1, 1.0);
    AD_CHECK1(f_fmod_sq, 2 * x * x + fmod(x * x, 3.0));
    {
      double a = x * 2 - 1, b = a * a / 3, c = b - a * x;
      double da = 2, db = 2 * a * da / 3, dc = db - da * x - a;
      AD_CHECK1(f_chain, 2 * c * dc + db);
    }
  }

  static volatile double xy[][2] = {
      {5.3, 1.7}, {-4.1, 1.3}, {2.2, -0.9}, {0.5, 2.0}, {-1.4, -0.6}};
  for (unsigned i = 0; i < sizeof xy / sizeof xy[0]; i++) {
    double x = xy[i][0], y = xy[i][1];
    grad2 g = __ad_gradient_2(g_mixed, x, y);
    double fdx = AD_FD(x, g_mixed(x, y)), fdy = AD_FD(y, g_mixed(x, y));
    ad_deriv(ad_fmt("d g_mixed/dx (%g,%g)", x, y), g.dx, y - 1 / y, fdx,
             AD_TOL_D);
    ad_deriv(ad_fmt("d g_mixed/dy (%g,%g)", x, y), g.dy,
             x + x / (y * y) + 3 * y * y, fdy, AD_TOL_D);

    g = __ad_gradient_2(g_fmod, x, y);
    fdx = AD_FD(x, g_fmod(x, y));
    fdy = AD_FD(y, g_fmod(x, y));
    ad_deriv(ad_fmt("d fmod/dx (%g,%g)", x, y), g.dx, 1.0, fdx, AD_TOL_D);
    ad_deriv(ad_fmt("d fmod/dy (%g,%g)", x, y), g.dy, -trunc(x / y), fdy,
             AD_TOL_D);
  }
  return ad_finish();
}
