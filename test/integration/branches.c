// Control flow on active values: comparisons, ?: (selects at -O2), nested
// ternaries, if/else-if chains merging into one variable (phis), early
// returns, && / || short-circuits, comparison results used as numbers,
// branches whose one side is constant, and a two-variable nest. Every branch
// is exercised from both sides; no point lies near a boundary.
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O2 -ffast-math %s -o %t.fm %adlibs && %t.fm

#include "ad.h"
#include "adcheck.h"

typedef struct {
  double dx, dy;
} grad2;
grad2 __ad_gradient_2(void *fn, ...) AD_MARKER;

double b_ternary(double x) { return x < 0 ? -x * x : x * x * x; }

double b_chain(double x) {
  double r;
  if (x < -1)
    r = x * x * 2;
  else if (x < 0)
    r = -3 * x + 5;
  else if (x < 2)
    r = x * x * x - x;
  else
    r = 8 / x;
  return r * x;
}

double b_early(double x) {
  if (x > 3)
    return x * x;
  double y = x * 2;
  if (y < 1)
    return y * y * y;
  return y + x * y;
}

double b_cmp_mult(double x) { return (x > 1) * x * x + (x <= 1) * (2 - x); }

double b_max(double x) {
  double a = x * x, b = 2 * x + 1;
  return (a > b ? a : b) * 0.5;
}

double b_logic(double x) {
  if (x > -1 && x < 1)
    return x * x * x;
  if (x < -2 || x > 2.5)
    return 1 / x;
  return x;
}

double b_phi(double x) {
  double a = x * x;
  double b = 3 * x;
  double c;
  if (a > 2)
    c = a - b;
  else
    c = a * b;
  return c * a + b;
}

double b_const_branch(double x) { return x > 1 ? 4.0 : x * x; }

double b_ternary_chain(double x) {
  return x < -1 ? x : x < 1 ? x * x : x < 2 ? 2 * x - 1 : 3;
}

double b_eq(double x) {
  if (x == 1.0)
    return 0;
  return x * x;
}

double b_nested2(double x, double y) {
  if (x > y) {
    if (x * y > 1)
      return x * y * y;
    return x - y;
  }
  return y > 0 ? x * x + y : x / y;
}

// Boundaries: 0, +-1, -2, 2, 2.5, 3, 0.5, +-sqrt(2), 1 +- sqrt(2).
static volatile double pts[] = {-2.7, -1.6, -0.8, -0.2, 0.3, 0.7,
                                1.3,  1.9,  2.2,  2.8,  3.6};

int main(void) {
  for (unsigned i = 0; i < sizeof pts / sizeof pts[0]; i++) {
    double x = pts[i];
    AD_CHECK1(b_ternary, x < 0 ? -2 * x : 3 * x * x);
    {
      double r, dr;
      if (x < -1)
        r = x * x * 2, dr = 4 * x;
      else if (x < 0)
        r = -3 * x + 5, dr = -3;
      else if (x < 2)
        r = x * x * x - x, dr = 3 * x * x - 1;
      else
        r = 8 / x, dr = -8 / (x * x);
      AD_CHECK1(b_chain, dr * x + r);
    }
    AD_CHECK1(b_early, x > 3 ? 2 * x : x < 0.5 ? 24 * x * x : 2 + 4 * x);
    AD_CHECK1(b_cmp_mult, x > 1 ? 2 * x : -1.0);
    AD_CHECK1(b_max, x * x > 2 * x + 1 ? x : 1.0);
    AD_CHECK1(b_logic, (x > -1 && x < 1)     ? 3 * x * x
                       : (x < -2 || x > 2.5) ? -1 / (x * x)
                                             : 1.0);
    {
      double a = x * x, b = 3 * x, c, dc;
      if (a > 2)
        c = a - b, dc = 2 * x - 3;
      else
        c = a * b, dc = 9 * x * x;
      AD_CHECK1(b_phi, dc * a + c * 2 * x + 3);
    }
    AD_CHECK1(b_const_branch, x > 1 ? 0.0 : 2 * x);
    AD_CHECK1(b_ternary_chain, x < -1  ? 1.0
                               : x < 1 ? 2 * x
                               : x < 2 ? 2.0
                                       : 0.0);
    AD_CHECK1(b_eq, 2 * x);
  }

  // One pair per branch of b_nested2.
  static volatile double xy[][2] = {{2.0, 1.5},   {-1.5, -2.2}, {0.5, 0.2},
                                    {-0.4, -2.0}, {-1.0, 0.5},  {-2.0, -0.5}};
  for (unsigned i = 0; i < sizeof xy / sizeof xy[0]; i++) {
    double x = xy[i][0], y = xy[i][1], ax, ay;
    grad2 g = __ad_gradient_2(b_nested2, x, y);
    if (x > y) {
      if (x * y > 1)
        ax = y * y, ay = 2 * x * y;
      else
        ax = 1, ay = -1;
    } else if (y > 0) {
      ax = 2 * x, ay = 1;
    } else {
      ax = 1 / y, ay = -x / (y * y);
    }
    double fdx = AD_FD(x, b_nested2(x, y)), fdy = AD_FD(y, b_nested2(x, y));
    ad_deriv(ad_fmt("d b_nested2/dx (%g,%g)", x, y), g.dx, ax, fdx, AD_TOL_D);
    ad_deriv(ad_fmt("d b_nested2/dy (%g,%g)", x, y), g.dy, ay, fdy, AD_TOL_D);
  }
  return ad_finish();
}
