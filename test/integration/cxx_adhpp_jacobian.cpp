// ad::jacobian from ad.hpp against the analytic Jacobian and central
// differences, at -O0 to -O3, in both of its modes:
//   - more outputs than inputs (n = 3, m = 5): forward mode, one pass per
//     column;
//   - more inputs than outputs (n = 6, m = 2): reverse mode, one pass per
//     row; F accumulates into y in a loop, reading it back;
//   - as many (n = m = 4): forward mode; a lambda capturing a coefficient
//     vector and a step by reference (one explicit Euler step of a
//     nonlinear chain);
//   - a function pointer chosen at run time.
// RUN: %adcxx -std=c++17 -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcxx -std=c++17 -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcxx -std=c++17 -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcxx -std=c++17 -O3 %s -o %t.O3 %adlibs && %t.O3
#include "ad.hpp"
#include "adcheck.h"
#include <cmath>

using Vec = std::vector<double>;

// y_i = sin(x_{i mod 3}) x_{(i+1) mod 3} + i x_{(i+2) mod 3}^2, i < 5
void tall(const Vec &x, Vec &y) {
  for (size_t i = 0; i < y.size(); i++)
    y[i] = std::sin(x[i % 3]) * x[(i + 1) % 3] +
           i * x[(i + 2) % 3] * x[(i + 2) % 3];
}
static Vec tall_jacobian(const Vec &x) {
  Vec J(5 * 3, 0.0);
  for (int i = 0; i < 5; i++) {
    J[i * 3 + i % 3] += std::cos(x[i % 3]) * x[(i + 1) % 3];
    J[i * 3 + (i + 1) % 3] += std::sin(x[i % 3]);
    J[i * 3 + (i + 2) % 3] += 2 * i * x[(i + 2) % 3];
  }
  return J;
}

// y_0 = sum_j exp(x_j / (j + 1)), y_1 = prod_j (1 + x_j^2), accumulated
// in place.
void wide(const Vec &x, Vec &y) {
  y[0] = 0;
  y[1] = 1;
  for (size_t j = 0; j < x.size(); j++) {
    y[0] += std::exp(x[j] / (j + 1));
    y[1] *= 1 + x[j] * x[j];
  }
}
static Vec wide_jacobian(const Vec &x) {
  size_t n = x.size();
  Vec J(2 * n);
  double p = 1;
  for (double e : x)
    p *= 1 + e * e;
  for (size_t j = 0; j < n; j++) {
    J[j] = std::exp(x[j] / (j + 1)) / (j + 1);
    J[n + j] = p / (1 + x[j] * x[j]) * 2 * x[j];
  }
  return J;
}

void squares(const Vec &x, Vec &y) {
  for (size_t i = 0; i < y.size(); i++)
    y[i] = x[i] * x[i];
}

// Central differences of F, column by column.
template <typename F>
static Vec fd_jacobian(const F &fun, const Vec &x, size_t m) {
  size_t n = x.size();
  Vec J(m * n);
  for (size_t j = 0; j < n; j++)
    for (size_t i = 0; i < m; i++) {
      Vec p(x), y(m, 0.0);
      J[i * n + j] = AD_FD(p[j], (fun(p, y), y[i]));
    }
  return J;
}

static void check(const char *what, const Vec &got, const Vec &want,
                  const Vec &fd, size_t n) {
  ad_check(ad_fmt("%s size", what), got.size(), want.size(), 0, 0);
  for (size_t k = 0; k < want.size() && k < got.size(); k++)
    ad_deriv(ad_fmt("%s J[%zu][%zu]", what, k / n, k % n), got[k], want[k],
             fd[k], AD_TOL_D);
}

static volatile double vin[6] = {0.6, -0.9, 1.4, 0.35, -0.25, 0.8};
static volatile int vpick = 1;

int main() {
  {
    Vec x = {vin[0], vin[1], vin[2]};
    check("tall (forward)", ad::jacobian(tall, x, 5), tall_jacobian(x),
          fd_jacobian(tall, x, 5), 3);
  }
  {
    Vec x = {vin[0], vin[1], vin[2], vin[3], vin[4], vin[5]};
    check("wide (reverse)", ad::jacobian(wide, x, 2), wide_jacobian(x),
          fd_jacobian(wide, x, 2), 6);
  }
  {
    Vec c = {0.5, 1.5, -0.7, 2.0};
    double dt = 0.1;
    // x_i + dt (c_i x_i (1 - x_i) - tanh(x_{i-1})), x_{-1} = 0
    auto step = [&](const Vec &x, Vec &y) {
      for (size_t i = 0; i < x.size(); i++)
        y[i] = x[i] + dt * (c[i] * x[i] * (1 - x[i]) -
                            (i ? std::tanh(x[i - 1]) : 0.0));
    };
    Vec x = {vin[0], vin[3], vin[4], vin[5]}, want(16, 0.0);
    for (int i = 0; i < 4; i++) {
      want[i * 4 + i] = 1 + dt * c[i] * (1 - 2 * x[i]);
      if (i) {
        double t = std::tanh(x[i - 1]);
        want[i * 4 + i - 1] = -dt * (1 - t * t);
      }
    }
    check("Euler step lambda", ad::jacobian(step, x, 4), want,
          fd_jacobian(step, x, 4), 4);
  }
  {
    void (*F)(const Vec &, Vec &) = vpick ? squares : tall;
    Vec x = {vin[1], vin[2], vin[3], vin[4], vin[5]}, want(3 * 5, 0.0);
    for (int i = 0; i < 3; i++)
      want[i * 5 + i] = 2 * x[i];
    check("function pointer (reverse)", ad::jacobian(F, x, 3), want,
          fd_jacobian(F, x, 3), 5);
  }
  return ad_finish();
}
