// The Hessian-vector product of functions that loop over a std::vector,
// computed by the other nesting: forward over reverse (the derivative
// along v of a function that adds the gradient to g), next to ad::hvp
// (reverse over forward) and central differences of the gradient.
// Both nestings agree through loops over a std::vector's elements, whose
// values the inner gradient keeps per iteration on the runtime tape.
// RUN: %adcxx -std=c++17 -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcxx -std=c++17 -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcxx -std=c++17 -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcxx -std=c++17 -O3 %s -o %t.O3 %adlibs && %t.O3
#include "ad.hpp"
#include "adcheck.h"
#include <cmath>

using Vec = std::vector<double>;

// sum_i x_i^3 sin(x_{i+1}), cyclic
double cubic_ring(const Vec &x) {
  double s = 0;
  for (size_t i = 0; i < x.size(); i++)
    s += x[i] * x[i] * x[i] * std::sin(x[(i + 1) % x.size()]);
  return s;
}

template <typename F> struct ForwardOverReverse {
  static double call(const F *h, const Vec *x) { return (*h)(*x); }
  // g += gradient of h at x; its tangent along x's tangent v is H v.
  static void add_gradient(const F *h, const Vec *x, Vec *g) {
    __ad_gradient_void(&call, AD_CONST, h, x, g);
  }
};

template <typename F>
static Vec hvp_fwd_rev(const F &h, const Vec &x, const Vec &v) {
  Vec g(x.size(), 0.0), hv(x.size(), 0.0);
  __ad_derivative_void(&ForwardOverReverse<F>::add_gradient, AD_CONST, &h, &x,
                       &v, &g, &hv);
  return hv;
}

int main() {
  Vec x = {0.4, -0.8, 1.1, 0.3}, v = {1, 0.5, -1, 2};
  double scale = 1.5;
  auto h = [&scale](const Vec &z) { return scale * cubic_ring(z); };
  Vec got = hvp_fwd_rev(h, x, v), reference = ad::hvp(h, x, v);
  for (size_t i = 0; i < x.size(); i++) {
    double t = 0;
    double fd = AD_FD(t, ([&] {
                        Vec p(x);
                        for (size_t j = 0; j < x.size(); j++)
                          p[j] += t * v[j];
                        return ad::gradient(h, p)[i];
                      }()));
    ad_deriv(ad_fmt("forward over reverse (Hv)[%zu]", i), got[i], reference[i],
             fd, AD_TOL_D);
  }
  return ad_finish();
}
