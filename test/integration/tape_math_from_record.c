// A math call in a counted loop whose arguments come from values the
// loop's record keeps anyway (an in-place update's old value) is computed
// again by the reverse pass instead of kept: an LSTM-like cell keeps the
// old state, not its gates. In a loop that pushes a
// record per block (a data-dependent exit), the results are kept. Checked
// against central differences at -O0 and -O2.
// clang-format off
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O2 -c %s -o %t.o -Rpass=adpass 2>&1 | FileCheck %s
// clang-format on
#include "ad.h"
#include "adcheck.h"
#include <math.h>
#include <string.h>

enum { N = 6 };

static double sigmoid(double v) { return 1 / (1 + exp(-v)); }

// h[i] is overwritten: its old value is kept, the gates are recomputed
// (32 bytes per iteration when they were kept). The copy run when the
// loads do not overlap the stores reads h[n/2 + i] again.
double cell(double *h, int n) {
  // CHECK-DAG: gradient of 'cell': the loop at line [[@LINE+2]] keeps 24 bytes per iteration
  // CHECK-DAG: gradient of 'cell': the loop at line [[@LINE+1]], in the copy run when its stores and loads do not overlap, keeps 8 bytes per iteration
  for (int i = 0; i < n / 2; ++i) {
    double forget = sigmoid(h[i] * h[n / 2 + i]);
    double change = tanh(h[i] + 0.5);
    h[i] = h[i] * forget + change;
  }
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += h[i] * h[i];
  return s;
}

// A loop with a data-dependent exit keeps sin's value in its records.
double until_large(double *h, int n) {
  double s = 0.25;
  int i = 0;
  while (s < 3 && i < n) {
    s = s + sin(s * h[i]) + h[i] * h[i];
    ++i;
  }
  return s;
}

static double eval_mut(double (*f)(double *, int), const double *w) {
  double c[N];
  memcpy(c, w, sizeof c);
  return f(c, N);
}

int main(void) {
  volatile int vn = N;
  int n = vn;
  const double x0[N] = {0.3, -0.8, 0.6, 1.1, -0.4, 0.7};
  AD_CHECK_GRADIENT("cell", N, x0, __ad_gradient_void(cell, x, dx, n),
                    eval_mut(cell, w));
  AD_CHECK_GRADIENT("until_large", N, x0,
                    __ad_gradient_void(until_large, x, dx, n),
                    eval_mut(until_large, w));
  return ad_finish();
}
