// ad.hpp from the installed headers: the gradient and a Hessian-vector
// product of a function of a std::vector, and the gradient of a lambda of
// two doubles, checked against the exact derivatives.
#include <ad.hpp>
#include <cmath>
#include <cstdio>

// sum_i x_i^3 sin(x_{i+1}), cyclic
static double cubic_ring(const std::vector<double> &x) {
  double s = 0;
  for (size_t i = 0; i < x.size(); ++i)
    s += x[i] * x[i] * x[i] * std::sin(x[(i + 1) % x.size()]);
  return s;
}

static int check(const char *what, double got, double want) {
  if (std::fabs(got - want) <= 1e-12 * (1 + std::fabs(want)))
    return 0;
  std::printf("FAIL %s: got %.17g want %.17g\n", what, got, want);
  return 1;
}

int main() {
  std::vector<double> x = {0.4, -0.8, 1.1, 0.3}, v = {1, 0.5, -1, 2};
  size_t n = x.size();
  std::vector<double> g = ad::gradient(cubic_ring, x);
  std::vector<double> hv = ad::hvp(cubic_ring, x, v);
  int failed = 0;
  for (size_t i = 0; i < n; ++i) {
    size_t next = (i + 1) % n, prev = (i + n - 1) % n;
    double c = std::cos(x[next]), s = std::sin(x[next]);
    // d/dx_i: from term i and from term prev
    double want_g =
        3 * x[i] * x[i] * s + x[prev] * x[prev] * x[prev] * std::cos(x[i]);
    double want_hv =
        (6 * x[i] * s - x[prev] * x[prev] * x[prev] * std::sin(x[i])) * v[i] +
        3 * x[i] * x[i] * c * v[next] +
        3 * x[prev] * x[prev] * std::cos(x[i]) * v[prev];
    failed += check("gradient", g[i], want_g) + check("hvp", hv[i], want_hv);
  }
  double a = 2.5;
  auto f = [&a](double p, double q) { return a * p * q * q; };
  std::array<double, 2> d = ad::gradient(f, 0.5, 1.5);
  failed += check("lambda d/dp", d[0], a * 1.5 * 1.5) +
            check("lambda d/dq", d[1], 2 * a * 0.5 * 1.5);
  if (!failed)
    std::printf("ad.hpp ok\n");
  return failed;
}
