// Eigen's dynamic sizes: VectorXd built from a Map of the input, coefficient
// -wise products, dot, norms, sums; MatrixXd filled element by element,
// trace, squaredNorm, a row's dot product, column sums. (Products of
// dynamic matrices, A * v: cxx_eigen_products.cpp.)
// REQUIRES: eigen
// clang-format off
// RUN: %adcxx -O0 -I/usr/include/eigen3 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcxx -O2 -I/usr/include/eigen3 %s -o %t.O2 %adlibs && %t.O2
// clang-format on
#include "ad.h"
#include "adcheck.h"
#include <Eigen/Dense>
#include <cmath>

static const int N = 4;

// v = x^2, w = 2 v + x, u = sin x:
// v.w + sum w + |v| + |u|^2 + sum (v - u).
double vectors(const double *x, int n) {
  Eigen::Map<const Eigen::VectorXd> xm(x, n);
  Eigen::VectorXd v = xm.cwiseProduct(xm);
  Eigen::VectorXd w = 2.0 * v + xm;
  Eigen::VectorXd u(n);
  for (int i = 0; i < n; i++)
    u[i] = std::sin(x[i]);
  return v.dot(w) + w.sum() + v.norm() + u.squaredNorm() + (v - u).sum();
}

// A_ij = x_i x_j + [i = j] x_i:
// trace A + |A|^2 + A.row(0) . x + sum of column sums.
double matrices(const double *x, int n) {
  Eigen::MatrixXd A(n, n);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      A(i, j) = x[i] * x[j] + (i == j ? x[i] : 0.0);
  Eigen::VectorXd v = Eigen::Map<const Eigen::VectorXd>(x, n);
  return A.trace() + A.squaredNorm() + A.row(0).dot(v) +
         A.colwise().sum().sum();
}

int main() {
  double x[N] = {0.3, -0.5, 0.8, 1.1}, dv[N] = {0}, dm[N] = {0};
  __ad_gradient_void(vectors, x, dv, N);
  __ad_gradient_void(matrices, x, dm, N);
  double vnorm = 0;
  for (int i = 0; i < N; i++)
    vnorm += x[i] * x[i] * x[i] * x[i];
  vnorm = std::sqrt(vnorm);
  for (int i = 0; i < N; i++) {
    double t = x[i];
    double want = 8 * t * t * t + 3 * t * t + 4 * t + 1 +
                  2 * t * t * t / vnorm + 2 * std::sin(t) * std::cos(t) +
                  2 * t - std::cos(t);
    ad_deriv(ad_fmt("vectors d/dx%d", i), dv[i], want,
             AD_FD(x[i], vectors(x, N)), AD_TOL_D);
    ad_check(ad_fmt("matrices d/dx%d", i), dm[i], AD_FD(x[i], matrices(x, N)),
             1e-7, 1e-7);
  }
  return ad_finish();
}
