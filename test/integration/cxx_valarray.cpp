// std::valarray<double> inside the differentiated function. At -O0:
//  - its constructors store the storage that __valarray_get_storage (an
//    out-of-line helper given only a size) returns into the valarray,
//    whose fields carry shadows; that pointer had none ("a pointer to
//    memory without derivatives is stored where pointers to memory with
//    derivatives are kept"), so every valarray failed. A pointer result of
//    a function in this file that is stored where shadowed pointers are
//    kept now gets its shadow from the callee's JVP (g, h).
//  - copying from an array moves the elements with a memcpy of variable
//    length whose pointers are the helper's parameters; the caller's
//    array, of doubles only, now types it (h).
//  - copying from an initializer list (k) reaches the array through
//    initializer_list::begin(), which nothing follows: a clear error,
//    pinned below; k is checked from -O1.
//
// g(x) = sum (x, 2x, x)^2 = 6x^2,                 g' = 12x
// h(x) = sum u * (u * u), u = (x, x^2, 1) = x^3 + x^6 + 1,
//                                                 h' = 3x^2 + 6x^5
// k(x) = sum (x, 2x, x^2)^2 = 5x^2 + x^4,         k' = 10x + 4x^3
// RUN: %adcxx -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcxx -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcxx -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: not %adcxx -O0 -DINIT_LIST_AT_O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: cannot differentiate this memory copy: what it moves (float, double or pointer data) cannot be told from this function or its callers; copy element by element instead
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
  std::valarray<double> w = u * u;
  return (u * w).sum();
}

static double k(double x) {
  std::valarray<double> v = {x, 2 * x, x * x};
  return (v * v).sum();
}

int main() {
  for (double x : {0.5, 1.5, -2.0}) {
    double s = ad_fd_step(x, 0);
    ad_deriv(ad_fmt("g'(%g)", x), __ad_gradient(g, x), 12 * x,
             (g(x + s) - g(x - s)) / (2 * s), AD_TOL_D);
    ad_deriv(ad_fmt("h'(%g)", x), __ad_gradient(h, x),
             3 * x * x + 6 * x * x * x * x * x,
             (h(x + s) - h(x - s)) / (2 * s), AD_TOL_D);
#if defined(__OPTIMIZE__) || defined(INIT_LIST_AT_O0)
    ad_deriv(ad_fmt("k'(%g)", x), __ad_gradient(k, x), 10 * x + 4 * x * x * x,
             (k(x + s) - k(x - s)) / (2 * s), AD_TOL_D);
#endif
  }
  return ad_finish();
}
