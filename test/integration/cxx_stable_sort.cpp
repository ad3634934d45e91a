// std::stable_sort of a local std::vector<double>: its merge sort moves
// runs of elements into a temporary buffer with memmove, through cursors
// (phis of the run's start and the advancing cursor) that nothing reads
// as doubles; the objects they walk over are (ShadowMemory.cpp,
// collectAccessTypes). Before, this was a compile error from -O1 ("what it
// moves cannot be told"). 100 elements: chunks of 7 sorted by insertion,
// then merged through the buffer.
// At -O0 the buffer comes from get_temporary_buffer, not inlined, in a
// pair<double *, ptrdiff_t> whose pointer _Temporary_buffer keeps: the call
// returns the pointer's shadow on request (Activity.cpp,
// isStoredWhereShadowsAreKept). Before, a compile error at -O0.
// RUN: %adcxx -std=c++17 -O0 -Wno-deprecated-declarations %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcxx -std=c++17 -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcxx -std=c++17 -O2 %s -o %t.O2 %adlibs && %t.O2
#include "ad.h"
#include "adcheck.h"
#include <algorithm>
#include <vector>

static const int N = 100;

double f(const double *x, int n) {
  std::vector<double> v(x, x + n);
  for (double &e : v)
    e = e * e;
  std::stable_sort(v.begin(), v.end());
  double s = 0;
  for (int i = 0; i < n; i++)
    s += v[i] * (i + 1);
  return s;
}

int main() {
  static double x[N], dx[N];
  // Distinct squares: x[i] = 0.01 * ((37 i) mod 101) + 0.005, all positive.
  for (int i = 0; i < N; i++)
    x[i] = 0.01 * ((37 * i) % 101) + 0.005;
  __ad_gradient_void(f, x, dx, N);
  for (int i = 0; i < N; i += 3) {
    // Rank of x[i] * x[i] among the squares.
    int rank = 0;
    for (int j = 0; j < N; j++)
      rank += x[j] < x[i];
    double want = 2 * x[i] * (rank + 1);
    double fd = AD_FD(x[i], f(x, N));
    ad_deriv(ad_fmt("d/dx%d", i), dx[i], want, fd, AD_TOL_D);
  }
  return ad_finish();
}
