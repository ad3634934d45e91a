// std::complex<double> arithmetic and std::abs (see complex.c): the
// derivative of |z^2 w + 1/z| through __muldc3 / __divdc3 and cabs. Then
// std::exp, std::log, std::sqrt and std::arg of std::complex<double> and
// std::complex<float> (libm's cexp, clog, csqrt, carg, and cabsf/cargf,
// which take a <2 x float>), in reverse and forward mode, against the
// analytic partials of
//   g(a, b) = Re exp z + Im log z + Re sqrt z + arg z |z|,  z = a + b i.
// RUN: %adcxx -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcxx -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcxx -O2 -ffast-math %s -o %t.O2f %adlibs && %t.O2f
#include "ad.h"
#include "adcheck.h"
#include <complex>

double cmag(double x) {
  std::complex<double> z(x, 2.0), w(0.5, x);
  return std::abs(z * z * w + 1.0 / z);
}

template <class T> T g(T a, T b) {
  std::complex<T> z(a, b);
  return std::exp(z).real() + std::log(z).imag() + std::sqrt(z).real() +
         std::arg(z) * std::abs(z);
}

struct grad2 {
  double da, db;
};
struct grad2f {
  float da, db;
};
extern "C" grad2 __ad_gradient_2(...) AD_MARKER;
extern "C" grad2f __ad_gradient_2f(...) AD_MARKER;

int main() {
  volatile double vx = 0.8;
  double x = vx;
  ad_check("std::complex d/dx vs FD", __ad_gradient((void *)cmag, x),
           AD_FD(x, cmag(x)), 1e-6, 1e-8);

  // Away from the branch cut of log, sqrt and arg (the negative reals).
  double a = 0.7, b = -1.3;
  std::complex<double> z(a, b), inv2s = 1.0 / (2.0 * std::sqrt(z));
  double r2 = a * a + b * b, r = std::sqrt(r2), th = std::atan2(b, a);
  double wa = std::exp(a) * std::cos(b) - b / r2 + inv2s.real() +
              (-b / r2) * r + th * a / r;
  double wb = -std::exp(a) * std::sin(b) + a / r2 - inv2s.imag() +
              (a / r2) * r + th * b / r;
  grad2 d = __ad_gradient_2(g<double>, a, b);
  ad_deriv("complex<double> d/da", d.da, wa, AD_FD(a, g(a, b)), AD_TOL_D);
  ad_deriv("complex<double> d/db", d.db, wb, AD_FD(b, g(a, b)), AD_TOL_D);
  ad_check("complex<double> forward",
           __ad_derivative(g<double>, a, 0.25, b, -1.5), 0.25 * wa - 1.5 * wb,
           1e-12, 1e-14);
  grad2f f = __ad_gradient_2f(g<float>, (float)a, (float)b);
  ad_check("complex<float> d/da", f.da, wa, 1e-5, 1e-6);
  ad_check("complex<float> d/db", f.db, wb, 1e-5, 1e-6);
  return ad_finish();
}
