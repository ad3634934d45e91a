// Calls to user-defined scalar helpers inside the differentiated function:
// static and external helpers, noinline helpers (still calls at -O2), a
// helper called several times and composed with itself, helpers with
// constant (inactive) double arguments and with int arguments, a helper
// returning an int, a helper with branches, a float helper, a chain of
// helpers four deep, the same active value passed as two arguments, and
// helpers that are themselves differentiated directly as well.
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O2 -ffast-math %s -o %t.fm %adlibs && %t.fm
// With LTO (GNU ld and LLVMgold): the gradients are built when the file is
// compiled, before the link; the link step must keep them working.
// RUN: %adcc -O0 -flto=thin -fuse-ld=bfd %s -o %t.thin0 %adlibs && %t.thin0
// RUN: %adcc -O2 -flto=thin -fuse-ld=bfd %s -o %t.thin2 %adlibs && %t.thin2

#include "ad.h"
#include "adcheck.h"

typedef struct {
  double dx, dy;
} grad2;
grad2 __ad_gradient_2(void *fn, ...) AD_MARKER;

static double sq(double v) { return v * v; }
double cube_plus(double v, double w) { return v * v * w + w; }
static double scale_int(double v, int k) { return v * k + k; }
__attribute__((noinline)) static double ni_poly(double v) {
  return (v - 1) * (v + 2);
}
__attribute__((noinline)) double ni_two(double a, double b) {
  return a * b - b;
}
static double piecewise(double v) { return v < 0 ? -v * 2 : v * v; }
static double nested(double v) { return sq(piecewise(v)) + ni_poly(v); }
static float helper_f(float v) { return v * v * 0.5f; }
static int bucket(double v) { return (int)(v * 2); }
static double d3(double v) { return sq(v) + v; }
static double d2(double v) { return d3(v) * 2 - v; }
static double d1(double v) { return d2(v) + d3(2 * v); }

double k_twice(double x) { return sq(x) + sq(3 * x - 1); }
double k_compose(double x) { return sq(sq(x) - 1); }
double k_nonstatic(double x) { return cube_plus(x, 2.0) + cube_plus(1.5, x); }
double k_int(double x) { return scale_int(x, 3) * scale_int(x * x, -2); }
double k_noinline(double x) {
  return ni_poly(x) * ni_two(x, x * x) + ni_two(2.0, x);
}
double k_nested(double x) { return nested(x) * x; }
double k_float(double x) { return (double)helper_f((float)x) + x; }
double k_bucket(double x) { return bucket(x) * x * sq(x); }
double k_same_arg(double x) { return ni_two(x, x); }
double k_deep(double x) { return d1(x); }

// 2*x is never near an integer (bucket).
static volatile double pts[] = {-2.1, -0.9, -0.35, 0.45, 1.3, 2.6};

static const ad_tol TOL_Q = {1e-6, 1e-9, 1e-3, 1e-3}; /* via float */

int main(void) {
  for (unsigned i = 0; i < sizeof pts / sizeof pts[0]; i++) {
    double x = pts[i];
    AD_CHECK1(k_twice, 20 * x - 6);
    AD_CHECK1(k_compose, 4 * x * (x * x - 1));
    AD_CHECK1(k_nonstatic, 4 * x + 3.25);
    {
      double a = 3 * x + 3, b = -2 * x * x - 2;
      AD_CHECK1(k_int, 3 * b + a * (-4 * x));
    }
    {
      double p = x * x + x - 2, dp = 2 * x + 1;
      double r = x * x * x - x * x, dr = 3 * x * x - 2 * x;
      AD_CHECK1(k_noinline, dp * r + p * dr + 1);
    }
    {
      double p = x < 0 ? -2 * x : x * x, dp = x < 0 ? -2 : 2 * x;
      double n = p * p + (x * x + x - 2), dn = 2 * p * dp + 2 * x + 1;
      AD_CHECK1(k_nested, dn * x + n);
    }
    AD_CHECK1_TOL(k_float, x + 1, TOL_Q);
    AD_CHECK1(k_bucket, 3 * (int)(x * 2) * x * x);
    AD_CHECK1(k_same_arg, 2 * x - 1);
    AD_CHECK1(k_deep, 12 * x + 3);

    // Helpers differentiated directly, although they are also callees.
    double y = 1.7 - x;
    grad2 g = __ad_gradient_2(cube_plus, x, y);
    double fdx = AD_FD(x, cube_plus(x, y)), fdy = AD_FD(y, cube_plus(x, y));
    ad_deriv(ad_fmt("d cube_plus/dv (%g,%g)", x, y), g.dx, 2 * x * y, fdx,
             AD_TOL_D);
    ad_deriv(ad_fmt("d cube_plus/dw (%g,%g)", x, y), g.dy, x * x + 1, fdy,
             AD_TOL_D);
    g = __ad_gradient_2(ni_two, x, y);
    fdx = AD_FD(x, ni_two(x, y));
    fdy = AD_FD(y, ni_two(x, y));
    ad_deriv(ad_fmt("d ni_two/da (%g,%g)", x, y), g.dx, y, fdx, AD_TOL_D);
    ad_deriv(ad_fmt("d ni_two/db (%g,%g)", x, y), g.dy, x - 1, fdy, AD_TOL_D);
    double gs = __ad_gradient(sq, x);
    double fds = AD_FD(x, sq(x));
    ad_deriv(ad_fmt("sq'(%g)", x), gs, 2 * x, fds, AD_TOL_D);
  }
  return ad_finish();
}
