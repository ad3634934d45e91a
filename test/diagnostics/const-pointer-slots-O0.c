// At -O0 a parallel region's parameters carry no readonly and nocapture
// attributes, so the variable holding an AD_CONST pointer that the region
// reads (shared, by reference) may, as far as the pass can tell, receive a
// pointer with a shadow from the region: it needs a shadow, and storing
// the constant pointer there is an error (from -O1 it works:
// integration/const_pointer_slots.c). Passing the array with a shadow
// works at every level.
// REQUIRES: openmp
// RUN: not %adcc -O0 -fopenmp -c %s -o /dev/null 2>&1 | FileCheck %s
// clang-format off
// CHECK: error: cannot differentiate: a pointer to memory without derivatives is stored where pointers to memory with derivatives are kept (not supported yet; pass that memory with a shadow instead of AD_CONST)
// clang-format on
#include <ad.h>
#include <math.h>

double fit(const double *w, const double *x, double *y, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    y[i] = tanh(w[0] * x[i] + w[1]) * w[2];
  double s = 0;
  for (int i = 0; i < n; i++)
    s += (y[i] - x[i]) * (y[i] - x[i]);
  return s;
}

void grad(const double *w, double *dw, const double *x, double *y, double *dy,
          int n) {
  __ad_gradient(fit, w, dw, AD_CONST, x, y, dy, AD_CONST, n);
}
