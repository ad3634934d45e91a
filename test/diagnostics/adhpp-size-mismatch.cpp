// What only run time can tell stops the program with a message before
// anything is differentiated: ad::hvp with a v of the wrong size.
// RUN: %adcxx -std=c++17 -O0 %s -o %t %adlibs
// RUN: not --crash %t 2>&1 | FileCheck %s
// CHECK: ad.hpp: ad::hvp(h, x, v): v.size() differs from x.size(): got 2, expected 3
#include <ad.hpp>

double h(const std::vector<double> &x) { return x[0] * x[1] * x[2]; }

int main() {
  std::vector<double> x = {1, 2, 3}, v = {1, 0};
  return ad::hvp(h, x, v).size() == 3 ? 0 : 2;
}
