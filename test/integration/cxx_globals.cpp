// C++ globals the differentiated code writes: a static data member, a
// namespace-scope std::array whose address goes to begin()/end() (calls
// given the global's address itself at -O0), and a static member of a
// class template, instantiated for double and float; a function-local
// static with a dynamic initializer (guarded by an atomic load).
// RUN: %adcxx -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcxx -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcxx -O2 %s -o %t.O2 %adlibs && %t.O2
#include "ad.h"
#include "adcheck.h"
#include <array>
#include <cmath>
struct Solver {
  static double scratch[3];
  static double run(double x) {
    for (int i = 0; i < 3; i++)
      scratch[i] = std::sin(x * (i + 1));
    return scratch[0] * scratch[1] + scratch[2];
  }
};
double Solver::scratch[3];
namespace ws {
std::array<double, 4> buf;
}
double arr_f(double x) {
  for (auto &b : ws::buf)
    b = x;
  double p = 1;
  for (double b : ws::buf)
    p *= b;
  return p;
}
template <class T> struct Cache { static T last; };
template <class T> T Cache<T>::last;
template <class T> T tmpl(T x) {
  Cache<T>::last = x * x;
  return Cache<T>::last * x;
}
double tmpl_d(double x) { return tmpl(x); }
// A function-local static with a dynamic initializer: thread-safe
// initialisation reads its guard with an atomic load (integer data, no
// derivative; it was rejected as an atomic operation). The first call,
// inside the first request, sets s = 2x, so f = 2x^2; later, s is data.
double first_call(double x) {
  static double s = x * 2;
  return s * x;
}

// A function-local static const with a dynamic initializer: from -O1 the
// guarded initialisation marks it invariant (llvm.invariant.start), which
// was an error naming that intrinsic.
double scaled_square(double x) {
  static const double k = std::sqrt(2.0) * std::log(3.0);
  return k * x * x;
}

int main() {
  volatile double vx = 0.6;
  double x = vx;
  // run = sin x sin 2x + sin 3x
  ad_deriv("static member", __ad_gradient((void *)Solver::run, x),
           cos(x) * sin(2 * x) + 2 * sin(x) * cos(2 * x) + 3 * cos(3 * x),
           AD_FD(x, Solver::run(x)), AD_TOL_D);
  ad_deriv("std::array global", __ad_gradient((void *)arr_f, x), 4 * x * x * x,
           AD_FD(x, arr_f(x)), AD_TOL_D);
  ad_deriv("template static", __ad_gradient((void *)tmpl_d, x), 3 * x * x,
           AD_FD(x, tmpl_d(x)), AD_TOL_D);
  float xf = 0.6f;
  ad_deriv("template static float", __ad_gradient_f((void *)tmpl<float>, xf),
           3 * xf * xf, AD_FD(xf, tmpl<float>(xf)), AD_TOL_F);
  double x1 = 0.4, x2 = 0.9;
  ad_check("static local, initialised in the request",
           __ad_gradient((void *)first_call, x1), 4 * x1, 1e-12, 0);
  ad_check("static local, initialised before",
           __ad_gradient((void *)first_call, x2), 2 * x1, 1e-12, 0);
  ad_check("static const local", __ad_gradient((void *)scaled_square, x1),
           2 * std::sqrt(2.0) * std::log(3.0) * x1, 1e-12, 0);
  return ad_finish();
}
