// ad::hvp from ad.hpp: Hessian times v by nested derivatives, against the
// analytic Hessian and central differences of the analytic gradient along
// v, at -O0 to -O3:
//   - a loop-free function of three elements;
//   - the chained Rosenbrock function, a loop over a std::vector of 8;
//   - a lambda capturing a data matrix, labels and a weight by reference
//     (a regularised logistic loss, nested loops);
//   - a lambda holding a copy of a std::vector (capture by value);
//   - a function pointer chosen at run time;
//   - the Hessian column by column (v = e_j), checked to be symmetric.
// RUN: %adcxx -std=c++17 -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcxx -std=c++17 -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcxx -std=c++17 -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcxx -std=c++17 -O3 %s -o %t.O3 %adlibs && %t.O3
#include "ad.hpp"
#include "adcheck.h"
#include <cmath>
#include <functional>

using Vec = std::vector<double>;

// sin(x0) x1 + x1^2 x0 + exp(x2 x0)
double three(const Vec &x) {
  return std::sin(x[0]) * x[1] + x[1] * x[1] * x[0] + std::exp(x[2] * x[0]);
}
static Vec three_grad(const Vec &x) {
  double e = std::exp(x[2] * x[0]);
  return {std::cos(x[0]) * x[1] + x[1] * x[1] + x[2] * e,
          std::sin(x[0]) + 2 * x[1] * x[0], x[0] * e};
}
static Vec three_hvp(const Vec &x, const Vec &v) {
  double e = std::exp(x[2] * x[0]);
  double H[3][3] = {{-std::sin(x[0]) * x[1] + x[2] * x[2] * e,
                     std::cos(x[0]) + 2 * x[1], e + x[0] * x[2] * e},
                    {std::cos(x[0]) + 2 * x[1], 2 * x[0], 0},
                    {e + x[0] * x[2] * e, 0, x[0] * x[0] * e}};
  Vec hv(3, 0.0);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      hv[i] += H[i][j] * v[j];
  return hv;
}

// sum_i 100 (x_{i+1} - x_i^2)^2 + (1 - x_i)^2
double rosenbrock(const Vec &x) {
  double s = 0;
  for (size_t i = 0; i + 1 < x.size(); i++) {
    double a = x[i + 1] - x[i] * x[i], b = 1 - x[i];
    s += 100 * a * a + b * b;
  }
  return s;
}
static Vec rosenbrock_grad(const Vec &x) {
  Vec g(x.size(), 0.0);
  for (size_t i = 0; i + 1 < x.size(); i++) {
    double a = x[i + 1] - x[i] * x[i];
    g[i] += -400 * a * x[i] - 2 * (1 - x[i]);
    g[i + 1] += 200 * a;
  }
  return g;
}
static Vec rosenbrock_hvp(const Vec &x, const Vec &v) {
  Vec hv(x.size(), 0.0);
  for (size_t i = 0; i + 1 < x.size(); i++) {
    double hii = 1200 * x[i] * x[i] - 400 * x[i + 1] + 2, hij = -400 * x[i];
    hv[i] += hii * v[i] + hij * v[i + 1];
    hv[i + 1] += hij * v[i] + 200 * v[i + 1];
  }
  return hv;
}

double sum_cosh(const Vec &x) {
  double s = 0;
  for (double e : x)
    s += std::cosh(e);
  return s;
}

// d/dt grad(x + t v) at 0, by the 4-point stencil of adcheck.h.
static Vec fd_hvp(const std::function<Vec(const Vec &)> &grad, const Vec &x,
                  const Vec &v) {
  Vec out(x.size());
  for (size_t i = 0; i < x.size(); i++) {
    double t = 0;
    out[i] = AD_FD(t, ([&] {
                     Vec p(x);
                     for (size_t j = 0; j < x.size(); j++)
                       p[j] += t * v[j];
                     return grad(p)[i];
                   }()));
  }
  return out;
}

static void check(const char *what, const Vec &got, const Vec &want,
                  const Vec &fd) {
  ad_check(ad_fmt("%s size", what), got.size(), want.size(), 0, 0);
  for (size_t i = 0; i < want.size() && i < got.size(); i++)
    ad_deriv(ad_fmt("%s (Hv)[%zu]", what, i), got[i], want[i], fd[i], AD_TOL_D);
}

static volatile double vin[4] = {0.3, 0.5, -0.4, 1.2};
static volatile int vpick = 1;

