// std::vector<double> objects local to the differentiated function, filled
// with active values through operator[] / push_back / emplace_back. At -O0
// each element access is a call that returns a pointer into heap storage a
// constructor allocated; the vector object gets a shadow so that those
// calls are differentiated (Activity.cpp: active data stored through a
// pointer a call returned).
//   pushed(x)  = sum_{i<20} sin^2(x i)          (push_back reallocates)
//   resized(x) = 3 x^2 + 3 (2x)^2                (resize, iterators)
//   matrix(x)  = sum_{i,j<3} (x (i+1) + j)^2     (vector of vectors)
//   copied(x)  = 3 x + 2 x^2                     (reserve, emplace_back, copy)
//   powers(x)  = sum_{i<5} x^(2i)                (operator[], inner_product)
//   filled(x)  = 4 x^2                           (std::fill with x by
//                                                 reference)
//   scaled(x)  = 4 x^2                           (std::transform, lambda)
//   history(x) = sum_{i<3} x^2 i = 3 x^2          (push_back of vectors into
//                                                 an empty vector of vectors:
//                                                 its first reallocation gets
//                                                 a null position; an error
//                                                 at -O2 before)
//   inserted(x) = (3 + 2x + x^2) x               (insert of an initializer
//                                                 list: at -O0 an iterator
//                                                 difference came out "with
//                                                 a shadow", allocated where
//                                                 an erased call with one had
//                                                 been; "no derivative rule
//                                                 for llvm.is.constant")
//   grid(x)     = sum_i (x (i + 1))^2            (n rows copied from a
//                                                 zero prototype: from -O2
//                                                 the copy was "what it
//                                                 moves cannot be told")
//   filled3(x)  = x^2 + x                        (resize(3, x) of an empty
//                                                 vector: from -O1 the fill
//                                                 position is null and had
//                                                 no shadow, found by a
//                                                 probe)
//   derived(x)  = 2 x^2 * 3 x^3 = 6 x^5          (a class holding a vector,
//                                                 built from a pointer range
//                                                 and from a pushed vector)
// RUN: %adcxx -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcxx -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcxx -O3 %s -o %t.O3 %adlibs && %t.O3
// RUN: %adcxx -fno-exceptions -O2 %s -o %t.noexc %adlibs && %t.noexc
#include "ad.h"
#include "adcheck.h"
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

__attribute__((noinline)) static double norm2(const std::vector<double> &v) {
  double s = 0;
  for (double e : v)
    s += e * e;
  return s;
}

double pushed(double x) {
  std::vector<double> v;
  for (int i = 0; i < 20; i++)
    v.push_back(std::sin(x * i));
  return norm2(v);
}

double resized(double x) {
  std::vector<double> v(3, x);
  v.resize(6, 2 * x);
  double s = 0;
  for (auto it = v.begin(); it != v.end(); ++it)
    s += *it * *it;
  return s;
}

double matrix(double x) {
  std::vector<std::vector<double>> m(3, std::vector<double>(3));
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      m[i][j] = x * (i + 1) + j;
  double s = 0;
  for (auto &row : m)
    for (double e : row)
      s += e * e;
  return s;
}

double copied(double x) {
  std::vector<double> v;
  v.reserve(4);
  v.emplace_back(x);
  v.emplace_back(x * x);
  std::vector<double> w = v;
  w[0] *= 3;
  return std::accumulate(w.begin(), w.end(), 0.0) + v[1];
}

double powers(double x) {
  std::vector<double> v(5);
  for (int i = 0; i < 5; i++)
    v[i] = std::pow(x, i);
  return std::inner_product(v.begin(), v.end(), v.begin(), 0.0);
}

double filled(double x) {
  std::vector<double> v(4);
  std::fill(v.begin(), v.end(), x);
  return std::inner_product(v.begin(), v.end(), v.begin(), 0.0);
}

double scaled(double x) {
  std::vector<double> v(4, 1.0);
  std::transform(v.begin(), v.end(), v.begin(),
                 [x](double e) { return e * x; });
  return std::accumulate(v.begin(), v.end(), 0.0) * x;
}

