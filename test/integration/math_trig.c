// Trigonometric and hyperbolic functions, double and float variants:
// sin cos tan asin acos atan atan2 sinh cosh tanh asinh acosh atanh, alone
// and composed.
// Without -ffast-math clang emits libm calls; with -ffast-math or
// -fno-math-errno clang 19 emits llvm.sin/cos/tan/asin/acos/atan/sinh/cosh/
// tanh intrinsics (atan2 stays a call), so the same file is compiled both ways.
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O0 -ffast-math %s -o %t.fm0 %adlibs && %t.fm0
// RUN: %adcc -O2 -ffast-math %s -o %t.fm %adlibs && %t.fm
// RUN: %adcc -O2 -fno-math-errno %s -o %t.ne %adlibs && %t.ne

#include "ad.h"
#include "adcheck.h"
#include <math.h>

typedef struct {
  double dy, dx;
} grad2;
typedef struct {
  float dy, dx;
} grad2f;
grad2 __ad_gradient_2(void *fn, ...) AD_MARKER;
grad2f __ad_gradient_2f(void *fn, ...) AD_MARKER;

double m_sin(double x) { return sin(x); }
double m_cos(double x) { return cos(x); }
double m_tan(double x) { return tan(x); }
double m_asin(double x) { return asin(x); }
double m_acos(double x) { return acos(x); }
double m_atan(double x) { return atan(x); }
double m_sinh(double x) { return sinh(x); }
double m_cosh(double x) { return cosh(x); }
double m_tanh(double x) { return tanh(x); }
double m_atan2(double y, double x) { return atan2(y, x); }
double m_combo(double x) { return sin(x) * cos(2 * x) + tan(x / 3); }
double m_nest(double x) { return sin(cos(x)) * atan(x * x); }
double m_hyp(double x) { return tanh(sinh(x) / 2) + cosh(x) * sin(x); }

float mf_sin(float x) { return sinf(x); }
float mf_cos(float x) { return cosf(x); }
float mf_tan(float x) { return tanf(x); }
float mf_asin(float x) { return asinf(x); }
float mf_acos(float x) { return acosf(x); }
float mf_atan(float x) { return atanf(x); }
float mf_sinh(float x) { return sinhf(x); }
float mf_cosh(float x) { return coshf(x); }
float mf_tanh(float x) { return tanhf(x); }
double m_asinh(double x) { return asinh(x); }
double m_acosh(double x) { return acosh(x); }
double m_atanh(double x) { return atanh(x); }
float mf_asinh(float x) { return asinhf(x); }
float mf_acosh(float x) { return acoshf(x); }
float mf_atanh(float x) { return atanhf(x); }
float mf_atan2(float y, float x) { return atan2f(y, x); }
float mf_combo(float x) { return sinf(x) * cosf(2 * x) + tanf(x / 3); }

// tan: away from +-pi/2; asin/acos: inside (-1, 1).
static volatile double pts[] = {-2.6, -1.2, -0.4, 0.25, 0.9, 1.3, 3.1};
static volatile double unit[] = {-0.93, -0.5, -0.1, 0.3, 0.77};
// (y, x) in all four quadrants, away from the cut on the negative x axis.
static volatile double yx[][2] = {
    {0.5, 1.2}, {-0.7, 1.1}, {1.3, -0.8}, {-1.5, -0.8}, {0.9, -0.2}};

// Differentiated in float; the formula is evaluated in double at the same
// (float) point.
static double sec2(double t) { return 1 / (cos(t) * cos(t)); }

