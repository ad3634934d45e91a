// A std::map keyed by pointers into the active input, read through its
// keys. From -O1 std::map::operator[] hands the key to the node through a
// std::tuple of a reference, which optimised code loads as a 64-bit
// integer and turns back into a pointer: without a shadow, until the
// prepared copy loads it as the pointer clang's alias tag says it is
// (PointerBitLoads.cpp). Gradient and forward derivative against the
// analytic values and central differences.
// RUN: %adcxx -std=c++17 -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcxx -std=c++17 -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcxx -std=c++17 -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcxx -std=c++17 -O3 %s -o %t.O3 %adlibs && %t.O3
#include "ad.h"
#include "adcheck.h"
#include <map>

static const int N = 3;

// sum_i x_i^2 * x_i, the square kept in the node, x_i read through the key.
double pointer_keys(const double *x, int n) {
  std::map<const double *, double> m;
  for (int i = n - 1; i >= 0; i--)
    m[x + i] = x[i] * x[i];
  double s = 0;
  for (const auto &p : m)
    s += p.second * *p.first;
  return s;
}

static double Point[N] = {0.5, 1.5, -2.0};
double pointer_keys_of_x1(double t) {
  double x[N] = {Point[0], t, Point[2]};
  return pointer_keys(x, N);
}

int main() {
  double *x = Point;
  double dx[N] = {0};
  __ad_gradient_void(pointer_keys, x, dx, N);
  for (int i = 0; i < N; i++)
    ad_deriv(ad_fmt("d/dx%d", i), dx[i], 3 * x[i] * x[i],
             AD_FD(x[i], pointer_keys(x, N)), AD_TOL_D);
  double t = Point[1];
  ad_deriv("forward d/dx1", __ad_derivative(pointer_keys_of_x1, t, 1.0),
           3 * t * t, ad_fd1(pointer_keys_of_x1, t), AD_TOL_D);
  return ad_finish();
}
