// The same function differentiated several times in one module: the same
// request at several call sites (two in one expression, one in another
// function), different activity patterns of one function (x active, y
// active, both), reverse and forward mode of the same function, and a
// function differentiated both directly and as the callee of another
// differentiated function.
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2

#include "ad.h"
#include "adcheck.h"
#include <math.h>

typedef struct {
  double dx, dy;
} grad2;
grad2 __ad_gradient_2(void *fn, ...) AD_MARKER;

double f(double x, double y) { return x * sin(y) + y * y * x; }
double g(double x) { return f(x, 2 * x) * x; }
double h(double x) { return x * x * x - x; }

static double fx(double x, double y) { return sin(y) + y * y; }
static double fy(double x, double y) { return x * cos(y) + 2 * y * x; }

__attribute__((noinline)) static double dfdx_elsewhere(double x, double y) {
  return __ad_gradient(f, x, AD_CONST, y);
}
__attribute__((noinline)) static double dh_elsewhere(double x) {
  return __ad_gradient(h, x);
}

static volatile double xy[][2] = {{0.7, -1.3}, {-2.1, 0.4}, {1.6, 2.5}};

int main(void) {
  for (unsigned i = 0; i < sizeof xy / sizeof xy[0]; i++) {
    double x = xy[i][0], y = xy[i][1], t = 0, got, fd, fdx, fdy;
    char at[64];
    snprintf(at, sizeof at, "(%g,%g)", x, y);
    fdx = AD_FD(x, f(x, y));
    fdy = AD_FD(y, f(x, y));

    got = __ad_gradient(f, x, AD_CONST, y);
    ad_deriv(ad_fmt("f d/dx #1 %s", at), got, fx(x, y), fdx, AD_TOL_D);
    got = __ad_gradient(f, x, AD_CONST, y);
    ad_deriv(ad_fmt("f d/dx #2 %s", at), got, fx(x, y), fdx, AD_TOL_D);
    got = dfdx_elsewhere(x, y);
    ad_deriv(ad_fmt("f d/dx in another function %s", at), got, fx(x, y), fdx, AD_TOL_D);
    got = __ad_gradient(f, AD_CONST, x, y);
    ad_deriv(ad_fmt("f d/dy %s", at), got, fy(x, y), fdy, AD_TOL_D);
    grad2 gr = __ad_gradient_2(f, x, y);
    ad_deriv(ad_fmt("f grad.dx %s", at), gr.dx, fx(x, y), fdx, AD_TOL_D);
    ad_deriv(ad_fmt("f grad.dy %s", at), gr.dy, fy(x, y), fdy, AD_TOL_D);

    double dx = 0.8, dy = -1.7;
    got = __ad_derivative(f, x, dx, y, dy);
    fd = AD_FD(t, f(x + t * dx, y + t * dy));
    ad_deriv(ad_fmt("f forward %s", at), got, fx(x, y) * dx + fy(x, y) * dy, fd, AD_TOL_D);
    got = __ad_derivative(f, x, 1.0, AD_CONST, y);
    ad_deriv(ad_fmt("f forward, y const %s", at), got, fx(x, y), fdx, AD_TOL_D);

    // g calls f: both differentiated.
    double gx = fx(x, 2 * x) * x + 2 * fy(x, 2 * x) * x + f(x, 2 * x);
    fd = AD_FD(x, g(x));
    got = __ad_gradient(g, x);
    ad_deriv(ad_fmt("g' %g", x), got, gx, fd, AD_TOL_D);
    got = __ad_derivative(g, x, 1.0);
    ad_deriv(ad_fmt("g' forward %g", x), got, gx, fd, AD_TOL_D);

    // Two requests in one expression, and one in another function.
    double x2 = 2 * x;
    double fd1 = AD_FD(x, h(x)), fd2 = AD_FD(x2, h(x2));
    got = __ad_gradient(h, x) + 10 * __ad_gradient(h, x2);
    ad_deriv(ad_fmt("h'(x) + 10 h'(2x) %g", x), got,
             (3 * x * x - 1) + 10 * (3 * x2 * x2 - 1), fd1 + 10 * fd2, AD_TOL_D);
    got = dh_elsewhere(x);
    ad_deriv(ad_fmt("h' in another function %g", x), got, 3 * x * x - 1, fd1, AD_TOL_D);
  }
  return ad_finish();
}
