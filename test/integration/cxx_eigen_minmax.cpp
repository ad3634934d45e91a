// Eigen's vectorised maxCoeff, minCoeff, cwiseMax and cwiseMin on dynamic
// vectors of doubles and floats. Under clang Eigen writes the SSE packet
// min and max as inline assembly (minpd, maxpd, minps, maxps; with -mavx
// their three-operand forms), which was a compile error; they are now the
// comparison and select the instruction computes (PackedMinMaxAsm.cpp).
// The derivative follows the element chosen. Reverse mode against central
// differences and the analytic values, forward mode along one direction,
// -O0 to -O3 and with AVX.
// REQUIRES: eigen
// clang-format off
// RUN: %adcxx -O0 -I/usr/include/eigen3 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcxx -O1 -I/usr/include/eigen3 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcxx -O2 -I/usr/include/eigen3 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcxx -O3 -I/usr/include/eigen3 %s -o %t.O3 %adlibs && %t.O3
// RUN: %adcxx -O2 -mavx -I/usr/include/eigen3 %s -o %t.avx %adlibs && %t.avx
// clang-format on
#include "ad.h"
#include "adcheck.h"
#include <Eigen/Dense>

static const int N = 7;

// The largest square plus twice the smallest cube: the gradient is 2 x_i
// at the largest square's index and 6 x_j^2 at the smallest cube's.
double extremes(const double *x, int n) {
  Eigen::Map<const Eigen::VectorXd> v(x, n);
  return v.cwiseProduct(v).maxCoeff() +
         2 * v.cwiseProduct(v).cwiseProduct(v).minCoeff();
}

// sum max(x_i, x_i^2) + |min(x_i, x_i^2)|^2: elementwise choices.
double clamped(const double *x, int n) {
  Eigen::Map<const Eigen::VectorXd> v(x, n);
  return v.cwiseMax(v.cwiseProduct(v)).sum() +
         v.cwiseMin(v.cwiseProduct(v)).squaredNorm();
}

// The same choices in float: maxps, minps.
float extremes_f(const float *x, int n) {
  Eigen::Map<const Eigen::VectorXf> v(x, n);
  return v.maxCoeff() * v.minCoeff();
}

static double Point[N] = {0.3, -1.2, 0.8, 1.1, -0.4, 0.6, -0.9};
double extremes_along(double t) {
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = Point[i] + t * (i + 1);
  return extremes(x, N);
}

int main() {
  double *x = Point;
  double de[N] = {0}, dc[N] = {0};
  __ad_gradient_void(extremes, x, de, N);
  __ad_gradient_void(clamped, x, dc, N);
  // Largest square: x1 = -1.2; smallest cube: x1 = -1.2 too.
  for (int i = 0; i < N; i++) {
    double t = x[i];
    double want = i == 1 ? 2 * t + 6 * t * t : 0;
    ad_deriv(ad_fmt("extremes d/dx%d", i), de[i], want,
             AD_FD(x[i], extremes(x, N)), AD_TOL_D);
    // x > x^2 inside (0, 1): max is x there, min is x^2.
    bool inside = t > 0 && t < 1;
    want = (inside ? 1 : 2 * t) + (inside ? 4 * t * t * t : 2 * t);
    ad_deriv(ad_fmt("clamped d/dx%d", i), dc[i], want,
             AD_FD(x[i], clamped(x, N)), AD_TOL_D);
  }
  double slope = 0;
  for (int i = 0; i < N; i++)
    slope += de[i] * (i + 1);
  ad_deriv("extremes forward", __ad_derivative(extremes_along, 0.0, 1.0),
           slope, ad_fd1(extremes_along, 0.0), AD_TOL_D);
  float xf[N], df[N] = {0};
  for (int i = 0; i < N; i++)
    xf[i] = float(x[i]);
  __ad_gradient_void(extremes_f, xf, df, N);
  for (int i = 0; i < N; i++) {
    // Largest: x3 = 1.1; smallest: x1 = -1.2.
    float want = i == 3 ? xf[1] : i == 1 ? xf[3] : 0;
    ad_deriv(ad_fmt("float extremes d/dx%d", i), df[i], want,
             AD_FD(xf[i], extremes_f(xf, N)), AD_TOL_F);
  }
  return ad_finish();
}
