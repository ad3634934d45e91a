// The gamma function: lgamma, tgamma and lgamma_r (double and float), whose
// derivatives need digamma, which libm lacks (the runtime's __ad_digamma,
// runtime/SpecialFunctions.cpp); and second derivatives of lgamma, which
// need trigamma. Test points are where psi and psi1 have closed forms:
//   psi(1) = -g, psi(1/2) = -g - 2 ln 2, psi(x + 1) = psi(x) + 1/x;
//   psi1(1) = pi^2/6, psi1(1/2) = pi^2/2, psi1(x + 1) = psi1(x) - 1/x^2,
// including negative x (gamma < 0 at -1/2, > 0 at -3/2).
//   lg(x) = lgamma x                  -> psi x
//   tg(x) = tgamma x                  -> tgamma x psi x
//   lr(x) = lgamma_r(x, &s) + s x      -> psi x + s     (s = sign of gamma)
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O2 -ffast-math %s -o %t.fm %adlibs && %t.fm
#define _GNU_SOURCE
#include "ad.h"
#include "adcheck.h"
#include <math.h>

double lg(double x) { return lgamma(x); }
double tg(double x) { return tgamma(x); }
double lr(double x) {
  int s;
  double r = lgamma_r(x, &s);
  return r + s * x;
}
float lgf(float x) { return lgammaf(x); }
float tgf(float x) { return tgammaf(x); }
float lrf(float x) {
  int s;
  float r = lgammaf_r(x, &s);
  return r + s * x;
}
double dlg_fwd(double x) { return __ad_derivative(lg, x, 1.0); }
double dlg_rev(double x) { return __ad_gradient(lg, x); }

static const double EulerGamma = 0.57721566490153286061;
static const double Pi = 3.14159265358979323846;

int main(void) {
  double psiHalf = -EulerGamma - 2 * log(2.0), psi1Half = Pi * Pi / 2;
  double psi1One = Pi * Pi / 6;
  struct {
    double x, psi, psi1;
  } pts[] = {
      {1, -EulerGamma, psi1One},
      {0.5, psiHalf, psi1Half},
      {2.5, psiHalf + 2 + 2.0 / 3, psi1Half - 4 - 4.0 / 9},
      {4, -EulerGamma + 1 + 0.5 + 1.0 / 3, psi1One - 1 - 0.25 - 1.0 / 9},
      {-0.5, psiHalf + 2, psi1Half + 4},
      {-1.5, psiHalf + 2 + 2.0 / 3, psi1Half + 4 + 4.0 / 9},
  };
  for (unsigned i = 0; i < sizeof pts / sizeof pts[0]; i++) {
    volatile double vx = pts[i].x;
    double x = vx, psi = pts[i].psi, psi1 = pts[i].psi1;
    int s;
    lgamma_r(x, &s);
    AD_CHECK1(lg, psi);
    AD_CHECK1(tg, tgamma(x) * psi);
    AD_CHECK1(lr, psi + s);
    ad_deriv(ad_fmt("lg fwd(%g)", x), __ad_derivative(lg, x, 1.0), psi,
             AD_FD(x, lg(x)), AD_TOL_D);
    ad_deriv(ad_fmt("tg fwd(%g)", x), __ad_derivative(tg, x, 1.0),
             tgamma(x) * psi, AD_FD(x, tg(x)), AD_TOL_D);
    AD_CHECK1F(lgf, psi);
    AD_CHECK1F(tgf, tgamma(x) * psi);
    AD_CHECK1F(lrf, psi + s);
    // lgamma'' = trigamma, in all four nestings.
    ad_deriv(ad_fmt("rev over fwd(%g)", x), __ad_gradient(dlg_fwd, x), psi1,
             AD_FD(x, dlg_fwd(x)), AD_TOL_D);
    ad_deriv(ad_fmt("fwd over rev(%g)", x), __ad_derivative(dlg_rev, x, 1.0),
             psi1, AD_FD(x, dlg_rev(x)), AD_TOL_D);
    ad_deriv(ad_fmt("rev over rev(%g)", x), __ad_gradient(dlg_rev, x), psi1,
             AD_FD(x, dlg_rev(x)), AD_TOL_D);
    ad_deriv(ad_fmt("fwd over fwd(%g)", x), __ad_derivative(dlg_fwd, x, 1.0),
             psi1, AD_FD(x, dlg_fwd(x)), AD_TOL_D);
  }
#ifndef __FAST_MATH__ // which assumes there are no infinities
  // Poles: digamma is -inf at +0 and +inf at -0 (lgamma's slope there).
  ad_check("psi(+0)", __ad_gradient(lg, 0.0) == -INFINITY, 1, 0, 0);
  ad_check("psi(-0)", __ad_gradient(lg, -0.0) == INFINITY, 1, 0, 0);
#endif
  return ad_finish();
}
