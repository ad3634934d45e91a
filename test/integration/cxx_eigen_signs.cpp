// Eigen's vectorised sign operations on dynamic vectors: negation, cwiseAbs
// and lpNorm<1> of doubles and of floats. With SSE, Eigen flips and clears
// sign bits with integer masks on the packets (pnegate, pabs), which the
// derivative sees as -x and |x|. Reverse mode against central differences,
// -O0 to -O3. (At -O2, -v lost its derivative silently before.)
// REQUIRES: eigen
// clang-format off
// RUN: %adcxx -O0 -I/usr/include/eigen3 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcxx -O1 -I/usr/include/eigen3 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcxx -O2 -I/usr/include/eigen3 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcxx -O3 -I/usr/include/eigen3 %s -o %t.O3 %adlibs && %t.O3
// clang-format on
#include "ad.h"
#include "adcheck.h"
#include <Eigen/Dense>
#include <cmath>

static const int N = 7;

// -v . v^2 = -sum v_i^3: the gradient is -3 v_i^2.
double negated(const double *x, int n) {
  Eigen::Map<const Eigen::VectorXd> v(x, n);
  Eigen::VectorXd w = -v;
  return w.dot(v.cwiseProduct(v));
}

// sum |v_i| v_i^2 + |v|_1: the gradient is 3 |v_i| v_i + sign(v_i).
double absolute(const double *x, int n) {
  Eigen::Map<const Eigen::VectorXd> v(x, n);
  Eigen::VectorXd a = v.cwiseAbs();
  return a.dot(v.cwiseProduct(v)) + v.lpNorm<1>();
}

// Floats, four to a packet: sum |v_i| (v_i + 1) - sum v_i.
float absoluteFloat(const float *x, int n) {
  Eigen::Map<const Eigen::VectorXf> v(x, n);
  Eigen::VectorXf a = v.cwiseAbs();
  Eigen::VectorXf m = -v;
  return a.dot(v + Eigen::VectorXf::Ones(n)) + m.sum();
}

int main() {
  double x[N] = {0.3, -0.5, 0.8, 0.6, -1.2, 1.7, -0.9};
  double gn[N] = {0}, ga[N] = {0};
  float xf[N], gf[N] = {0};
  for (int i = 0; i < N; i++)
    xf[i] = (float)x[i];
  __ad_gradient_void(negated, x, gn, N);
  __ad_gradient_void(absolute, x, ga, N);
  __ad_gradient_void(absoluteFloat, xf, gf, N);
  for (int i = 0; i < N; i++) {
    double t = x[i], s = t > 0 ? 1 : -1;
    ad_deriv(ad_fmt("-v d/dx%d", i), gn[i], -3 * t * t,
             AD_FD(x[i], negated(x, N)), AD_TOL_D);
    ad_deriv(ad_fmt("|v| d/dx%d", i), ga[i], 3 * std::fabs(t) * t + s,
             AD_FD(x[i], absolute(x, N)), AD_TOL_D);
    float tf = xf[i], sf = tf > 0 ? 1.0f : -1.0f;
    ad_deriv(ad_fmt("|v| float d/dx%d", i), gf[i],
             sf * (tf + 1) + std::fabs(tf) - 1,
             AD_FD(xf[i], absoluteFloat(xf, N)), AD_TOL_F);
  }
  return ad_finish();
}
