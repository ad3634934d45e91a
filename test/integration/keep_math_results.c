// -mllvm -ad-recompute-math-calls=0: the math calls f.rev would call again
// (exp in a loop, cos and sin of a helper's stable argument) keep their
// results on the tape instead, for a faster gradient. Checked against
// central differences and analytic values both ways, and by the bytes each
// way keeps: in the loop, none per iteration by default, 8 with the
// option; per call of the helper, 40 bytes (the addresses of its
// arguments and their shadows) by default and 64 with the option.
// clang-format off
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O0 -mllvm -ad-recompute-math-calls=0 %s -o %t.keepO0 %adlibs && %t.keepO0
// RUN: %adcc -O2 -mllvm -ad-recompute-math-calls=0 %s -o %t.keepO2 %adlibs && %t.keepO2
// RUN: %adcc -O2 -c %s -o %t.o -Rpass=adpass 2>&1 | FileCheck %s --check-prefix=CALL
// RUN: %adcc -O2 -mllvm -ad-recompute-math-calls=0 -c %s -o %t.o -Rpass=adpass 2>&1 | FileCheck %s --check-prefix=KEEP
// clang-format on
#include "ad.h"
#include "adcheck.h"
#include <math.h>
#include <string.h>

enum { N = 7 };

// log sum exp x_i with a constant shift.
double lse(const double *x, int n) {
  double s = 0;
  // CALL: gradient of 'lse': the loop at line [[@LINE+2]] keeps 0 bytes per iteration
  // KEEP: gradient of 'lse': the loop at line [[@LINE+1]] keeps 8 bytes per iteration
  for (int i = 0; i < n; ++i)
    s += exp(x[i] - 1);
  return log(s);
}

// Rotates (p[0], p[1]) by ang[0]: its call site proves ang and p stable.
__attribute__((noinline)) static void rotate(const double *ang,
                                             const double *p, double *out) {
  double c = cos(ang[0]), s = sin(ang[0]);
  out[0] = c * p[0] - s * p[1];
  out[1] = s * p[0] + c * p[1];
}

// CALL: 'rotated': each call of 'rotate' at line [[@LINE+6]] pushes its tape of 40 bytes
// KEEP: 'rotated': each call of 'rotate' at line [[@LINE+5]] pushes its tape of 64 bytes
double rotated(const double *v, int np) {
  double total = 0;
  for (int k = 0; k < np; ++k) {
    double out[2];
    rotate(v, v + 1 + 2 * k, out);
    total += out[0] * out[0] * out[0] + out[1];
  }
  return total;
}

int main(void) {
  const double x0[N] = {0.3, -1.2, 0.7, 1.9, -0.4, 0.25, 1.1};
  AD_CHECK_ARRAY_FN(lse, N, x0, N);
  {
    double dx[N] = {0}, s = 0;
    __ad_gradient_void(lse, x0, dx, N);
    for (int i = 0; i < N; ++i)
      s += exp(x0[i] - 1);
    for (int i = 0; i < N; ++i)
      ad_check(ad_fmt("lse dx[%d] analytic", i), dx[i], exp(x0[i] - 1) / s,
               1e-13, 0);
  }
  AD_CHECK_ARRAY_FN(rotated, N, x0, 3);
  return ad_finish();
}
