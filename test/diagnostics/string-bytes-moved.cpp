// A std::string whose characters hold a double's bytes, copied or moved
// into another string: the characters are copied with a copy of run-time
// length out of the string's union of short buffer and capacity, which
// cannot be told from a copy of characters alone. An error at every level,
// not a derivative that drops the double's (the string's buffer, unlike
// its union, has a shadow: integration/cxx_string_heap_buffer.cpp).
// RUN: not %adcxx -std=c++17 -O1 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %adcxx -std=c++17 -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %adcxx -std=c++17 -O3 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <ad.h>
#include <cstring>
#include <string>
#include <utility>

static double read_back(const std::string &s) {
  double w;
  std::memcpy(&w, s.data(), sizeof w);
  return w;
}

double moved(const double *x, int n) {
  std::string buf(sizeof(double), '\0');
  (void)n;
  double v = x[0] * x[0];
  std::memcpy(&buf[0], &v, sizeof v);
  std::string to = std::move(buf);
  return read_back(to);
}

double copied(const double *x, int n) {
  std::string buf(sizeof(double), '\0');
  (void)n;
  double v = x[0] * x[0];
  std::memcpy(&buf[0], &v, sizeof v);
  std::string to(buf);
  return read_back(to);
}

void grad(const double *x, double *dm, double *dc, int n) {
  // CHECK: string-bytes-moved.cpp:[[@LINE+1]]:3: error: cannot differentiate
  __ad_gradient_void(moved, x, dm, n);
  // CHECK: string-bytes-moved.cpp:[[@LINE+1]]:3: error: cannot differentiate
  __ad_gradient_void(copied, x, dc, n);
}
