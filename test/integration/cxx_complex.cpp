// std::complex<double> arithmetic and std::abs (see complex.c): the
// derivative of |z^2 w + 1/z| through __muldc3 / __divdc3 and cabs.
// RUN: %adcxx -fno-exceptions -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcxx -fno-exceptions -O2 %s -o %t.O2 %adlibs && %t.O2
#include "ad.h"
#include "adcheck.h"
#include <complex>

double cmag(double x) {
  std::complex<double> z(x, 2.0), w(0.5, x);
  return std::abs(z * z * w + 1.0 / z);
}

int main() {
  volatile double vx = 0.8;
  double x = vx;
  ad_check("std::complex d/dx vs FD", __ad_gradient((void *)cmag, x),
           AD_FD(x, cmag(x)), 1e-6, 1e-8);
  return ad_finish();
}
