// A std::string used as a byte buffer for doubles, from -O1: its heap
// buffer comes from libstdc++'s basic_string<char>::_M_create, a function
// of the shared library, and gets a shadow of as many bytes, as operator
// new's memory does, so that the doubles' bytes kept in it carry their
// derivatives (LinearizeAllocation.cpp). The string's hash, a call of
// std::_Hash_bytes in the shared library, reads those shadowed bytes and
// gives an integer: no derivative (JvpRules.cpp). At -O0 the string's members are
// all calls into the library, whose memory has no shadow: an error.
// RUN: %adcxx -std=c++17 -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcxx -std=c++17 -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcxx -std=c++17 -O3 %s -o %t.O3 %adlibs && %t.O3
// RUN: not %adcxx -std=c++17 -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
#include "ad.h"
#include "adcheck.h"
#include <cstring>
#include <functional>
#include <string>

static const int N = 3;

// sum_i (i + 1) x_i^2, each square kept as bytes of the string. The
// literal is longer than the short-string buffer: the characters are on
// the heap.
double through_string(const double *x, int n) {
  std::string buf("a literal longer than fifteen characters, to hold doubles");
  for (int i = 0; i < n; i++) {
    double v = x[i] * x[i];
    std::memcpy(&buf[i * sizeof(double)], &v, sizeof v);
  }
  double s = 0;
  for (int i = 0; i < n; i++) {
    double w;
    std::memcpy(&w, buf.data() + i * sizeof(double), sizeof w);
    s += w * (i + 1);
  }
  return s;
}

static const char *const Text = "a literal longer than fifteen characters";

// x0^2 * (hash % 7 + 1), the hash taken of the string that then keeps the
// square's bytes.
double hashed_buffer(const double *x, int n) {
  std::string buf(Text);
  size_t h = std::hash<std::string>{}(buf);
  double v = x[0] * x[0];
  std::memcpy(&buf[0], &v, sizeof v);
  double w;
  std::memcpy(&w, buf.data(), sizeof w);
  (void)n;
  return w * double(h % 7 + 1);
}

static double Point[N] = {0.5, 1.5, -2.0};
double through_string_of_x1(double t) {
  double x[N] = {Point[0], t, Point[2]};
  return through_string(x, N);
}

int main() {
  double *x = Point;
  double dx[N] = {0};
  // CHECK: cxx_string_heap_buffer.cpp:[[@LINE+1]]:3: error: cannot differentiate a read of memory whose derivatives are unknown
  __ad_gradient_void(through_string, x, dx, N);
  for (int i = 0; i < N; i++)
    ad_deriv(ad_fmt("d/dx%d", i), dx[i], 2 * x[i] * (i + 1),
             AD_FD(x[i], through_string(x, N)), AD_TOL_D);
  double dh[N] = {0};
  __ad_gradient_void(hashed_buffer, x, dh, N);
  double weight = double(std::hash<std::string>{}(std::string(Text)) % 7 + 1);
  ad_deriv("hashed d/dx0", dh[0], 2 * x[0] * weight,
           AD_FD(x[0], hashed_buffer(x, N)), AD_TOL_D);
  double t = Point[1];
  ad_deriv("forward d/dx1", __ad_derivative(through_string_of_x1, t, 1.0),
           4 * t, ad_fd1(through_string_of_x1, t), AD_TOL_D);
  return ad_finish();
}
