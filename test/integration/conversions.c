// Conversions inside differentiated code: double -> float -> double
// (derivative passes through, at float precision), float/double parameters
// and results of different types, and int/long/unsigned/char casts of active
// values (piecewise constant: derivative zero, values still used as
// multipliers). Integer code computed from the input is inactive, and so
// are tests of an active value's bits (signbit).
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O2 -ffast-math %s -o %t.fm %adlibs && %t.fm

#include "ad.h"
#include "adcheck.h"

double c_float_round(double x) { return (double)(float)x * x; }
double c_float_mid(double x) {
  float t = (float)x;
  t = t * t + 1.5f;
  return (double)t * 2 + x;
}
double c_float_of_square(double x) { return (double)(float)(x * x) * 3; }
double c_int_mult(double x) { return x * (int)x; }
double c_long_quant(double x) { return (double)(long)(x * 13.7) / 13.7 + x; }
double c_int_inactive(double x) {
  int n = (int)(x * 3);
  int m = n * n + 7;
  return x * m - n;
}
double c_unsigned(double x) { return x * (double)(unsigned)(x * x + 0.5); }
double c_char(double x) {
  signed char c = (signed char)(x * 10.7);
  return x * c + c;
}
double c_int_to_fp(double x) {
  int k = x > 0 ? 3 : -2;
  return (double)k * x + (float)k;
}
double c_mix(double x) { return (x + (double)(int)(x * 7)) * (x - (int)x); }
// Reading the bits of an active value is a predicate of it (derivative
// through the branches taken): signbit, and a sign test on memcpy'd bits.
double c_signbit(double x) { return signbit(x) ? -x * x : x * x * x; }
double c_bits_test(double x) {
  unsigned long long u;
  memcpy(&u, &x, sizeof u);
  return (u >> 63) ? x * 5 : x * x;
}
// Parameter and result of different floating types.
double c_fparam(float x) { return (double)x * (double)x * 0.5 + x; }
float c_dparam(double x) { return (float)(x * x); }

// No point is near an integer after the scalings used above.
static volatile double pts[] = {-2.3, -1.15, -0.7, 0.35, 1.4, 2.6, 3.3};

// The result passes through float: compare at float precision; the finite
// difference of a float-quantised function is noisy.
static const ad_tol TOL_Q = {1e-6, 1e-9, 2e-3, 1e-6};

int main(void) {
  for (unsigned i = 0; i < sizeof pts / sizeof pts[0]; i++) {
    double x = pts[i];
    AD_CHECK1_TOL(c_float_round, 2 * x, TOL_Q);
    AD_CHECK1_TOL(c_float_mid, 4 * x + 1, TOL_Q);
    AD_CHECK1_TOL(c_float_of_square, 6 * x, TOL_Q);
    AD_CHECK1(c_int_mult, (double)(int)x);
    AD_CHECK1(c_long_quant, 1.0);
    {
      int n = (int)(x * 3);
      AD_CHECK1(c_int_inactive, (double)(n * n + 7));
    }
    AD_CHECK1(c_unsigned, (double)(unsigned)(x * x + 0.5));
    AD_CHECK1(c_char, (double)(signed char)(x * 10.7));
    AD_CHECK1(c_int_to_fp, x > 0 ? 3.0 : -2.0);
    AD_CHECK1(c_mix, (x - (int)x) + (x + (int)(x * 7)));
    AD_CHECK1_TOL(c_dparam, 2 * x, TOL_Q);
    AD_CHECK1(c_signbit, x < 0 ? -2 * x : 3 * x * x);
    AD_CHECK1(c_bits_test, x < 0 ? 5.0 : 2 * x);

    // float active argument: the marker returns float.
    float xf = (float)x;
    float gf = __ad_gradient_f(c_fparam, xf);
    double fdf = AD_FD(xf, c_fparam(xf));
    ad_deriv(ad_fmt("c_fparam'(%g)", xf), gf, (double)xf + 1, fdf, AD_TOL_F);
  }
  return ad_finish();
}
