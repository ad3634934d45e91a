// Second derivatives by nesting requests: the gradient (or derivative) of
// a function that itself asks for a gradient (or derivative). Inner
// requests are lowered first whatever the source order: d2_before is
// defined before main, d2_after after it (it failed with "no derivative
// rule for __ad_gradient" when the outer request came first).
//   f(x)    = sin x * x^2       f'' = -sin x x^2 + 4 x cos x + 2 sin x
//   g(x, y) = sin x * y^2 + x^2 y     d2g/dxdy = 2 y cos x + 2 x
//   h(x, n) = sum_{i<=n} i x^3         h'' = 6 x n(n+1)/2
// The inner gradient of h loops, so at -O0 its derivative keeps records on
// the runtime tape: the outer derivative is taken in forward mode there
// (reverse over it is a clear error at -O0: diagnostics/nested-reverse-loop.c;
// at -O2 it works and is checked too).
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
#include "ad.h"
#include "adcheck.h"

double f(double x) { return sin(x) * x * x; }
double d_rev(double x) { return __ad_gradient(f, x); }
double d_fwd(double x) { return __ad_derivative(f, x, 1.0); }
double d2_after(double x);

double g(double x, double y) { return sin(x) * y * y + x * x * y; }
double dg_dx(double x, double y) { return __ad_gradient(g, x, AD_CONST, y); }

double h(double x, int n) {
  double s = 0;
  for (int i = 1; i <= n; i++)
    s += x * x * x * i;
  return s;
}
double dh(double x, int n) { return __ad_gradient(h, x, n); }

// Reverse over forward where the inner derivative calls a helper's JVP
// with no active argument of the outer request (x AD_CONST): that call
// was taken for one the outer linearization made, and unzipping it
// crashed the compiler (found by probing). d2(x^3 y)/dxdy = 3 x^2.
__attribute__((noinline)) double cube(double x) { return x * x * x; }
double cube_times(double x, double y) { return cube(x) * y; }
double d_cube_dx(double x, double y) {
  return __ad_derivative(cube_times, x, 1.0, y, 0.0);
}

int main(void) {
  volatile double vx = 0.9, vy = -1.3;
  double x = vx, y = vy;
  double want = -sin(x) * x * x + 4 * x * cos(x) + 2 * sin(x);
  ad_deriv("rev over rev", __ad_gradient(d_rev, x), want,
           AD_FD(x, d_rev(x)), AD_TOL_D);
  ad_deriv("fwd over rev", __ad_derivative(d_rev, x, 1.0), want,
           AD_FD(x, d_rev(x)), AD_TOL_D);
  ad_deriv("rev over fwd", __ad_gradient(d_fwd, x), want,
           AD_FD(x, d_fwd(x)), AD_TOL_D);
  ad_deriv("fwd over fwd", __ad_derivative(d_fwd, x, 1.0), want,
           AD_FD(x, d_fwd(x)), AD_TOL_D);
  ad_deriv("outer request first", __ad_gradient(d2_after, x), want,
           AD_FD(x, d2_after(x)), AD_TOL_D);
  ad_deriv("mixed partial", __ad_gradient(dg_dx, AD_CONST, x, y),
           2 * y * cos(x) + 2 * x, AD_FD(y, dg_dx(x, y)), AD_TOL_D);
  volatile int vn = 5;
  int n = vn;
  double hpp = 6 * x * n * (n + 1) / 2;
  ad_deriv("fwd over rev, looped", __ad_derivative(dh, x, 1.0, n), hpp,
           AD_FD(x, dh(x, n)), AD_TOL_D);
#ifdef __OPTIMIZE__
  ad_deriv("rev over rev, looped", __ad_gradient(dh, x, n), hpp,
           AD_FD(x, dh(x, n)), AD_TOL_D);
#endif
  ad_check("rev over fwd, inner helper JVP",
           __ad_gradient(d_cube_dx, AD_CONST, x, y), 3 * x * x, 1e-12, 0);
  return ad_finish();
}

double d2_after(double x) { return __ad_gradient(f, x); }
