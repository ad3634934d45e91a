// ad::gradient from ad.hpp, both forms, against analytic partials and
// central differences:
//   - f(double, double) a function, its result a std::array<double, 2>;
//     a one-argument function; a function pointer chosen at run time (its
//     call is differentiated through the dispatch over the module's
//     functions of that type);
//   - a lambda of three doubles capturing one variable by reference and
//     one by value: the captures are constants, only the arguments are
//     differentiated;
//   - a float function (differentiated in float, the partials returned as
//     doubles), a generic lambda, a std::function;
//   - h(const std::vector<double> &) with loops: a function, and a lambda
//     capturing a data vector and a scalar by reference; the same vector
//     at several points in a loop (each call starts from a zero gradient).
// The code around the calls keeps exceptions enabled: ad.hpp builds its
// vectors outside the differentiated code.
// RUN: %adcxx -std=c++17 -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcxx -std=c++17 -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcxx -std=c++17 -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcxx -std=c++17 -O3 %s -o %t.O3 %adlibs && %t.O3
#include "ad.hpp"
#include "adcheck.h"
#include <cmath>
#include <functional>

using Vec = std::vector<double>;

double rosenbrock2(double x, double y) {
  return (1 - x) * (1 - x) + 100 * (y - x * x) * (y - x * x);
}
double saddle(double x, double y) { return x * x * y - std::sin(y) * x; }
double cube_sin(double x) { return x * x * x * std::sin(x); }
float scaled_sin(float a, float b) { return a * std::sin(b); }

// log sum_i exp(x_i) + 0.5 sum_i i x_i^2
double logsumexp_ridge(const Vec &x) {
  double m = x[0];
  for (double v : x)
    m = v > m ? v : m;
  double s = 0, r = 0;
  for (size_t i = 0; i < x.size(); i++) {
    s += std::exp(x[i] - m);
    r += 0.5 * i * x[i] * x[i];
  }
  return m + std::log(s) + r;
}

// Central difference of fun at x in coordinate j.
template <typename F> static double fd_at(const F &fun, Vec x, size_t j) {
  return AD_FD(x[j], fun(x));
}

static volatile double vin[6] = {0.7, -1.1, 0.45, 1.3, -0.2, 0.9};
static volatile int vpick = 1;

int main() {
  double x = vin[0], y = vin[1], z = vin[2];

  {
    std::array<double, 2> g = ad::gradient(rosenbrock2, x, y);
    static_assert(std::is_same_v<decltype(g), std::array<double, 2>>);
    ad_deriv("rosenbrock2 d/dx", g[0], -2 * (1 - x) - 400 * x * (y - x * x),
             AD_FD(x, rosenbrock2(x, y)), AD_TOL_D);
    ad_deriv("rosenbrock2 d/dy", g[1], 200 * (y - x * x),
             AD_FD(y, rosenbrock2(x, y)), AD_TOL_D);
  }
  {
    std::array<double, 1> g = ad::gradient(cube_sin, z);
    ad_deriv("cube_sin d/dx", g[0],
             3 * z * z * std::sin(z) + z * z * z * std::cos(z),
             AD_FD(z, cube_sin(z)), AD_TOL_D);
  }
  {
    // Chosen at run time: the request sees a function pointer.
    double (*fp)(double, double) = vpick ? saddle : rosenbrock2;
    auto g = ad::gradient(fp, x, y);
    ad_deriv("function pointer d/dx", g[0], 2 * x * y - std::sin(y),
             AD_FD(x, fp(x, y)), AD_TOL_D);
    ad_deriv("function pointer d/dy", g[1], x * x - std::cos(y) * x,
             AD_FD(y, fp(x, y)), AD_TOL_D);
  }
  {
    double a = vin[3], b = vin[4];
    auto f = [&a, b](double u, double v, double w) {
      return a * std::sin(u * v) + b * std::exp(w) * u;
    };
    auto g = ad::gradient(f, x, y, z);
    static_assert(std::is_same_v<decltype(g), std::array<double, 3>>);
    ad_deriv("lambda d/du", g[0], a * y * std::cos(x * y) + b * std::exp(z),
             AD_FD(x, f(x, y, z)), AD_TOL_D);
    ad_deriv("lambda d/dv", g[1], a * x * std::cos(x * y), AD_FD(y, f(x, y, z)),
             AD_TOL_D);
    ad_deriv("lambda d/dw", g[2], b * std::exp(z) * x, AD_FD(z, f(x, y, z)),
             AD_TOL_D);
  }
  {
    auto g = ad::gradient(scaled_sin, x, y);
    float xf = x, yf = y;
    ad_deriv("float function d/da", g[0], std::sin(yf),
             AD_FD(xf, scaled_sin(xf, yf)), AD_TOL_F);
    ad_deriv("float function d/db", g[1], xf * std::cos(yf),
             AD_FD(yf, scaled_sin(xf, yf)), AD_TOL_F);
  }
  {
    auto generic = [](auto a, auto b) { return a * a * b; };
    auto g = ad::gradient(generic, x, y);
    ad_check("generic lambda d/da", g[0], 2 * x * y, 1e-15, 0);
    ad_check("generic lambda d/db", g[1], x * x, 1e-15, 0);
  }
  {
    std::function<double(double, double)> quotient = [](double a, double b) {
      return std::exp(a) / b;
    };
    auto g = ad::gradient(quotient, x, y);
    ad_deriv("std::function d/da", g[0], std::exp(x) / y,
             AD_FD(x, quotient(x, y)), AD_TOL_D);
    ad_deriv("std::function d/db", g[1], -std::exp(x) / (y * y),
             AD_FD(y, quotient(x, y)), AD_TOL_D);
  }
  {
    Vec p = {vin[0], vin[1], vin[2], vin[3], vin[4]};
    Vec g = ad::gradient(logsumexp_ridge, p);
    ad_check("logsumexp_ridge size", g.size(), p.size(), 0, 0);
    double m = p[0], s = 0;
    for (double v : p)
      m = std::fmax(m, v);
    for (double v : p)
      s += std::exp(v - m);
    for (size_t j = 0; j < p.size(); j++)
      ad_deriv(ad_fmt("logsumexp_ridge d/dx[%zu]", j), g[j],
               std::exp(p[j] - m) / s + j * p[j], fd_at(logsumexp_ridge, p, j),
               AD_TOL_D);
  }
  {
    // Captured data (a vector and a scalar) held constant; several points.
    Vec data = {1.5, -0.5, 2.0, 0.25};
    double scale = vin[5];
    auto loss = [&](const Vec &w) {
      double s = 0;
      for (size_t i = 0; i < w.size(); i++)
        s += std::tanh(w[i] * data[i]) * scale + w[i] * w[i] * w[i];
      return s;
    };
    for (int k = 0; k < 3; k++) {
      Vec w = {0.1 * k + vin[4], 0.3 - 0.2 * k, vin[2], -0.1 * k};
      Vec g = ad::gradient(loss, w);
      for (size_t j = 0; j < w.size(); j++) {
        double t = std::tanh(w[j] * data[j]);
        ad_deriv(ad_fmt("captured data, point %d d/dw[%zu]", k, j), g[j],
                 (1 - t * t) * data[j] * scale + 3 * w[j] * w[j],
                 fd_at(loss, w, j), AD_TOL_D);
      }
    }
  }
  return ad_finish();
}
