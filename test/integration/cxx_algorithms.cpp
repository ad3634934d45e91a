// <algorithm> and <numeric> on local vectors at every level: std::sort of
// structs by a comparator and of doubles, erase, std::accumulate,
// std::inner_product, std::transform with a lambda. At -O0 the sorts copy
// elements between the references iterators' operator* return, typed by
// the element type the iterator's operator+ steps by (a compile error
// before).
// RUN: %adcxx -std=c++17 -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcxx -std=c++17 -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcxx -std=c++17 -O2 %s -o %t.O2 %adlibs && %t.O2
#include "ad.h"
#include "adcheck.h"
#include <algorithm>
#include <numeric>
#include <vector>

struct Tagged {
  double v;
  int id;
};

static const int N = 6;

// Squares sorted, weighted by rank; then x sorted, its smallest erased:
// sum + sum of squares, tripled by transform, plus 3 max(x).
double f(const double *x, int n) {
  std::vector<Tagged> ts;
  for (int i = 0; i < n; i++)
    ts.push_back({x[i] * x[i], i});
  std::sort(ts.begin(), ts.end(),
            [](const Tagged &a, const Tagged &b) { return a.v < b.v; });
  double s = 0;
  for (int i = 0; i < n; i++)
    s += ts[i].v * (i + 1);
  std::vector<double> d(x, x + n);
  std::sort(d.begin(), d.end());
  d.erase(d.begin());
  s += std::accumulate(d.begin(), d.end(), 0.0) +
       std::inner_product(d.begin(), d.end(), d.begin(), 0.0);
  std::transform(d.begin(), d.end(), d.begin(), [](double t) { return 3 * t; });
  return s + d.back();
}

int main() {
  double x[N] = {0.3, -0.5, 0.8, 1.1, -0.2, 0.6}, dx[N] = {0};
  __ad_gradient_void(f, x, dx, N);
  int lo = 0, hi = 0;
  for (int i = 1; i < N; i++) {
    lo = x[i] < x[lo] ? i : lo;
    hi = x[i] > x[hi] ? i : hi;
  }
  for (int i = 0; i < N; i++) {
    int rank = 0;
    for (int j = 0; j < N; j++)
      rank += x[j] * x[j] < x[i] * x[i];
    double want = 2 * x[i] * (rank + 1);
    if (i != lo)
      want += 1 + 2 * x[i];
    if (i == hi)
      want += 3;
    ad_deriv(ad_fmt("d/dx%d", i), dx[i], want, AD_FD(x[i], f(x, N)), AD_TOL_D);
  }
  return ad_finish();
}
