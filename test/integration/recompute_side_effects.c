// Math calls that the reverse pass recomputes instead of taping must leave
// no other trace: lgamma sets the global signgam, so it is taped, and after
// the gradient signgam holds what the primal's last call left (with lgamma
// recomputed in reverse order it would be the first call's sign), and a
// signgam read in the loop is kept per iteration. exp, whose
// only other effect is errno, is recomputed; the gradient is checked
// against central differences.
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2

#define _DEFAULT_SOURCE
#include "ad.h"
#include "adcheck.h"

enum { N = 4 };
static const double X0[N] = {-0.5, 2.5, -1.5, 1.5}; // signs -1, +1, +1, +1

double lg(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += lgamma(x[i]) * x[i] + exp(0.1 * x[i]);
  return s;
}

// signgam read after each call: its value per iteration is kept, not read
// again at the end (where it holds the last call's sign).
double lg_sign(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    s += lgamma(x[i]);
    s += signgam * x[i] * x[i];
  }
  return s;
}

int main(void) {
  AD_CHECK_GRADIENT("lgamma and exp", N, X0, __ad_gradient(lg, x, dx, N),
                    lg(w, N));
  AD_CHECK_GRADIENT("signgam read per iteration", N, X0,
                    __ad_gradient(lg_sign, x, dx, N), lg_sign(w, N));
  double x[N], dx[N] = {0};
  for (int i = 0; i < N; i++)
    x[i] = X0[i];
  lgamma(-0.5); // signgam = -1
  __ad_gradient(lg, x, dx, N);
  ad_check("signgam after the gradient: the last call's", signgam, 1, 0, 0);
  return ad_finish();
}
