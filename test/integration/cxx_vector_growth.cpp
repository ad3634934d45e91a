// A std::vector passed by reference that the function appends to. With
// spare capacity in the vector and in its shadow (zeroed: the pushed
// element's cotangent is read there), push_back writes in place and the
// gradient covers the old elements too. Without it, push_back moves the
// elements to a new buffer and frees the old one, and the derivative with
// respect to the old elements would go with it: a run-time error
// (NO_CAPACITY). Before, the caller's shadow vector was left pointing to
// freed memory (garbage values, then a double free).
// RUN: %adcxx -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcxx -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcxx -O2 -DNO_CAPACITY %s -o %t.N2 %adlibs
// RUN: not --crash %t.N2 2>&1 | FileCheck %s
// clang-format off
// CHECK: ADPass runtime: the function differentiated in reverse mode freed heap memory that its caller passed in with a shadow (a std::vector passed by reference that grew
// clang-format on
#include "ad.h"
#include "adcheck.h"
#include <vector>

double grow(std::vector<double> &v, double a) {
  v.push_back(a * a);
  double s = 0;
  for (double t : v)
    s += t * t;
  return s;
}

int main() {
  std::vector<double> v{0.5, -0.3}, dv{0.0, 0.0};
#ifndef NO_CAPACITY
  v.reserve(8);
  dv.resize(8); // zeroes the shadow's spare capacity
  dv.resize(2);
#endif
  double a = 0.7;
  double da = __ad_gradient(grow, &v, &dv, a);
  ad_check("d/da", da, 4 * a * a * a, 1e-15, 0);
  ad_check("size", double(dv.size()), 3, 0, 0);
  ad_check("d/dv0", dv[0], 2 * 0.5, 1e-15, 0);
  ad_check("d/dv1", dv[1], 2 * -0.3, 1e-15, 0);
  return ad_finish();
}
