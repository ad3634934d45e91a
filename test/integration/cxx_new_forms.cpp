// Heap memory from the nothrow forms of operator new and new[] (what
// std::stable_sort's temporary buffer and code that checks for a null
// result use): it got no shadow, and storing an active value there was an
// error ("memory that 'operator new[](unsigned long, std::nothrow_t const&)'
// returned, whose body is not visible"; found by a probe).
// RUN: %adcxx -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcxx -O2 %s -o %t.O2 %adlibs && %t.O2
#include "ad.h"
#include "adcheck.h"
#include <new>

double scaled(const double *x, int n) {
  double *t = new (std::nothrow) double[n];
  if (!t)
    return 0;
  for (int i = 0; i < n; i++)
    t[i] = x[i] * (i + 1);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += t[i] * t[i];
  delete[] t;
  return s;
}

struct cell {
  double v;
};
double boxed(double a) {
  cell *c = new (std::nothrow) cell{a * a};
  double r = c ? c->v * a : 0;
  delete c;
  return r;
}

int main() {
  double x[3] = {0.5, -1, 2}, dx[3] = {0, 0, 0};
  __ad_gradient(scaled, x, dx, 3);
  for (int i = 0; i < 3; i++)
    ad_check(ad_fmt("scaled d/dx%d", i), dx[i], 2 * x[i] * (i + 1) * (i + 1),
             1e-15, 0);
  ad_check("boxed", __ad_gradient(boxed, 0.7), 3 * 0.49, 1e-15, 0);
  ad_check("boxed forward", __ad_derivative(boxed, 0.7, 1.0), 3 * 0.49, 1e-15,
           0);
  return ad_finish();
}