int main() {
  {
    Vec x = {vin[0], vin[1], vin[2]}, v = {1, 0.5, -2};
    check("three", ad::hvp(three, x, v), three_hvp(x, v),
          fd_hvp(three_grad, x, v));
  }
  {
    Vec x(8), v(8);
    for (int i = 0; i < 8; i++) {
      x[i] = vin[i % 4] + 0.1 * i;
      v[i] = std::cos(1.0 + i);
    }
    check("rosenbrock", ad::hvp(rosenbrock, x, v), rosenbrock_hvp(x, v),
          fd_hvp(rosenbrock_grad, x, v));

    // Column by column: H is symmetric.
    Vec H(64);
    for (int j = 0; j < 8; j++) {
      Vec e(8, 0.0);
      e[j] = 1;
      Vec col = ad::hvp(rosenbrock, x, e);
      for (int i = 0; i < 8; i++)
        H[i * 8 + j] = col[i];
    }
    for (int i = 0; i < 8; i++)
      for (int j = 0; j < i; j++)
        ad_check(ad_fmt("rosenbrock H[%d][%d] = H[%d][%d]", i, j, j, i),
                 H[i * 8 + j], H[j * 8 + i], 1e-12, 1e-12);
  }
  {
    // Regularised logistic loss; the data are captures, held constant.
    const int K = 5, N = 3;
    Vec A = {0.5, -1.0, 0.25, 1.5,  0.5, -0.5, -0.75, 0.2,
             1.0, 0.3,  0.9,  -0.6, 1.1, -0.4, 0.8};
    Vec y = {1, -1, 1, 1, -1};
    double lambda = 0.1;
    auto margin = [&](const Vec &w, int k) {
      double m = 0;
      for (int j = 0; j < N; j++)
        m += A[k * N + j] * w[j];
      return y[k] * m;
    };
    auto loss = [&](const Vec &w) {
      double s = 0;
      for (int k = 0; k < K; k++)
        s += std::log1p(std::exp(-margin(w, k)));
      for (int j = 0; j < N; j++)
        s += 0.5 * lambda * w[j] * w[j];
      return s;
    };
    auto sigma = [](double t) { return 1 / (1 + std::exp(-t)); };
    auto grad = [&](const Vec &w) {
      Vec g(N);
      for (int j = 0; j < N; j++)
        g[j] = lambda * w[j];
      for (int k = 0; k < K; k++)
        for (int j = 0; j < N; j++)
          g[j] -= sigma(-margin(w, k)) * y[k] * A[k * N + j];
      return g;
    };
    Vec w = {vin[3], vin[2], vin[0]}, v = {0.7, -1.3, 0.4};
    Vec want(N);
    for (int j = 0; j < N; j++)
      want[j] = lambda * v[j];
    for (int k = 0; k < K; k++) {
      double s = sigma(margin(w, k)), av = 0;
      for (int j = 0; j < N; j++)
        av += A[k * N + j] * v[j];
      for (int j = 0; j < N; j++)
        want[j] += s * (1 - s) * av * A[k * N + j];
    }
    check("logistic lambda", ad::hvp(loss, w, v), want, fd_hvp(grad, w, v));
  }
  {
    Vec c = {1.5, -2.0, 0.5};
    auto weighted_cubes = [c](const Vec &x) {
      double s = 0;
      for (size_t i = 0; i < x.size(); i++)
        s += c[i] * x[i] * x[i] * x[i];
      return s;
    };
    Vec x = {vin[0], vin[2], vin[3]}, v = {0.5, 1, -1.5}, want(3);
    for (int i = 0; i < 3; i++)
      want[i] = 6 * c[i] * x[i] * v[i];
    auto grad = [&c](const Vec &p) {
      Vec g(p.size());
      for (size_t i = 0; i < p.size(); i++)
        g[i] = 3 * c[i] * p[i] * p[i];
      return g;
    };
    check("captured copy", ad::hvp(weighted_cubes, x, v), want,
          fd_hvp(grad, x, v));
  }
  {
    double (*h)(const Vec &) = vpick ? sum_cosh : rosenbrock;
    Vec x = {vin[0], vin[1], vin[2], vin[3]}, v = {1, -1, 2, 0.5}, want(4);
    for (int i = 0; i < 4; i++)
      want[i] = std::cosh(x[i]) * v[i];
    auto grad = [](const Vec &p) {
      Vec g(p.size());
      for (size_t i = 0; i < p.size(); i++)
        g[i] = std::sinh(p[i]);
      return g;
    };
    check("function pointer", ad::hvp(h, x, v), want, fd_hvp(grad, x, v));
  }
  return ad_finish();
}
