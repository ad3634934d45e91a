// A vector of doubles stored into an array whose elements are then read one
// by one. At -O1 the prepared copy's extra GVN round forwards the vector to
// the scalar reads through an integer view (bitcast to i128, shift,
// truncate), which the pass rejects as floating-point bit manipulation;
// InstCombine after it turns the view back into an element extraction
// (pass/prepare/PrepareSource.cpp). Found by a randomized probe: before, -O1 was a
// compile error and -O0 and -O2 were right.
// Gradients against analytic values and central differences.
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2

#include "ad.h"
#include "adcheck.h"
#include <string.h>

typedef double v2u __attribute__((vector_size(16), aligned(8)));

double pair_then_scalars(double *a) {
  v2u v = {a[3], 0.6 * a[2]};
  *(v2u *)&a[0] = v;
  return 0.23 * a[1] * a[0] + a[2];
}

int main(void) {
  double x0[4] = {0.1, 0.2, 0.3, 0.4};
  // f = 0.23 * (0.6 a2) * a3 + a2
  double want[4] = {0, 0, 0.23 * 0.6 * x0[3] + 1, 0.23 * 0.6 * x0[2]};
  double x[4], dx[4] = {0};
  memcpy(x, x0, sizeof x);
  __ad_gradient(pair_then_scalars, x, dx);
  for (int j = 0; j < 4; j++) {
    double w[4], xs = x0[j];
    double fd = AD_FD(
        xs, (memcpy(w, x0, sizeof w), w[j] = xs, pair_then_scalars(w)));
    ad_deriv(ad_fmt("d/da[%d]", j), dx[j], want[j], fd, AD_TOL_D);
  }
  return ad_finish();
}
