// std::map and std::unordered_map with std::string keys, local to the
// differentiated function, at -O0. The strings' allocator, std::allocator
// <char>, is an explicit instantiation in libstdc++'s shared library: at
// -O0 its constructor and destructor are calls without a body, which were
// a compile error ("no derivative rule and its body is not visible"). They
// are members of an empty class and carry nothing (StreamLibrary.cpp).
// Keys longer than the short-string buffer (15 characters) live in heap
// buffers of their own. From -O1 the move of a key into its node copies
// its characters with a copy of run-time length that cannot be told from
// the double next to it: still an error (diagnostics/string-keys-O2.cpp).
// RUN: %adcxx -std=c++17 -O0 %s -o %t.O0 %adlibs && %t.O0
#include "ad.h"
#include "adcheck.h"
#include <map>
#include <string>
#include <unordered_map>

static const int N = 4;
static const char *const Names[N] = {"delta", "beta", "gamma",
                                     "a key longer than fifteen characters"};

// Sorted keys: "a key...", "beta", "delta", "gamma" (x3, x1, x0, x2),
// weighted 1..4; "beta" also gets x0 added.
double map_loss(const double *x, int n) {
  std::map<std::string, double> m;
  for (int i = 0; i < n; i++)
    m[Names[i]] = x[i] * x[i];
  m["beta"] += x[0];
  double s = 0;
  int k = 1;
  for (const auto &p : m)
    s += p.second * k++;
  return s;
}

// Cubes, "gamma" erased, looked up again by name with find and at.
double umap_loss(const double *x, int n) {
  std::unordered_map<std::string, double> m;
  for (int i = 0; i < n; i++)
    m.emplace(std::string(Names[i]), x[i] * x[i] * x[i]);
  m.erase("gamma");
  double s = 0;
  for (int i = 0; i < n; i++) {
    auto it = m.find(Names[i]);
    if (it != m.end())
      s += it->second * (i + 1);
  }
  return s + m.at(Names[3]);
}

// One variable: the forward mode of the same functions along x0.
static double Point[N] = {0.9, -0.4, 0.7, 1.3};
double map_of_x0(double t) {
  double x[N] = {t, Point[1], Point[2], Point[3]};
  return map_loss(x, N);
}
double umap_of_x0(double t) {
  double x[N] = {t, Point[1], Point[2], Point[3]};
  return umap_loss(x, N);
}

int main() {
  double *x = Point;
  double dm[N] = {0}, du[N] = {0};
  __ad_gradient_void(map_loss, x, dm, N);
  __ad_gradient_void(umap_loss, x, du, N);
  const int MapWeight[N] = {3, 2, 4, 1}; // rank of each key
  for (int i = 0; i < N; i++) {
    double t = x[i];
    double want = 2 * t * MapWeight[i] + (i == 0 ? 2 : 0);
    ad_deriv(ad_fmt("map d/dx%d", i), dm[i], want,
             AD_FD(x[i], map_loss(x, N)), AD_TOL_D);
    want = i == 2 ? 0 : 3 * t * t * (i + 1 + (i == 3));
    ad_deriv(ad_fmt("unordered_map d/dx%d", i), du[i], want,
             AD_FD(x[i], umap_loss(x, N)), AD_TOL_D);
  }
  double t0 = Point[0];
  ad_deriv("map forward d/dx0", __ad_derivative(map_of_x0, t0, 1.0),
           2 * t0 * 3 + 2, ad_fd1(map_of_x0, t0), AD_TOL_D);
  ad_deriv("unordered_map forward d/dx0", __ad_derivative(umap_of_x0, t0, 1.0),
           3 * t0 * t0, ad_fd1(umap_of_x0, t0), AD_TOL_D);
  return ad_finish();
}
