// std::vector<double> copy-assignment and range insert, local to the
// differentiated function. Both move the elements with memmove between
// pointers loaded from the vectors' fields (or, once SROA took a vector
// apart, its heap block), which nothing in operator= or _M_range_insert
// reads as anything; what the caller does with the same field, or the same
// block, types them (ShadowMemory.cpp: other functions' loads of the field
// clang's TBAA tag names, the pointer stored in the field, the caller's
// own accesses). Inserting at an empty vector's end passes null + 0, whose
// shadow is itself (Linearize.cpp, linearizeUserCall). Before, compile
// errors from -O1 ("what it moves ... cannot be told", then "active data
// is copied into memory without a shadow").
// RUN: %adcxx -std=c++17 -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcxx -std=c++17 -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcxx -std=c++17 -O2 %s -o %t.O2 %adlibs && %t.O2
#include "ad.h"
#include "adcheck.h"
#include <vector>

static const int N = 6;

double f(const double *x, int n) {
  std::vector<double> a(x, x + n);
  for (double &e : a)
    e = e * e; // a_i = x_i^2
  std::vector<double> b;
  b = a; // into an empty vector: new storage
  std::vector<double> d(n + 1, 0.5);
  d = b; // into a longer one: in place
  std::vector<double> c(2, 1.0);
  c.reserve(3 * n);
  c.insert(c.begin() + 1, a.begin(), a.end()); // {1, a..., 1}: in place
  std::vector<double> e;
  e.insert(e.end(), a.begin(), a.end()); // at null + 0: new storage
  double s = 0;
  for (int i = 0; i < n; i++)
    s += b[i] * (i + 1) + c[i + 1] * c[i + 1] * x[i] + d[i] * d[i] + e[i];
  return s + c[0] + c[n + 1];
}

int main() {
  double x[N], dx[N] = {0};
  for (int i = 0; i < N; i++)
    x[i] = 0.4 + 0.15 * i;
  __ad_gradient_void(f, x, dx, N);
  for (int i = 0; i < N; i++) {
    double t = x[i];
    // x^2 (i + 1) + x^5 + x^4 + x^2
    double want = 2 * t * (i + 1) + 5 * t * t * t * t + 4 * t * t * t + 2 * t;
    double fd = AD_FD(x[i], f(x, N));
    ad_deriv(ad_fmt("d/dx%d", i), dx[i], want, fd, AD_TOL_D);
  }
  return ad_finish();
}