int main(void) {
  for (unsigned i = 0; i < sizeof pts / sizeof pts[0]; i++) {
    double x = pts[i];
    AD_CHECK1(m_sin, cos(t));
    AD_CHECK1(m_cos, -sin(t));
    AD_CHECK1(m_tan, sec2(t));
    AD_CHECK1(m_atan, 1 / (1 + t * t));
    AD_CHECK1(m_sinh, cosh(t));
    AD_CHECK1(m_cosh, sinh(t));
    AD_CHECK1(m_tanh, 1 - tanh(t) * tanh(t));
    AD_CHECK1(m_combo, cos(t) * cos(2 * t) - 2 * sin(t) * sin(2 * t) +
                        sec2(t / 3) / 3);
    AD_CHECK1(m_nest, -cos(cos(t)) * sin(t) * atan(t * t) +
                       sin(cos(t)) * 2 * t / (1 + t * t * t * t));
    AD_CHECK1(m_hyp, (1 - tanh(sinh(t) / 2) * tanh(sinh(t) / 2)) * cosh(t) / 2 +
                      sinh(t) * sin(t) + cosh(t) * cos(t));

    AD_CHECK1F(mf_sin, cos(t));
    AD_CHECK1F(mf_cos, -sin(t));
    AD_CHECK1F(mf_tan, sec2(t));
    AD_CHECK1F(mf_atan, 1 / (1 + t * t));
    AD_CHECK1F(mf_sinh, cosh(t));
    AD_CHECK1F(mf_cosh, sinh(t));
    AD_CHECK1F(mf_tanh, 1 - tanh(t) * tanh(t));
    AD_CHECK1(m_asinh, 1 / sqrt(t * t + 1));
    AD_CHECK1F(mf_asinh, 1 / sqrt(t * t + 1));
    if (fabs(x) > 1.05) { // acosh's domain (and its sign: acosh(-x) is NaN)
      x = fabs(x);
      AD_CHECK1(m_acosh, 1 / sqrt(t * t - 1));
      AD_CHECK1F(mf_acosh, 1 / sqrt(t * t - 1));
      x = pts[i];
    }
    AD_CHECK1F(mf_combo, cos(t) * cos(2 * t) - 2 * sin(t) * sin(2 * t) +
                          sec2(t / 3) / 3);
  }
  for (unsigned i = 0; i < sizeof unit / sizeof unit[0]; i++) {
    double x = unit[i];
    AD_CHECK1(m_asin, 1 / sqrt(1 - t * t));
    AD_CHECK1(m_acos, -1 / sqrt(1 - t * t));
    AD_CHECK1F(mf_asin, 1 / sqrt(1 - t * t));
    AD_CHECK1F(mf_acos, -1 / sqrt(1 - t * t));
    AD_CHECK1(m_atanh, 1 / (1 - t * t));
    AD_CHECK1F(mf_atanh, 1 / (1 - t * t));
  }
  for (unsigned i = 0; i < sizeof yx / sizeof yx[0]; i++) {
    double y = yx[i][0], x = yx[i][1], r2 = x * x + y * y;
    grad2 g = __ad_gradient_2(m_atan2, y, x);
    double fdy = AD_FD(y, m_atan2(y, x)), fdx = AD_FD(x, m_atan2(y, x));
    ad_deriv(ad_fmt("d atan2/dy (%g,%g)", y, x), g.dy, x / r2, fdy, AD_TOL_D);
    ad_deriv(ad_fmt("d atan2/dx (%g,%g)", y, x), g.dx, -y / r2, fdx, AD_TOL_D);

    float yf = (float)y, xf = (float)x;
    double yd = yf, xd = xf, r2d = xd * xd + yd * yd;
    grad2f gf = __ad_gradient_2f(mf_atan2, yf, xf);
    fdy = AD_FD(yf, mf_atan2(yf, xf));
    fdx = AD_FD(xf, mf_atan2(yf, xf));
    ad_deriv(ad_fmt("d atan2f/dy (%g,%g)", yd, xd), gf.dy, xd / r2d, fdy, AD_TOL_F);
    ad_deriv(ad_fmt("d atan2f/dx (%g,%g)", yd, xd), gf.dx, -yd / r2d, fdx, AD_TOL_F);
  }
  return ad_finish();
}
