// A local std::deque<double> that grows at both ends. At -O0 its map of
// node pointers comes from _M_allocate_map, which calls the allocator's
// allocate() with an empty allocator object: nothing with a derivative
// flows into it, but its caller keeps the pointer in the deque, whose
// shadow keeps the shadow map. The caller asks for the result's shadow
// (Activity::shadowReturn), and the allocation down the call chain gets
// one. Before, this was a compile error at -O0 only ("a pointer to memory
// without derivatives is stored where pointers to memory with derivatives
// are kept"). 700 elements need 11 nodes of 64 doubles: new nodes at both
// ends, and the map (8 entries at first) is reallocated and its node
// pointers copied with std::copy.
// RUN: %adcxx -std=c++17 -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcxx -std=c++17 -O2 %s -o %t.O2 %adlibs && %t.O2
#include "ad.h"
#include "adcheck.h"
#include <deque>

static const int N = 700;

double f(const double *x, int n) {
  std::deque<double> d;
  for (int i = 0; i < n; i++) {
    if (i % 3 == 0)
      d.push_front(x[i] * x[i]);
    else
      d.push_back(x[i] * x[i]);
  }
  double s = 0;
  for (int i = 0; i < (int)d.size(); i++)
    s += d[i] * (i + 1);
  return s;
}

int main() {
  static double x[N], dx[N];
  for (int i = 0; i < N; i++)
    x[i] = 0.001 * (i % 97) - 0.03;
  __ad_gradient_void(f, x, dx, N);
  // Where each x[i] ends up: pushed at the front (i % 3 == 0) or back.
  static int pos[N];
  int fronts = (N + 2) / 3, front = 0, back = 0;
  for (int i = 0; i < N; i++)
    pos[i] = i % 3 == 0 ? fronts - 1 - front++ : fronts + back++;
  for (int i = 0; i < N; i += 7) {
    double want = 2 * x[i] * (pos[i] + 1);
    double fd = AD_FD(x[i], f(x, N));
    ad_deriv(ad_fmt("d/dx%d", i), dx[i], want, fd, AD_TOL_D);
  }
  return ad_finish();
}
