// A buffer aligned by rounding its address up as an integer, as Eigen's
// aligned alloca does: (uintptr_t(p) + 31) & ~31 of an over-allocated
// block. A pointer made from an integer has no shadow (an error before);
// the rounding is now read as p advanced by an offset
// (IntegerAlignedAddresses.cpp). Other integer arithmetic on addresses
// stays an error (diagnostics/unsupported-constructs.c).
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
#include "ad.h"
#include "adcheck.h"
#include <stdint.h>
#include <stdlib.h>

// sum_i w_i^2 with w_i = x_i * (i + 1), through the aligned buffer, once on
// the stack and once on the heap.
double aligned_sum(const double *x, int n) {
  char *raw = __builtin_alloca(n * sizeof(double) + 31);
  double *w = (double *)(((uintptr_t)raw + 31) & ~(uintptr_t)31);
  char *heap = malloc(n * sizeof(double) + 15);
  double *h = (double *)(((uintptr_t)heap + 15) & ~(uintptr_t)15);
  for (int i = 0; i < n; i++) {
    w[i] = x[i] * (i + 1);
    h[i] = w[i] * w[i];
  }
  double s = 0;
  for (int i = 0; i < n; i++)
    s += h[i];
  free(heap);
  return s;
}

int main() {
  double x[5] = {0.4, -1.1, 0.9, 2.0, -0.3}, dx[5] = {0};
  __ad_gradient_void(aligned_sum, x, dx, 5);
  for (int i = 0; i < 5; i++) {
    double c = i + 1;
    ad_deriv(ad_fmt("d/dx%d", i), dx[i], 2 * c * c * x[i],
             AD_FD(x[i], aligned_sum(x, 5)), AD_TOL_D);
  }
  return ad_finish();
}
