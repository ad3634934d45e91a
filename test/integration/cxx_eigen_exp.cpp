// Eigen's vectorised array().exp() on dynamic vectors of doubles and
// floats. Without SSE4.1 Eigen rounds with 2^52 (2^23) behind an inline
// assembly barrier (RoundingBarrier.cpp) and clamps with its minpd/maxpd
// assembly (PackedMinMaxAsm.cpp); with SSE4.1 or AVX it rounds with
// llvm.x86.sse41.round.pd / llvm.x86.avx.round.pd.256, which are the
// generic llvm.floor and kin (PackedRounding.cpp). All were compile errors. With AVX at -O0 the tape keeps 32-byte vectors in
// records that are 16-byte aligned: their accesses are aligned to 16 now
// (they crashed). At -O0 without SSE4.1 the rounding's two additions are
// calls of their own, which the barrier separates: still an error
// (diagnostics/eigen-exp-O0.cpp). Reverse mode against the analytic values
// and central differences, forward mode along one direction.
// REQUIRES: eigen
// clang-format off
// RUN: %adcxx -O1 -I/usr/include/eigen3 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcxx -O2 -I/usr/include/eigen3 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcxx -O3 -I/usr/include/eigen3 %s -o %t.O3 %adlibs && %t.O3
// RUN: %adcxx -O2 -ffast-math -I/usr/include/eigen3 %s -o %t.fast %adlibs && %t.fast
// RUN: %adcxx -O2 -msse4.1 -I/usr/include/eigen3 %s -o %t.sse41 %adlibs && %t.sse41
// RUN: %adcxx -O2 -mavx -I/usr/include/eigen3 %s -o %t.avx %adlibs && %t.avx
// RUN: %adcxx -O0 -mavx -I/usr/include/eigen3 %s -o %t.avxO0 %adlibs && %t.avxO0
// clang-format on
#include "ad.h"
#include "adcheck.h"
#include <Eigen/Dense>
#include <cmath>

static const int N = 9;

// sum x_i exp(x_i): the gradient is (x_i + 1) exp(x_i).
double weighted_exp(const double *x, int n) {
  Eigen::Map<const Eigen::ArrayXd> v(x, n);
  return (v.exp() * v).sum();
}

// log-sum-exp with the maximum taken out: the gradient is the softmax.
double log_sum_exp(const double *x, int n) {
  Eigen::Map<const Eigen::ArrayXd> v(x, n);
  double m = v.maxCoeff();
  return m + std::log((v - m).exp().sum());
}

float exp_sum_f(const float *x, int n) {
  Eigen::Map<const Eigen::ArrayXf> v(x, n);
  return (v * 0.5f).exp().sum();
}

static double Point[N] = {0.3, -1.2, 0.8, 2.1, -0.4, 0.6, -3.9, 1.7, 0.05};
double along(double t) {
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = Point[i] + t * (i % 3 - 1);
  return log_sum_exp(x, N);
}

int main() {
  double *x = Point;
  double dw[N] = {0}, dl[N] = {0};
  __ad_gradient_void(weighted_exp, x, dw, N);
  __ad_gradient_void(log_sum_exp, x, dl, N);
  double z = 0;
  for (int i = 0; i < N; i++)
    z += std::exp(x[i]);
  double slope = 0;
  for (int i = 0; i < N; i++) {
    double t = x[i];
    ad_deriv(ad_fmt("weighted_exp d/dx%d", i), dw[i], std::exp(t) * (t + 1),
             AD_FD(x[i], weighted_exp(x, N)), AD_TOL_D);
    ad_deriv(ad_fmt("log_sum_exp d/dx%d", i), dl[i], std::exp(t) / z,
             AD_FD(x[i], log_sum_exp(x, N)), AD_TOL_D);
    slope += std::exp(t) / z * (i % 3 - 1);
  }
  ad_deriv("log_sum_exp forward", __ad_derivative(along, 0.0, 1.0), slope,
           ad_fd1(along, 0.0), AD_TOL_D);
  float xf[N], df[N] = {0};
  for (int i = 0; i < N; i++)
    xf[i] = float(x[i]);
  __ad_gradient_void(exp_sum_f, xf, df, N);
  for (int i = 0; i < N; i++)
    ad_deriv(ad_fmt("float exp d/dx%d", i), df[i],
             0.5 * std::exp(0.5 * double(xf[i])), AD_FD(xf[i], exp_sum_f(xf, N)),
             AD_TOL_F);
  return ad_finish();
}
