// One error per construct and place: at -O2 the function below, also
// called directly by a finite-difference check, failed at two instructions
// that have one source position, and the same error was printed twice
// (found by a probe). Errors identical in text and place are printed once.
// The loop over r is unrolled, so the unsupported __float128 quotient is
// three instructions with one position.
// RUN: not %adcc -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %adcc -O2 -g -c %s -o /dev/null 2>&1 | FileCheck %s
// clang-format off
// CHECK: error: cannot differentiate __float128 arithmetic

// CHECK-NOT: error:
// CHECK: 1 error generated.
// clang-format on
#include <ad.h>
#include <math.h>
#include <stdio.h>

#define FD(var, expr)                                                          \
  __extension__({                                                              \
    double x0_ = (var);                                                        \
    double h_ = 1e-5 * (fabs(x0_) > 0.1 ? fabs(x0_) : 0.1);                    \
    double v_[4];                                                              \
    static const double o_[4] = {-2, -1, 1, 2};                                \
    for (int i_ = 0; i_ < 4; i_++) {                                           \
      (var) = x0_ + o_[i_] * h_;                                               \
      v_[i_] = (double)(expr);                                                 \
    }                                                                          \
    (var) = x0_;                                                               \
    (v_[0] - 8 * v_[1] + 8 * v_[2] - v_[3]) / (12 * h_);                       \
  })

double unrolled(const double *x, int n) {
  double s = 0;
  for (int r = 1; r <= 3; r++) {
    double *t = __builtin_alloca(n * sizeof *t);
    for (int i = 0; i < n; i++)
      t[i] = (double)((__float128)x[i] * r / 3.0Q);
    for (int i = 0; i < n; i++)
      s += t[i] * t[(i + 1) % n];
  }
  return s;
}

int main(void) {
  volatile int vn = 6;
  int n = vn;
  double x[6], g[6] = {0};
  for (int i = 0; i < n; i++)
    x[i] = i;
  __ad_gradient(unrolled, x, g, n);
  for (int k = 0; k < n; k++)
    printf("%g %g\n", g[k], FD(x[k], unrolled(x, n)));
  return 0;
}
