// libm functions that return results through pointers (pass/prepare/LibmOutputs.h):
// sincos and sincosf, modf and modff, frexp and frexpf, double and float,
// rewritten in the differentiated copy into sin/cos, trunc and ldexp.
//   sc(x)    = sin x cos x                     -> cos 2x
//   mf(x)    = frac(3x)^2 + int(3x)            -> 6 frac(3x)
//   fe(x)    = m e, 5x = m 2^e, 0.5 <= |m| < 1 -> 5 2^-e e
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O2 -ffast-math %s -o %t.fm %adlibs && %t.fm
#define _GNU_SOURCE
#include "ad.h"
#include "adcheck.h"
#include <math.h>

double sc(double x) {
  double s, c;
  sincos(x, &s, &c);
  return s * c;
}
float scf(float x) {
  float s, c;
  sincosf(x, &s, &c);
  return s * c;
}
double mf(double x) {
  double ip;
  double fr = modf(3 * x, &ip);
  return fr * fr + ip;
}
float mff(float x) {
  float ip;
  float fr = modff(3 * x, &ip);
  return fr * fr + ip;
}
double fe(double x) {
  int e;
  double m = frexp(5 * x, &e);
  return m * e;
}
float fef(float x) {
  int e;
  float m = frexpf(5 * x, &e);
  return m * e;
}

// Away from modf's jumps (3x an integer) and frexp's (5x a power of 2).
static volatile double pts[] = {-2.25, -0.77, -0.15, 0.37, 1.1, 2.9};

int main(void) {
  for (unsigned i = 0; i < sizeof pts / sizeof pts[0]; i++) {
    double x = pts[i];
    AD_CHECK1(sc, cos(2 * t));
    AD_CHECK1F(scf, cos(2 * t));
    double ip;
    double fr = modf(3 * x, &ip);
    AD_CHECK1(mf, 6 * fr);
    int e;
    frexp(5 * x, &e);
    AD_CHECK1(fe, 5 * ldexp(1.0, -e) * e);
    ad_deriv("sc fwd", __ad_derivative(sc, x, 1.0), cos(2 * x), AD_FD(x, sc(x)),
             AD_TOL_D);
    ad_deriv("mf fwd", __ad_derivative(mf, x, 1.0), 6 * fr, AD_FD(x, mf(x)),
             AD_TOL_D);

    float xf = (float)x, ipf;
    float frf = modff(3 * xf, &ipf);
    AD_CHECK1F(mff, 6 * (double)frf);
    frexpf(5 * xf, &e);
    AD_CHECK1F(fef, 5 * ldexp(1.0, -e) * e);
  }
  return ad_finish();
}
