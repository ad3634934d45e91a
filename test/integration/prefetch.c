// __builtin_prefetch (llvm.prefetch) in the differentiated loop, as Eigen's
// matrix product kernel and hand-tuned loops write it: a hint that neither
// reads nor changes the values, so it carries no derivative. Before, "cannot
// differentiate a call to 'llvm.prefetch.p0'".
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
#include "ad.h"
#include "adcheck.h"

// sum_i w_i x_i^2, prefetching ahead.
double weighted_squares(const double *x, const double *w, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    __builtin_prefetch(&x[i + 8]);
    __builtin_prefetch(&w[i + 8], 0, 1);
    s += w[i] * x[i] * x[i];
  }
  return s;
}

int main(void) {
  double x[5] = {0.5, -1.0, 1.5, 2.0, -0.25}, w[5] = {1, 2, 3, 4, 5};
  double dx[5] = {0}, dw[5] = {0};
  __ad_gradient_void(weighted_squares, x, dx, w, dw, 5);
  for (int i = 0; i < 5; i++) {
    ad_deriv(ad_fmt("d/dx%d", i), dx[i], 2 * w[i] * x[i],
             AD_FD(x[i], weighted_squares(x, w, 5)), AD_TOL_D);
    ad_deriv(ad_fmt("d/dw%d", i), dw[i], x[i] * x[i],
             AD_FD(w[i], weighted_squares(x, w, 5)), AD_TOL_D);
  }
  double tx[5] = {1, 0, 0, 0, 0}, tw[5] = {0};
  ad_check("forward d/dx0", __ad_derivative(weighted_squares, x, tx, w, tw, 5),
           2 * w[0] * x[0], 1e-15, 0);
  return ad_finish();
}
