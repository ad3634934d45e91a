// C++ values mixing floating-point and integer fields, returned by value:
// std::pair<double, int> (clang -O0 stores it whole into memory that
// escapes to std::get), std::optional<double> ({double, i8}), and a member
// function returning a result struct. Forward mode of a function returning
// such a value returns the tangent in the same type, its integer fields
// the result's own: they were zero, so the tangent of an engaged
// std::optional came back empty (found by a probe).
// RUN: %adcxx -std=c++17 -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcxx -std=c++17 -O2 %s -o %t.O2 %adlibs && %t.O2
#include "ad.h"
#include "adcheck.h"
#include <cmath>
#include <optional>
#include <utility>

__attribute__((noinline)) static std::pair<double, int> stats(double x) {
  return {std::sin(x) * x, 3};
}
__attribute__((noinline)) static std::optional<double> maybe_exp(double x) {
  if (x > 0)
    return std::exp(x);
  return std::nullopt;
}

double with_pair(double x) {
  auto [v, n] = stats(x);
  return v * n;
}
double with_get(double x) {
  std::pair<double, int> p = stats(x);
  return std::get<0>(p) * std::get<1>(p) + p.first;
}
double with_optional(double x) {
  return maybe_exp(x).value_or(-1.0) + maybe_exp(-x).value_or(x * x);
}

struct Result {
  double value;
  int iterations;
};
class Solver {
public:
  explicit Solver(double scale) : scale_(scale) {}
  __attribute__((noinline)) Result run(double x) const {
    Result r{0.0, 0};
    for (int k = 0; k < 3; ++k, ++r.iterations)
      r.value += scale_ * x * (k + 1);
    return r;
  }

private:
  double scale_;
};
double with_member(double x) {
  Solver s(x);
  Result r = s.run(x);
  return r.value / r.iterations;
}

std::optional<double> __ad_derivative_opt(...) AD_MARKER;
std::pair<double, int> __ad_derivative_pair(...) AD_MARKER;

int main() {
  volatile double vx = 0.9;
  double x = vx;
  double du = std::sin(x) + x * std::cos(x);
  ad_deriv("pair", __ad_gradient(with_pair, x), 3 * du, AD_FD(x, with_pair(x)),
           AD_TOL_D);
  ad_deriv("get", __ad_gradient(with_get, x), 4 * du, AD_FD(x, with_get(x)),
           AD_TOL_D);
  ad_deriv("optional", __ad_gradient(with_optional, x), std::exp(x) + 2 * x,
           AD_FD(x, with_optional(x)), AD_TOL_D);
  ad_deriv("optional fwd", __ad_derivative(with_optional, x, 1.0),
           std::exp(x) + 2 * x, AD_FD(x, with_optional(x)), AD_TOL_D);
  std::optional<double> to = __ad_derivative_opt(maybe_exp, x, 1.0);
  ad_check("optional tangent engaged", to.has_value(), 1, 0, 0);
  ad_check("optional tangent", to.value_or(0), std::exp(x), 1e-15, 0);
  to = __ad_derivative_opt(maybe_exp, -x, 1.0);
  ad_check("optional tangent empty", to.has_value(), 0, 0, 0);
  std::pair<double, int> tp = __ad_derivative_pair(stats, x, 1.0);
  ad_check("pair tangent", tp.first, du, 1e-15, 0);
  ad_check("pair tangent's int", tp.second, 3, 0, 0);
  // (x * x * 6) / 3 = 2 x^2
  ad_deriv("member", __ad_gradient(with_member, x), 4 * x,
           AD_FD(x, with_member(x)), AD_TOL_D);
  return ad_finish();
}
