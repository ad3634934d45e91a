// A handle of a function that calls through a pointer (the dispatcher over
// the file's functions of that signature), with the pointer AD_CONST and
// both an array and a scalar active: __ad_vjp equals __ad_gradient and
// central differences, __ad_jvp equals __ad_derivative, for two targets,
// each with a handle of its own; the primal runs once per handle.
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O3 %s -o %t.O3 %adlibs && %t.O3

#include "ad.h"
#include "adcheck.h"
#include <math.h>

enum { N = 4 };
static int primal_runs;

static double sq(double v) { return v * v; }
static double soft(double v) { return log1p(exp(v)); }
typedef double (*unary)(double);
double through(unary g, const double *x, double a, int n) {
  ++primal_runs;
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += g(a * x[i]) * x[i];
  return s;
}

int main(int argc, char **argv) {
  (void)argv;
  double x[N] = {0.3, -1.2, 0.8, 0.45}, a = 0.7;
  unary targets[2] = {sq, soft};
  if (argc > 5) // chosen at run time as far as the compiler knows
    targets[0] = soft;
  ad_linear *L[2];
  double value[2];
  for (int k = 0; k < 2; ++k) {
    primal_runs = 0;
    L[k] = __ad_linearize(through, &value[k], AD_CONST, targets[k], x, a, N);
    ad_check(ad_fmt("target %d ran once", k), primal_runs, 1, 0, 0);
    ad_check(ad_fmt("target %d value", k), value[k],
             through(targets[k], x, a, N), 0, 0);
  }
  primal_runs = 0;
  for (int k = 1; k >= 0; --k) {
    unary g = targets[k];
    primal_runs = 0;
    double gx[N] = {0}, gx2[N] = {0};
    double da = __ad_vjp(through, L[k], 1.0, AD_CONST, g, x, gx, a, N);
    int runs = primal_runs;
    double da2 = __ad_gradient(through, AD_CONST, g, x, gx2, a, N);
    ad_check(ad_fmt("target %d: vjp runs no primal code", k), runs, 0, 0, 0);
    ad_check(ad_fmt("target %d d/da", k), da, da2, 1e-13, 1e-13);
    double fd = AD_FD(a, through(g, x, a, N));
    ad_check(ad_fmt("target %d d/da vs fd", k), da, fd, 1e-6, 1e-8);
    for (int i = 0; i < N; ++i) {
      double fdi = AD_FD(x[i], through(g, x, a, N));
      ad_check(ad_fmt("target %d d/dx%d", k, i), gx[i], gx2[i], 1e-13, 1e-13);
      ad_check(ad_fmt("target %d d/dx%d vs fd", k, i), gx[i], fdi, 1e-6, 1e-8);
      double e[N] = {0};
      e[i] = 1;
      double col = __ad_jvp(through, L[k], AD_CONST, g, x, e, a, 0.0, N);
      double col2 = __ad_derivative(through, AD_CONST, g, x, e, a, 0.0, N);
      ad_check(ad_fmt("target %d column %d", k, i), col, col2, 1e-13, 1e-13);
    }
    double e[N] = {0};
    double ta = __ad_jvp(through, L[k], AD_CONST, g, x, e, a, 1.0, N);
    ad_check(ad_fmt("target %d jvp in a", k), ta, da, 1e-13, 1e-13);
    ad_linear_free(L[k]);
  }
  return ad_finish();
}
