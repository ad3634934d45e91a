// A std::function holds a small closure in a union (_Any_data). Moved into
// a std::vector (or moved at -O0), its bytes were copied as the pointers
// the rest of the object holds: the captured double lost its derivative
// and the reverse-mode gradient was 0 with no diagnostic, at every level
// (found by a probe; forward mode was right). A copy of an object holding
// a union is now an error. Passing the std::function by reference works
// (integration/cxx_std_function.cpp).
// RUN: not %adcxx -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %adcxx -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <ad.h>
#include <functional>
#include <vector>

double scaled(double x, double w) {
  std::vector<std::function<double(double)>> ops;
  ops.push_back([w](double v) { return v * w; });
  return ops[0](x);
}

double use(double x, double w) {
  // CHECK: std-function-moved.cpp:[[@LINE+1]]:10: error: cannot differentiate this memory copy: it moves a union, whose bytes may be floating-point data or pointers (such as the storage of a std::function moved or copied, into a std::vector say): not supported; keep such objects out of the differentiated code, or pass them by reference
  return __ad_gradient(scaled, AD_CONST, x, w);
}
