// A call tree: each of 20 levels calls the one below twice (2^20 leaf calls).
// A callee's tape inside its caller's tape would make the top-level tape as
// large as the tree (tens of MB in the caller's stack frame: a stack
// overflow); large callee tapes are pushed per call on the runtime tape.
// Checked against the derivative carried by the same recursion in main.
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
#include "ad.h"
#include "adcheck.h"
#include <math.h>

#define LEVEL(K, J)                                                            \
  __attribute__((noinline)) static double t##K(double x) {                     \
    return 0.5 * t##J(x) + 0.25 * sin(t##J(0.9 * x));                          \
  }
__attribute__((noinline)) static double t0(double x) { return x * x * 0.5 + x; }
LEVEL(1, 0) LEVEL(2, 1) LEVEL(3, 2) LEVEL(4, 3) LEVEL(5, 4) LEVEL(6, 5)
LEVEL(7, 6) LEVEL(8, 7) LEVEL(9, 8) LEVEL(10, 9) LEVEL(11, 10) LEVEL(12, 11)
LEVEL(13, 12) LEVEL(14, 13) LEVEL(15, 14) LEVEL(16, 15) LEVEL(17, 16)
LEVEL(18, 17) LEVEL(19, 18) LEVEL(20, 19)
double tree(double x) { return t20(x); }

// The same tree with (value, derivative) pairs, for the expected result.
static void dual(int k, double x, double *v, double *d) {
  if (k == 0) {
    *v = x * x * 0.5 + x;
    *d = x + 1;
    return;
  }
  double v1, d1, v2, d2;
  dual(k - 1, x, &v1, &d1);
  dual(k - 1, 0.9 * x, &v2, &d2);
  *v = 0.5 * v1 + 0.25 * sin(v2);
  *d = 0.5 * d1 + 0.25 * cos(v2) * d2 * 0.9;
}

int main(void) {
  volatile double vx = 0.3;
  double x = vx, v, d;
  dual(20, x, &v, &d);
  ad_check("tree gradient", __ad_gradient(tree, x), d, 1e-10, 0);
  ad_check("tree forward", __ad_derivative(tree, x, 1.0), d, 1e-10, 0);
  return ad_finish();
}
