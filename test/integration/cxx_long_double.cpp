// long double in C++, differentiated in long double: the <cmath> overloads
// (std::sin, std::exp, std::pow of long double call sinl, expl, powl),
// std::complex<long double> arithmetic, a std::vector<long double> input
// with its shadow vector, and a value read from a stream over a long
// double that held an active value (its derivative is dropped: the shadow
// is zeroed). Against formulas and central differences in long double.
//
// RUN: %adcxx -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcxx -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcxx -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcxx -O3 %s -o %t.O3 %adlibs && %t.O3

#include "ad.h"
#include "adcheck.h"
#include <cmath>
#include <complex>
#include <sstream>
#include <vector>

long double overloads(long double x) {
  return std::sin(x) * std::pow(x, 3.0L) + std::exp(-x) * std::sqrt(x);
}

// Re((x + 2x i)^2 / (1 + x + 2x i)).
long double complex_quotient(long double x) {
  std::complex<long double> z(x, 2 * x);
  return std::real(z * z / (1.0L + z));
}

long double weighted(const std::vector<long double> &v) {
  long double s = 0;
  for (std::size_t i = 0; i < v.size(); i++)
    s += std::exp(v[i]) * v[i] * (i + 1);
  return s;
}

// x[1] is overwritten by what the stream holds before it is used.
long double read_over(long double *x) {
  std::istringstream in("2.5");
  in >> x[1];
  return x[0] * x[1] * x[0];
}

int main() {
  ad_tol T = AD_TOL_LD;
  for (long double x : {0.4L, 1.3L, 2.2L}) {
    long double want = std::cos(x) * x * x * x + 3 * std::sin(x) * x * x -
                       std::exp(-x) * std::sqrt(x) +
                       std::exp(-x) * 0.5L / std::sqrt(x);
    long double fd = AD_FD_LD(x, overloads(x));
    ad_deriv_ld(ad_fmt("overloads rev at %Lg", x),
                __ad_gradient_ld(overloads, x), want, fd, T);
    ad_deriv_ld(ad_fmt("overloads fwd at %Lg", x),
                __ad_derivative_ld(overloads, x, 1.0L), want, fd, T);
    // z^2 / (1 + z) with z = (1 + 2i) x: d/dx = c^2 x (2 + c x) / (1 + c x)^2.
    std::complex<long double> c(1, 2);
    long double dq = std::real(c * c * x * (2.0L + c * x) /
                               ((1.0L + c * x) * (1.0L + c * x)));
    long double fdq = AD_FD_LD(x, complex_quotient(x));
    ad_deriv_ld(ad_fmt("complex_quotient rev at %Lg", x),
                __ad_gradient_ld(complex_quotient, x), dq, fdq, T);
    ad_deriv_ld(ad_fmt("complex_quotient fwd at %Lg", x),
                __ad_derivative_ld(complex_quotient, x, 1.0L), dq, fdq, T);
  }

  std::vector<long double> v{0.25L, -0.5L, 1.125L}, dv(3, 0.0L);
  __ad_gradient(weighted, &v, &dv);
  for (std::size_t i = 0; i < v.size(); i++)
    ad_deriv_ld(ad_fmt("weighted d/dv[%zu]", i), dv[i],
                std::exp(v[i]) * (1 + v[i]) * (i + 1),
                AD_FD_LD(v[i], weighted(v)), T);

  long double x[2] = {1.5L, 7.0L}, dx[2] = {0, 0};
  __ad_gradient(read_over, x, dx);
  ad_check_ld("read_over d/dx0", dx[0], 2 * 1.5L * 2.5L, T.rtol, T.atol);
  ad_check_ld("read_over d/dx1 (overwritten)", dx[1], 0, 0, 0);
  return ad_finish();
}
