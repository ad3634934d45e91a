// Doubles copied through uint64_t lvalues, well defined with
// -fno-strict-aliasing (the Linux kernel's style): the copy's own loads
// and stores, all integers, typed the data as integers and the gradient
// was silently 0 at every level (found by a probe). The copy's source is
// a parameter of the differentiated function, whose callers are unknown;
// its destination is a caller's array of doubles, which now decides.
// RUN: %adcc -O0 -fno-strict-aliasing %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O1 -fno-strict-aliasing %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcc -O2 -fno-strict-aliasing %s -o %t.O2 %adlibs && %t.O2
#include "ad.h"
#include "adcheck.h"
#include <stdint.h>

__attribute__((noinline)) static void copy64(double *d, const double *s,
                                             int n) {
  const uint64_t *a = (const uint64_t *)s;
  uint64_t *b = (uint64_t *)d;
  for (int i = 0; i < n; i++)
    b[i] = a[i];
}

// b = x: f = x0 x1^2
double copied(const double *x) {
  double b[2];
  copy64(b, x, 2);
  return b[0] * b[1] * b[1];
}

int main(void) {
  double x[2] = {0.3, -0.7}, dx[2] = {0}, t[2] = {1, 0};
  __ad_gradient(copied, x, dx);
  ad_check("d/dx0", dx[0], x[1] * x[1], 1e-15, 0);
  ad_check("d/dx1", dx[1], 2 * x[0] * x[1], 1e-15, 0);
  ad_check("forward", __ad_derivative(copied, x, t), x[1] * x[1], 1e-15, 0);
  return ad_finish();
}
