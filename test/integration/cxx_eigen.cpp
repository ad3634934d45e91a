// Eigen's fixed-size vectors and matrices (Vector3d, Matrix3d): products,
// dot and cross products, norms, sums, transposes, traces, determinants.
// At -O0 every Eigen expression is an object holding pointers to its
// operands, returned by value and copied whole (cxx_pointer_structs.cpp
// has the same patterns without Eigen), and assignment kernels keep
// references to empty functor objects.
//   quad(x)  = x.A x / 2 + |x|^2 sum(x)   -> A x + 2 x sum(x) + |x|^2
//   norm(x)  = |x|                         -> x / |x|
//   cross(x) = |x ^ b|^2                   -> 2 (b ^ (x ^ b))
//   rowsum(x)= sum(A^T x)                  -> A 1 (row sums of A)
//   diff(x)  = |x - b|^2 + x.b             -> 2 (x - b) + b
//   trsq(x)  = tr(S(x)^2), S symmetric     (analytic below)
//   det(x)   = det T(x), T tridiagonal     (analytic below)
// REQUIRES: eigen
// clang-format off
// RUN: %adcxx -std=c++17 -I/usr/include/eigen3 -O0 %s -o %t.O0 %adlibs && %t.O0
// With LLVM 22 at -O2, Eigen's pset1 broadcast reaches the plugin as
// integer lanes, which is an error there (not a wrong derivative):
// RUN: %if llvm-22 %{ not %adcxx -std=c++17 -I/usr/include/eigen3 -O2 -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=LLVM22 %} %else %{ %adcxx -std=c++17 -I/usr/include/eigen3 -O2 %s -o %t.O2 %adlibs && %t.O2 %}
// LLVM22: error: cannot differentiate floating-point bit manipulation
// clang-format on
#include "ad.h"
#include "adcheck.h"
#include <Eigen/Dense>

using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;

static Mat3 constantA() {
  Mat3 A;
  A << 4, 1, 0, 1, 3, 1, 0, 1, 2;
  return A;
}

double quad(const double *p) {
  Vec3 x(p[0], p[1], p[2]);
  Mat3 A = constantA();
  return 0.5 * x.dot(A * x) + x.squaredNorm() * x.sum();
}
double norm(const double *p) {
  Vec3 x(p[0], p[1], p[2]);
  return x.norm();
}
double cross(const double *p) {
  Vec3 x(p[0], p[1], p[2]), b(1, -2, 0.5);
  return x.cross(b).squaredNorm();
}
double rowsum(const double *p) {
  Vec3 x(p[0], p[1], p[2]);
  Mat3 A;
  A << 1, 2, 0, 0, 1, 3, 1, 0, 1;
  return (A.transpose() * x).sum();
}
// |x - b|^2 + x.b: the difference expression is copied whole by its
// implicit copy constructor at -O0 (a memcpy between two parameters, typed
// from what its callers pass: ShadowMemory.cpp).
double diff(const double *p) {
  Vec3 x(p[0], p[1], p[2]), b(1, -2, 0.5);
  return (x - b).squaredNorm() + x.dot(b);
}
// S = [[a b c] [b a c] [c c a]]: tr(S^2) = sum of squares of S's entries
// = 3a^2 + 2b^2 + 4c^2.
double trsq(const double *p) {
  Mat3 S;
  S << p[0], p[1], p[2], p[1], p[0], p[2], p[2], p[2], p[0];
  Mat3 S2 = S * S;
  return S2.trace();
}
// T = [[a b 0] [b a c] [0 c a]]: det T = a^3 - a c^2 - a b^2.
double det(const double *p) {
  Mat3 T;
  T << p[0], p[1], 0, p[1], p[0], p[2], 0, p[2], p[0];
  return T.determinant();
}

// The gradient of f at x against want and central differences.
#define CHECK3(f, want)                                                        \
  do {                                                                         \
    double g_[3] = {0, 0, 0};                                                  \
    __ad_gradient(f, x, g_);                                                   \
    for (int i_ = 0; i_ < 3; i_++) {                                           \
      double xp_[3] = {x[0], x[1], x[2]};                                      \
      double fd_ = AD_FD(xp_[i_], f(xp_));                                     \
      ad_deriv(ad_fmt(#f " d/dx%d", i_), g_[i_], (want)[i_], fd_, AD_TOL_D);   \
    }                                                                          \
  } while (0)

int main() {
  static volatile double vx[3] = {0.3, -0.7, 1.1};
  const double x[3] = {vx[0], vx[1], vx[2]};
  const double a = x[0], b = x[1], c = x[2];
  Vec3 X(a, b, c), B(1, -2, 0.5);
  double s = X.sum(), n2 = X.squaredNorm();
  Vec3 Ax = constantA() * X;
  double wq[3], wn[3], wc[3];
  Vec3 g = 2 * B.cross(X.cross(B));
  for (int i = 0; i < 3; i++) {
    wq[i] = Ax[i] + 2 * X[i] * s + n2;
    wn[i] = X[i] / X.norm();
    wc[i] = g[i];
  }
  CHECK3(quad, wq);
  CHECK3(norm, wn);
  CHECK3(cross, wc);
  const double wdiff[3] = {2 * (a - 1) + 1, 2 * (b + 2) - 2,
                           2 * (c - 0.5) + 0.5};
  CHECK3(diff, wdiff);
  const double wr[3] = {3, 4, 2};
  CHECK3(rowsum, wr);
  const double wt[3] = {6 * a, 4 * b, 8 * c};
  CHECK3(trsq, wt);
  const double wd[3] = {3 * a * a - c * c - b * b, -2 * a * b, -2 * a * c};
  CHECK3(det, wd);
  return ad_finish();
}
