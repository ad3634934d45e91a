// memcpy from a constant table into memory with derivatives: the copied
// values are constants, so the destination's derivatives become zero
// (here over cells that held active values before), whatever the
// destination's type can be told to be. Against central differences and
// forward mode.
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O3 -g %s -o %t.O3 %adlibs && %t.O3
#include "adkernel.h"
#include <stdlib.h>

static const double init[4] = {0.5, -1.25, 2.0, 0.75};

__attribute__((noinline)) static double weigh(const double *w, const double *x,
                                              int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += w[i % 4] * sin(x[i]);
  return s;
}

double reset_then_use(const double *x, int n) {
  double *w = malloc(4 * sizeof(double));
  for (int i = 0; i < 4; i++)
    w[i] = x[i] * x[i]; // active, then overwritten by the table
  double before = weigh(w, x, n);
  memcpy(w, init, sizeof init);
  double after = weigh(w, x, n);
  free(w);
  return before + after * after;
}

AD_KERNEL_REQUESTS(reset_then_use)

int main(void) {
  double x0[6] = {0.3, -0.2, 0.9, 1.1, -0.6, 0.4};
  ad_check_kernel("reset_then_use", 6, x0, reset_then_use,
                  grad_reset_then_use, deriv_reset_then_use);
  return ad_finish();
}
