// The gradient of a C++ template instance that fills a std::array and sums
// it with std::accumulate, checked against the exact derivative.
#include <ad.h>
#include <array>
#include <cmath>
#include <cstdio>
#include <numeric>

struct grad_xy {
  double dx, dy;
};
extern "C" grad_xy __ad_gradient_xy(...) AD_MARKER;

// sum over i < n of softplus((i + 1) x - y), for n <= 8
template <typename T> T softplus_sum(T x, T y, int n) {
  std::array<T, 8> terms{};
  for (int i = 0; i < n; ++i)
    terms[i] = std::log1p(std::exp((i + 1) * x - y));
  return std::accumulate(terms.begin(), terms.begin() + n, T(0));
}

static int check(const char *what, double got, double want) {
  if (std::fabs(got - want) <= 1e-12 * (1 + std::fabs(want)))
    return 0;
  std::printf("FAIL %s: got %.17g want %.17g\n", what, got, want);
  return 1;
}

int main(int argc, char **) {
  int n = argc + 3;
  double x = 0.4, y = 1.1;
  grad_xy g = __ad_gradient_xy(softplus_sum<double>, x, y, n);

  // softplus'(u) = 1 / (1 + exp(-u))
  double want_dx = 0, want_dy = 0;
  for (int i = 0; i < n; ++i) {
    double sigmoid = 1 / (1 + std::exp(-((i + 1) * x - y)));
    want_dx += (i + 1) * sigmoid;
    want_dy -= sigmoid;
  }
  int failed = check("d/dx", g.dx, want_dx) + check("d/dy", g.dy, want_dy);
  if (!failed)
    std::printf("C++ gradient ok: %.17g %.17g\n", g.dx, g.dy);
  return failed;
}
