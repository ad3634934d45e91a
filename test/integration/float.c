// float functions differentiated in float (__ad_gradient_f, and a
// {float, float} result for two active arguments): arithmetic with float
// and double literals, promotion to double inside a float function, float
// and double helpers, branches, switch, int casts, float math calls, an
// AD_CONST float argument. Results are compared at float precision with
// formulas evaluated in double at the same float point.
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O2 -ffast-math %s -o %t.fm %adlibs && %t.fm

#include "ad.h"
#include "adcheck.h"
#include <math.h>

typedef struct {
  float dx, dy;
} grad2f;
grad2f __ad_gradient_2f(void *fn, ...) AD_MARKER;

static float sqf(float v) { return v * v; }
static double dcube(double v) { return v * v * v; }

float ff_poly(float x) { return 3.0f * x * x * x - 2.0f * x * x + x - 7.0f; }
float ff_div(float x) { return (x + 1) / (x * x + 2); }
float ff_branch(float x) { return x < 0.5f ? x * x * x : 2 / x; }
float ff_helper(float x) { return sqf(x) + sqf(3 * x - 1) * x; }
float ff_promote(float x) {
  double d = x;
  return (float)(d * d * 0.5 + sin(d));
}
float ff_dliteral(float x) { return x * 0.1 + x * x; }
float ff_dhelper(float x) { return (float)dcube(x) + x; }
float ff_math(float x) { return expf(x) * sinf(x) + sqrtf(x * x + 1); }
float ff_int(float x) { return x * (int)x; }
float ff_neg(float x) { return -x * fabsf(x); }
float ff_switch(float x) {
  switch ((int)(x * 2)) {
  case 0:
    return x * x;
  case 1:
  case 3:
    return 5 * x;
  case -2:
    return -x * x * x;
  default:
    return x;
  }
}
float ff2(float x, float y) { return x * y + x / y; }
float ff_scaled(float x, float s) { return s * x * x + s; }

// Away from the branch at 0.5, and from integers for x and 2x.
static volatile double pts[] = {-2.3, -1.1, -0.35, 0.2, 0.8, 1.7, 3.3};

int main(void) {
  for (unsigned i = 0; i < sizeof pts / sizeof pts[0]; i++) {
    double x = pts[i];
    AD_CHECK1F(ff_poly, 9 * t * t - 4 * t + 1);
    AD_CHECK1F(ff_div, (2 - 2 * t - t * t) / ((t * t + 2) * (t * t + 2)));
    AD_CHECK1F(ff_branch, t < 0.5 ? 3 * t * t : -2 / (t * t));
    AD_CHECK1F(ff_helper, 2 * t + 6 * (3 * t - 1) * t + (3 * t - 1) * (3 * t - 1));
    AD_CHECK1F(ff_promote, t + cos(t));
    AD_CHECK1F(ff_dliteral, 0.1 + 2 * t);
    AD_CHECK1F(ff_dhelper, 3 * t * t + 1);
    AD_CHECK1F(ff_math, exp(t) * (sin(t) + cos(t)) + t / sqrt(t * t + 1));
    AD_CHECK1F(ff_int, (double)(int)t);
    AD_CHECK1F(ff_neg, -2 * fabs(t));
    {
      int k = (int)(x * 2);
      AD_CHECK1F(ff_switch, k == 0                 ? 2 * t
                         : (k == 1 || k == 3)   ? 5.0
                         : k == -2              ? -3 * t * t
                                                : 1.0);
    }

    float xf = (float)x, yf = (float)(1.9 - x);
    double xd = xf, yd = yf;
    grad2f g = __ad_gradient_2f(ff2, xf, yf);
    double fdx = AD_FD(xf, ff2(xf, yf)), fdy = AD_FD(yf, ff2(xf, yf));
    ad_deriv(ad_fmt("d ff2/dx (%g,%g)", xd, yd), g.dx, yd + 1 / yd, fdx, AD_TOL_F);
    ad_deriv(ad_fmt("d ff2/dy (%g,%g)", xd, yd), g.dy, xd - xd / (yd * yd), fdy, AD_TOL_F);

    float s = (float)(0.5 + x * x);
    float gs = __ad_gradient_f(ff_scaled, xf, AD_CONST, s);
    double fds = AD_FD(xf, ff_scaled(xf, s));
    ad_deriv(ad_fmt("ff_scaled'(%g; s=%g)", xd, (double)s), gs, 2 * (double)s * xd,
             fds, AD_TOL_F);
  }
  return ad_finish();
}
