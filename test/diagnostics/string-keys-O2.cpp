// std::string keys in a std::map from -O1: moving a key into its node
// stores the pointer to the key's heap buffer, and copies a short key's
// characters with a copy of run-time length into a node that also holds
// the double, which is not told apart from it. An error, not a derivative
// that misses the value (at -O0 it works: integration/cxx_string_keys.cpp).
// RUN: not %adcxx -std=c++17 -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <ad.h>
#include <map>
#include <string>

double map_loss(const double *x, int n) {
  std::map<std::string, double> m;
  for (int i = 0; i < n; i++)
    m[std::to_string(i)] = x[i] * x[i];
  double s = 0;
  for (const auto &p : m)
    s += p.second;
  return s;
}

void grad(const double *x, double *dx, int n) {
  // CHECK: string-keys-O2.cpp:[[@LINE+1]]:3: error: cannot differentiate: a pointer to memory without derivatives is stored where pointers to memory with derivatives are kept
  __ad_gradient_void(map_loss, x, dx, n);
}
