// Guarded expressions that the optimiser (or, at -O0, the pass's own copy)
// turns into selects, and one that stays a branch: both arms are computed, and the arm not chosen may
// have infinite or NaN partials where the program never uses its value.
// Reverse mode gave NaN there (0 times an infinite partial); the gradient
// is that of the arm chosen, as in forward mode.
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// With -fno-math-errno, sqrt and log are intrinsics that can be speculated.
// RUN: %adcc -O0 -fno-math-errno %s -o %t.ne0 %adlibs && %t.ne0
// RUN: %adcc -O2 -fno-math-errno %s -o %t.ne2 %adlibs && %t.ne2
#include "ad.h"
#include "adcheck.h"
#include <math.h>

double safe_div(double a, double b) {
  if (b != 0)
    return a / b;
  return 0.0;
}

double radial(double x, double y) {
  double r = sqrt(x * x + y * y);
  return r > 0 ? x * y / r : 0;
}

// A constraint penalty: only the violated constraints count.
double penalty(const double *g, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += g[i] > 0 ? sqrt(g[i]) : 0.0;
  return s;
}

double nan_guard(double x, double y) {
  double r = log(x) * y;
  if (isnan(r))
    return 0;
  return r;
}

// The same through a branch: r is computed before it and used only in the
// branch not taken at the origin, so its cotangent is zero there, and its
// partial 1 / (2r) is infinite. Quotients keep a zero cotangent zero.
__attribute__((noinline)) static void normalized(double x, double y,
                                                 double *o) {
  double r = sqrt(x * x + y * y);
  o[0] = 0;
  o[1] = 0;
  if (r > 0) {
    o[0] = x / r;
    o[1] = y / r;
  }
}
double project(double a, double b) {
  double o[2];
  normalized(a, b, o);
  return o[0] + 2 * o[1] + a;
}

// A masked mean: from -O2 the optimiser selects between s / c and 0 and
// freezes the quotient ('freeze' was an error: not supported).
double masked_mean(const double *x, int n) {
  double s = 0;
  int c = 0;
  for (int i = 0; i < n; i++)
    if (x[i] > 0) {
      s += x[i];
      c++;
    }
  return c > 0 ? s / c : 0;
}

typedef struct { double d0, d1; } grad2;
grad2 __ad_gradient_2(void *, ...) AD_MARKER;

int main(void) {
  volatile double zero = 0.0;
  grad2 g = __ad_gradient_2(safe_div, 0.5, zero);
  ad_check("safe_div d/da at b = 0", g.d0, 0, 0, 0);
  ad_check("safe_div d/db at b = 0", g.d1, 0, 0, 0);
  g = __ad_gradient_2(safe_div, 0.5, 2.0);
  ad_check("safe_div d/da", g.d0, 0.5, 1e-15, 0);
  ad_check("safe_div d/db", g.d1, -0.125, 1e-15, 0);

  g = __ad_gradient_2(radial, zero, zero);
  ad_check("radial d/dx at 0", g.d0, 0, 0, 0);
  ad_check("radial d/dy at 0", g.d1, 0, 0, 0);

  double c[4] = {-0.5, 0.3, -2.0, 1.2}, dc[4] = {0, 0, 0, 0};
  __ad_gradient(penalty, c, dc, 4);
  ad_check("penalty d/dg0", dc[0], 0, 0, 0);
  ad_check("penalty d/dg1", dc[1], 0.5 / sqrt(0.3), 1e-15, 0);
  ad_check("penalty d/dg2", dc[2], 0, 0, 0);
  ad_check("penalty d/dg3", dc[3], 0.5 / sqrt(1.2), 1e-15, 0);

  g = __ad_gradient_2(nan_guard, -1.3, 0.6);
  ad_check("nan_guard d/dx", g.d0, 0, 0, 0);
  ad_check("nan_guard d/dy", g.d1, 0, 0, 0);
  g = __ad_gradient_2(nan_guard, 1.3, 0.6);
  ad_check("nan_guard d/dx (taken)", g.d0, 0.6 / 1.3, 1e-15, 0);
  ad_check("nan_guard d/dy (taken)", g.d1, log(1.3), 1e-15, 0);
  double m[4] = {1, -2, 3, 0.5}, dm[4] = {0, 0, 0, 0};
  __ad_gradient(masked_mean, m, dm, 4);
  for (int i = 0; i < 4; i++)
    ad_check(ad_fmt("masked_mean d/dx%d", i), dm[i], m[i] > 0 ? 1.0 / 3 : 0,
             1e-15, 0);
  double tm[4] = {1, 1, 0, 0};
  ad_check("masked_mean forward", __ad_derivative(masked_mean, m, tm, 4),
           1.0 / 3, 1e-15, 0);
  double none[2] = {-1, -2}, dnone[2] = {0, 0};
  __ad_gradient(masked_mean, none, dnone, 2);
  ad_check("masked_mean d/dx0, none positive", dnone[0], 0, 0, 0);

  g = __ad_gradient_2(project, zero, zero);
  ad_check("project d/da at 0", g.d0, 1, 0, 0);
  ad_check("project d/db at 0", g.d1, 0, 0, 0);
  ad_check("project forward at 0", __ad_derivative(project, zero, 1.0, zero, 0.0),
           1, 0, 0);
  g = __ad_gradient_2(project, 0.6, 0.8);
  ad_check("project d/da", g.d0, 1 + 0.64 - 2 * 0.48, 1e-15, 0);
  ad_check("project d/db", g.d1, -0.48 + 2 * 0.36, 1e-15, 0);
  return ad_finish();
}
