// A copy typed by the callees its blocks are passed to: callees that read
// only the integer key of a {key, value} record say nothing of the double
// next to it, which the copy also moves. Taking "integers only" from them
// would drop the value's derivative silently: the copy stays an error.
// At -O0 the callees address the fields through the struct's type, which
// says a double lies there too: the copy is typed, its gradient checked.
// clang-format off
// RUN: not %adcc -O1 -g -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %adcc -O2 -g -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// clang-format on
#include "ad.h"
#include "adcheck.h"
#include <stdlib.h>
#include <string.h>

struct KV {
  int key;
  double val;
};

__attribute__((noinline)) static void set_key(struct KV *p, int k) {
  p->key = k;
}
__attribute__((noinline)) static int get_key(const struct KV *p) {
  return p->key;
}
/* A record whose value depends on x, made where the copy cannot see. */
__attribute__((noinline)) static void *make(double x) {
  struct KV *p = malloc(sizeof *p);
  p->key = 3;
  p->val = x * x;
  return p;
}

double f(double x) {
  struct KV *a = make(x), *b = malloc(sizeof *b);
  set_key(b, 0);
  // clang-format off
  // CHECK: callee-partial-copy-types.c:[[@LINE+2]]:{{[0-9]+}}: error: cannot differentiate this memory copy: what it moves (float, double or pointer data) cannot be told from this function or its callers
  // clang-format on
  memcpy(b, a, sizeof *a);
  double r = get_key(b) * x;
  free(a);
  free(b);
  return r;
}

int main(void) {
  double x = 1.5;
  ad_deriv("d/dx", __ad_gradient(f, x), 3, AD_FD(x, f(x)), AD_TOL_D);
  return ad_finish();
}
