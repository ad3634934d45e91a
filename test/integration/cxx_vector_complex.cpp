// A local std::vector<std::complex<double>> grown by push_back: at -O0 each
// reallocation relocates the elements one by one, and the copy of one
// complex (a 16-byte memcpy in __new_allocator::construct) is typed by the
// steps of std::__relocate_a_1's cursor, a one-index GEP over
// std::complex<double> (ShadowMemory.cpp, steppedElementType): its callers
// pass pointers loaded from the vector's fields, which say nothing. Before,
// a compile error at -O0 ("what it moves ... cannot be told").
// RUN: %adcxx -std=c++17 -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcxx -std=c++17 -O2 %s -o %t.O2 %adlibs && %t.O2
#include "ad.h"
#include "adcheck.h"
#include <complex>
#include <vector>

static const int N = 9; // reallocations at sizes 1, 2, 4 and 8

// z_i = x_i + i x_i^2; sum_i (i + 1) |z_i|^2 + sum_i Re(z_i z_{i+1}), read
// after the last reallocation, which moved z_0 .. z_7.
double f(const double *x, int n) {
  std::vector<std::complex<double>> v;
  for (int i = 0; i < n; i++)
    v.push_back(std::complex<double>(x[i], x[i] * x[i]));
  double s = 0;
  for (int i = 0; i < n; i++)
    s += std::norm(v[i]) * (i + 1);
  for (int i = 0; i + 1 < n; i++)
    s += std::real(v[i] * v[i + 1]);
  return s;
}

int main() {
  double x[N], dx[N] = {0};
  for (int i = 0; i < N; i++)
    x[i] = 0.3 + 0.1 * i;
  __ad_gradient_void(f, x, dx, N);
  for (int k = 0; k < N; k++) {
    // |z_k|^2 = x^2 + x^4; Re(z_k z_j) = x_k x_j - x_k^2 x_j^2.
    double want = (2 * x[k] + 4 * x[k] * x[k] * x[k]) * (k + 1);
    if (k + 1 < N)
      want += x[k + 1] - 2 * x[k] * x[k + 1] * x[k + 1];
    if (k > 0)
      want += x[k - 1] - 2 * x[k - 1] * x[k - 1] * x[k];
    double fd = AD_FD(x[k], f(x, N));
    ad_deriv(ad_fmt("d/dx%d", k), dx[k], want, fd, AD_TOL_D);
  }
  return ad_finish();
}
