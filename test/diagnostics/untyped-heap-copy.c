// A struct copied whole by a helper between two heap blocks whose callers
// read only its integer field: nothing in the module says the copy moves a
// double. Since the callers' own accesses type such copies (the
// std::vector range insert), "typed, with integers only" from a caller
// read as "no floating-point data": a zero gradient, silently, at -O1.
// Integers alone now say nothing of the bytes not read: an error at the
// copy instead. The gradient is checked where the helpers are inlined.
// clang-format off
// RUN: not %adcc -O1 -g -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O3 %s -o %t.O3 %adlibs && %t.O3
// clang-format on
#include "ad.h"
#include "adcheck.h"
#include <stdlib.h>
#include <string.h>

struct KV {
  int key;
  double val;
};

__attribute__((noinline)) static void fill(struct KV *p, double x) {
  p->val = x * x;
}
__attribute__((noinline)) static void put(struct KV *dst,
                                          const struct KV *src) {
  // CHECK: untyped-heap-copy.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate this memory copy: what it moves (float, double or pointer data) cannot be told from this function or its callers
  memcpy(dst, src, sizeof *src);
}
__attribute__((noinline)) static double get_val(const struct KV *p) {
  return p->val;
}

static double f(double x) {
  struct KV *a = malloc(sizeof *a), *b = malloc(sizeof *b);
  a->key = 1;
  fill(a, x);
  put(b, a);
  double r = 3 * get_val(b);
  free(a);
  free(b);
  return r;
}

int main(void) {
  double x = 1.5;
  ad_deriv("d/dx", __ad_gradient(f, x), 6 * x, AD_FD(x, f(x)), AD_TOL_D);
  return ad_finish();
}
