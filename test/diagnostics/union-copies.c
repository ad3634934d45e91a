// A union's IR type is one of its members: union {void *p; double d;} is
// { ptr }. Swapped through a helper at -O0, the double moved as a pointer
// (SROA turned the copies into pointer loads and stores), whose shadow is
// an address, not a cotangent: the reverse-mode gradient was 0 with no
// diagnostic, forward mode right (found by a probe). A copy of a union is
// now an error; from -O1 the copies are gone and the gradient is checked.
// RUN: not %adcc -O0 -g -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
#include "ad.h"
#include "adcheck.h"

typedef union {
  void *p;
  double d;
} any_data;

static void swap_any(any_data *a, any_data *b) {
  // CHECK: union-copies.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate this memory copy: it moves a union, whose bytes may be floating-point data or pointers (such as the storage of a std::function moved or copied, into a std::vector say): not supported; keep such objects out of the differentiated code, or pass them by reference
  any_data t = *a;
  *a = *b;
  *b = t;
}

double swapped(double x, double w) {
  any_data a, b;
  b.p = 0;
  a.d = w;
  swap_any(&a, &b);
  return x * b.d;
}

int main(void) {
  double x = 0.4, w = 0.9;
  ad_check("reverse", __ad_gradient(swapped, AD_CONST, x, w), x, 1e-15, 0);
  ad_check("forward", __ad_derivative(swapped, AD_CONST, x, w, 1.0), x, 1e-15,
           0);
  return ad_finish();
}