double history(double x) {
  std::vector<std::vector<double>> hist;
  for (int i = 0; i < 3; i++)
    hist.push_back(std::vector<double>{x * i, x});
  double s = 0;
  for (auto &h : hist)
    s += h[0] * h[1];
  return s;
}

// v = {x, x, 1, 2, x^2}
double inserted(double x) {
  std::vector<double> v = {1.0, 2.0};
  v.push_back(x * x);
  v.insert(v.begin(), {x, x});
  return std::accumulate(v.begin(), v.end(), 0.0) * v[0];
}

double grid(double x) {
  const int n = 4;
  std::vector<std::vector<double>> a(n, std::vector<double>(n, 0.0));
  for (int i = 0; i < n; i++)
    a[i][i] = x * (i + 1);
  double s = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      s += a[i][j] * a[i][j];
  return s;
}

double filled3(double x) {
  std::vector<double> v;
  v.resize(3, x);
  return v[0] * v[1] + v[2];
}

struct Poly {
  std::vector<double> c;
  Poly(const double *p, int n) : c(p, p + n) {}
  Poly deriv() const {
    std::vector<double> d;
    for (unsigned i = 1; i < c.size(); i++)
      d.push_back(i * c[i]);
    return Poly(d.data(), (int)d.size());
  }
};
// p = x + x^2 t + x^3 t^2: p' = x^2 + 2 x^3 t, coefficients (x^2, 2 x^3)
double derived(double x) {
  double coef[3] = {x, x * x, x * x * x};
  Poly p(coef, 3);
  Poly dp = p.deriv();
  return dp.c[0] * dp.c[1] * 3;
}

int main() {
  volatile double vx = 0.37;
  double x = vx;

  double want = 0;
  for (int i = 0; i < 20; i++)
    want += i * std::sin(2 * x * i);
  ad_deriv("pushed", __ad_gradient(pushed, x), want, AD_FD(x, pushed(x)),
           AD_TOL_D);
  ad_deriv("pushed fwd", __ad_derivative(pushed, x, 1.0), want,
           AD_FD(x, pushed(x)), AD_TOL_D);

  ad_deriv("resized", __ad_gradient(resized, x), 30 * x, AD_FD(x, resized(x)),
           AD_TOL_D);

  want = 0;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      want += 2 * (x * (i + 1) + j) * (i + 1);
  ad_deriv("matrix", __ad_gradient(matrix, x), want, AD_FD(x, matrix(x)),
           AD_TOL_D);

  ad_deriv("copied", __ad_gradient(copied, x), 3 + 4 * x, AD_FD(x, copied(x)),
           AD_TOL_D);

  want = 0;
  for (int i = 1; i < 5; i++)
    want += 2 * i * std::pow(x, 2 * i - 1);
  ad_deriv("powers", __ad_gradient(powers, x), want, AD_FD(x, powers(x)),
           AD_TOL_D);

  ad_deriv("filled", __ad_gradient(filled, x), 8 * x, AD_FD(x, filled(x)),
           AD_TOL_D);
  ad_deriv("scaled", __ad_gradient(scaled, x), 8 * x, AD_FD(x, scaled(x)),
           AD_TOL_D);
  ad_deriv("history", __ad_gradient(history, x), 6 * x, AD_FD(x, history(x)),
           AD_TOL_D);
  ad_deriv("inserted", __ad_gradient(inserted, x), 3 + 4 * x + 3 * x * x,
           AD_FD(x, inserted(x)), AD_TOL_D);
  ad_deriv("grid", __ad_gradient(grid, x), 2 * x * 30, AD_FD(x, grid(x)),
           AD_TOL_D);
  ad_deriv("filled3", __ad_gradient(filled3, x), 2 * x + 1,
           AD_FD(x, filled3(x)), AD_TOL_D);
  ad_deriv("derived", __ad_gradient(derived, x), 30 * x * x * x * x,
           AD_FD(x, derived(x)), AD_TOL_D);
  return ad_finish();
}
