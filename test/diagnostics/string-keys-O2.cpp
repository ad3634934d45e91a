// std::string keys in a std::map or std::unordered_map from -O1. The
// key's heap buffer has a shadow (its allocation, libstdc++'s _M_create,
// is known) and the pointer to it reaches the node with that shadow, also
// through std::map's tuple of the key's reference, loaded as an integer.
// What remains: moving a short key into its node copies its characters
// with a copy of run-time length (the key's length + 1) out of the
// string's union of short buffer and capacity, into the node next to the
// double. That the copy stays within the 16-byte buffer is not known, nor
// whether its bytes are characters, or a double's that the program put
// there: an error, not a derivative that misses the value (at -O0 it
// works: integration/cxx_string_keys.cpp).
// RUN: not %adcxx -std=c++17 -O1 -c %s -o /dev/null 2>&1 | FileCheck %s --implicit-check-not="pointer to memory without derivatives"
// RUN: not %adcxx -std=c++17 -O2 -c %s -o /dev/null 2>&1 | FileCheck %s --implicit-check-not="pointer to memory without derivatives"
// RUN: not %adcxx -std=c++17 -O3 -c %s -o /dev/null 2>&1 | FileCheck %s --implicit-check-not="pointer to memory without derivatives"
#include <ad.h>
#include <map>
#include <string>
#include <unordered_map>

double map_loss(const double *x, int n) {
  std::map<std::string, double> m;
  for (int i = 0; i < n; i++)
    m[std::to_string(i)] = x[i] * x[i];
  double s = 0;
  for (const auto &p : m)
    s += p.second;
  return s;
}

double umap_loss(const double *x, int n) {
  std::unordered_map<std::string, double> m;
  for (int i = 0; i < n; i++)
    m.emplace(std::to_string(i), x[i] * x[i]);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += m.at(std::to_string(i));
  return s;
}

void grad(const double *x, double *dx, double *du, int n) {
  // CHECK: string-keys-O2.cpp:[[@LINE+1]]:3: error: cannot differentiate this memory copy: it moves data of more than one kind
  __ad_gradient_void(map_loss, x, dx, n);
  // CHECK: string-keys-O2.cpp:[[@LINE+1]]:3: error: cannot differentiate this memory copy: it moves a union
  __ad_gradient_void(umap_loss, x, du, n);
}

double map_of(double t) {
  double x[2] = {t, 2 * t};
  return map_loss(x, 2);
}

double forward(double t) {
  // CHECK: string-keys-O2.cpp:[[@LINE+1]]:10: error: cannot differentiate this memory copy: it moves data of more than one kind
  return __ad_derivative(map_of, t, 1.0);
}
