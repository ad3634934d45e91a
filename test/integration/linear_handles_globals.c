// A handle of a function that writes and reads back a global scratch
// buffer (whose shadow the pass provides and each application clears) and
// calls a function with a custom forward rule: rows by __ad_vjp equal
// __ad_gradient and central differences, columns by __ad_jvp equal
// __ad_derivative, over two rounds in turns.
//
// RUN: %adcc -O0 -g %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcc -O2 -ffast-math %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O3 %s -o %t.O3 %adlibs && %t.O3

#include "ad.h"
#include "adcheck.h"
#include <math.h>

enum { N = 4 };
static double scratch[N];

double cube(double v) { return v * v * v; }
double cube_jvp(double v, double dv) { return 3 * v * v * dv; }
AD_CUSTOM_JVP(cube, cube_jvp)

double h(const double *x, int n) {
  for (int i = 0; i < n; ++i)
    scratch[i] = sin(x[i]) * x[(i + 1) % n];
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += cube(scratch[i]) + scratch[(i + 2) % n] * x[i];
  return s;
}

int main(void) {
  double x[N] = {0.3, -0.2, 0.5, 0.9}, v;
  ad_linear *L = __ad_linearize(h, &v, x, N);
  // Equal up to rounding: -ffast-math may reassociate f.fwd and h apart.
  ad_check("value", v, h(x, N), 1e-14, 0);
  for (int round = 0; round < 2; ++round)
    for (int i = 0; i < N; ++i) {
      double g[N] = {0}, g2[N] = {0}, e[N] = {0};
      e[i] = 1;
      __ad_vjp_void(h, L, 1.0, x, g, N);
      __ad_gradient_void(h, x, g2, N);
      double fd = AD_FD(x[i], h(x, N));
      ad_check(ad_fmt("row [%d]", i), g[i], g2[i], 1e-13, 1e-13);
      ad_check(ad_fmt("row [%d] vs fd", i), g[i], fd, 1e-6, 1e-8);
      double col = __ad_jvp(h, L, x, e, N);
      ad_check(ad_fmt("column %d", i), col, __ad_derivative(h, x, e, N),
               1e-13, 1e-13);
    }
  ad_linear_free(L);
  return ad_finish();
}
