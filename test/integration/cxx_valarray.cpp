// std::valarray<double> inside the differentiated function. At -O0 its
// constructors store the storage that __valarray_get_storage returns (an
// out-of-line helper given only a size) into the valarray, whose fields
// carry shadows; that pointer had none ("a pointer to memory without
// derivatives is stored where pointers to memory with derivatives are
// kept"), so every valarray failed at -O0. A pointer result of a function
// in this file that is stored where shadowed pointers are kept now gets
// its shadow from the callee's JVP.
//
// g(x) = sum_i (v_i)^2 with v = (x, 2x, x) : 6x^2, g' = 12x.
// h(x) = sum_i u_i w_i with u = (x, x^2, 1), w = u * x : x^3 + x^5 + x,
//        h' = 3x^2 + 5x^4 + 1.
// At -O0 a valarray copied from an array (h) moves its elements with a
// memcpy nothing types (_Array_copy_ctor): a clear error, pinned below;
// h is checked from -O1.
// RUN: %adcxx -fno-exceptions -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: not %adcxx -fno-exceptions -O0 -DCOPY_AT_O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: cannot differentiate this memory copy: what it moves (float, double or pointer data) cannot be told from this function or its callers; copy element by element instead
// RUN: %adcxx -fno-exceptions -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcxx -fno-exceptions -O2 %s -o %t.O2 %adlibs && %t.O2
#include "ad.h"
#include "adcheck.h"
#include <valarray>

static double g(double x) {
  std::valarray<double> v(x, 3);
  v[1] = 2 * x;
  return (v * v).sum();
}

static double h(double x) {
  double raw[3] = {x, x * x, 1};
  std::valarray<double> u(raw, 3);
  std::valarray<double> w = u * x;
  return (u * w).sum();
}

int main() {
  for (double x : {0.5, 1.5, -2.0}) {
    double hfd = ad_fd_step(x, 0);
    ad_deriv(ad_fmt("g'(%g)", x), __ad_gradient(g, x), 12 * x,
             (g(x + hfd) - g(x - hfd)) / (2 * hfd), AD_TOL_D);
#if defined(__OPTIMIZE__) || defined(COPY_AT_O0)
    ad_deriv(ad_fmt("h'(%g)", x), __ad_gradient(h, x),
             3 * x * x + 5 * x * x * x * x + 1,
             (h(x + hfd) - h(x - hfd)) / (2 * hfd), AD_TOL_D);
#endif
  }
  return ad_finish();
}
