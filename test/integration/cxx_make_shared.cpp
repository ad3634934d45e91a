// std::make_shared inside the differentiated function. At -O0 the
// control block comes from __allocate_guarded, which keeps it in a local
// guard object, and the shared count takes it back through the guard's
// get(): the guard gets a shadow because get()'s result needs one (it is
// kept in the shared_ptr, which has a shadow), and the allocation down
// the call chain gets its shadow. Before, this was a compile error at -O0
// only ("an active value is stored into memory without a shadow (an
// AD_CONST pointer, or a global variable ...)").
// RUN: %adcxx -std=c++17 -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcxx -std=c++17 -O2 %s -o %t.O2 %adlibs && %t.O2
#include "ad.h"
#include "adcheck.h"
#include <memory>

struct grad2 {
  double da, db;
};
extern "C" grad2 __ad_gradient_2(...) AD_MARKER;

struct Point {
  double x, y;
  Point(double x, double y) : x(x), y(y) {}
};

// 3 a^2
double f(double a) {
  auto sp = std::make_shared<double>(a * a);
  return *sp * 3;
}

// A shared object copied and read through both owners: a^2 b + a b^3.
double g(double a, double b) {
  auto p = std::make_shared<Point>(a * b, b * b);
  std::shared_ptr<Point> q = p;
  q->y *= a;
  return p->x * a + q->y * b;
}

int main() {
  const double as[] = {0.5, -1.25, 2.0};
  for (double a : as) {
    ad_deriv(ad_fmt("f'(%g)", a), __ad_gradient(f, a), 6 * a, ad_fd1(f, a),
             AD_TOL_D);
    double b = 0.75 - a;
    grad2 d = __ad_gradient_2(g, a, b);
    double fa = AD_FD(a, g(a, b)), fb = AD_FD(b, g(a, b));
    ad_deriv(ad_fmt("dg/da(%g)", a), d.da, 2 * a * b + b * b * b, fa,
             AD_TOL_D);
    ad_deriv(ad_fmt("dg/db(%g)", a), d.db, a * a + 3 * a * b * b, fb,
             AD_TOL_D);
  }
  return ad_finish();
}
