// clang-format off (CHECK lines stay one line each)
// A std::vector& argument that grows leaves a new heap block, and its
// shadow, to the caller: the derivative stores the shadow's address into
// the caller's shadow vector, which a handle cannot do (it refuses at
// compile time); a vector only read and written in place works through a
// handle (test/integration/linear_handles_structs.cpp).
// RUN: not %adcxx -O0 -fno-exceptions -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %adcxx -O2 -fno-exceptions -c %s -o /dev/null 2>&1 | FileCheck %s
#include <ad.h>
#include <cmath>
#include <vector>

void grow(const std::vector<double> &x, std::vector<double> &y) {
  y.clear();
  for (double v : x)
    y.push_back(std::sin(v));
}

ad_linear *lin(std::vector<double> &x, std::vector<double> &y) {
  // CHECK: handle-growing-vector.cpp:[[@LINE+1]]:{{[0-9]+}}: error: cannot linearize 'grow({{.*}})' into a handle: its derivative stores a pointer to the caller's derivative memory into memory
  return __ad_linearize(grow, &x, &y);
}
