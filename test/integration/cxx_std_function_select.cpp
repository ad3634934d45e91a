// A std::function chosen at run time (`which ? a1 : a0`), its closure
// capturing active locals by reference. A closure of one reference is kept
// in the std::function's union, and from -O1 InstCombine stores it there as
// an integer (store i64 (ptrtoint p)): the std::function got no shadow, the
// call through it was taken for a constant, and the derivative was 0 in
// both modes at -O1 and -O2 with no diagnostic (found by a probe).
// clang-format off
// RUN: %adcxx -O0 %s -o %t.O0 %adlibs 2>&1 | FileCheck %s --check-prefix=O0
// RUN: %t.O0
// RUN: %adcxx -O1 %s -o %t.O1 %adlibs 2>&1 | count 0
// RUN: %t.O1
// RUN: %adcxx -O2 %s -o %t.O2 %adlibs 2>&1 | count 0
// RUN: %t.O2
// At -O0 the managers' copy of a closure cannot be differentiated (as in
// cxx_std_function.cpp); it is never called here.
// O0: warning: '{{.*}}_M_create{{.*}}', reached through a function pointer in the differentiated code, cannot be differentiated
// clang-format on
#include "ad.h"
#include "adcheck.h"
#include <cmath>
#include <functional>

using Fn = std::function<double(double)>;

static double sum_over(const Fn &g, double t0) {
  double s = 0;
  for (int i = 0; i < 4; i++)
    s += g(t0 + 0.25 * i);
  return s;
}

// One active local captured by each closure.
double one_each(double x, int which) {
  double a = 2 * x;
  Fn a0 = [&](double t) { return std::sin(a * t); };
  Fn a1 = [&](double t) { return a * a * t; };
  const Fn &act = which ? a1 : a0;
  return act(0.5);
}

// One closure captures an active local, the other an inactive one.
double active_or_not(double x, int which) {
  double a = x * x, c = 0.5;
  Fn a0 = [&](double t) { return std::sin(a * t); };
  Fn a1 = [&](double t) { return c * t; };
  const Fn &act = which ? a1 : a0;
  return sum_over(act, 0.5) + x;
}

// The parameter itself captured, and two references (a pair of pointers
// in the union).
double param_and_pair(double x, int which) {
  double b = std::exp(x);
  Fn a0 = [&](double t) { return x * t; };
  Fn a1 = [&](double t) { return std::cos(x * t) * b; };
  const Fn &act = which ? a1 : a0;
  return sum_over(act, 0.3);
}

#define CHECK_BOTH(fn, w)                                                      \
  do {                                                                         \
    double x = 0.8, fd = AD_FD(x, fn(x, w));                                   \
    ad_check(ad_fmt(#fn " reverse, which=%d", w), __ad_gradient(fn, x, w), fd, \
             1e-7, 1e-9);                                                      \
    ad_check(ad_fmt(#fn " forward, which=%d", w),                              \
             __ad_derivative(fn, x, 1.0, w), fd, 1e-7, 1e-9);                  \
  } while (0)

int main() {
  for (int w = 0; w < 2; w++) {
    CHECK_BOTH(one_each, w);
    CHECK_BOTH(active_or_not, w);
    CHECK_BOTH(param_and_pair, w);
  }
  return ad_finish();
}
