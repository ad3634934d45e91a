// Memory complexity of a reverse-mode loop: for sum_{i<n} x[i]^2 with
// n = 10^3 ... 10^6, the peak of tape + __ad_alloc bytes during one gradient
// (after __ad_tape_release and __ad_tape_reset_peak) divided by n must be
// the same constant for every n within 10% (linear growth, no per-call
// overhead that dominates, nothing super-linear); the bytes per iteration
// are printed. All storage must be given back when the gradient returns.
// Then (at -O2 only) n = 10^7 with an 80 MB malloc'd input: the gradient
// must complete and be exactly 2 x[i] at a few indices.
//
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O0 -DMAX_LOG10=6 %s -o %t.O0 %adlibs && %t.O0

#include "ad.h"
#include "ad_runtime.h"
#include "adcheck.h"
#include <stdlib.h>

#ifndef MAX_LOG10
#define MAX_LOG10 7
#endif

double sumsq(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return s;
}

static volatile double vbase = 0.5;
static volatile int vsizes[] = {1000, 10000, 100000, 1000000, 10000000};

static double value(long i) { return vbase + (double)(i % 1013) / 1024; }

int main(void) {
  double per_iter[4];
  int nsizes = MAX_LOG10 >= 7 ? 5 : 4;
  for (int s = 0; s < nsizes; s++) {
    long n = vsizes[s];
    double *x = malloc(n * sizeof *x), *dx = calloc(n, sizeof *dx);
    if (!x || !dx) {
      printf("FAIL: cannot allocate the input for n = %ld\n", n);
      return 1;
    }
    for (long i = 0; i < n; i++)
      x[i] = value(i);

    __ad_tape_release();
    __ad_tape_reset_peak();
    ad_check(ad_fmt("n=%ld: tape empty before", n),
             (double)__ad_tape_current_bytes(), 0, 0, 0);
    __ad_gradient(sumsq, x, dx, (int)n);
    size_t peak = __ad_tape_peak_bytes();
    ad_check(ad_fmt("n=%ld: tape empty after", n),
             (double)__ad_tape_current_bytes(), 0, 0, 0);
    printf("n = %8ld: peak %10zu bytes, %.3f bytes per iteration\n", n, peak,
           (double)peak / n);
    if (s < 4)
      per_iter[s] = (double)peak / n;

    // A few indices, exactly (2 x is exact, the shadow started at 0).
    long idx[] = {0, 1, n / 3, n / 2 + 7, n - 2, n - 1};
    for (unsigned j = 0; j < sizeof idx / sizeof idx[0]; j++)
      ad_check(ad_fmt("n=%ld: dx[%ld] == 2 x", n, idx[j]), dx[idx[j]],
               2 * x[idx[j]], 0, 0);
    if (s < 4) { // every entry, for the smaller sizes
      long bad = 0;
      for (long i = 0; i < n; i++)
        bad += dx[i] != 2 * x[i];
      ad_check(ad_fmt("n=%ld: entries with dx != 2 x", n), (double)bad, 0, 0, 0);
    }
    free(x);
    free(dx);
  }
  __ad_tape_release();

  // Linear growth: the same bytes per iteration for n = 10^3 ... 10^6.
  for (int s = 1; s < 4; s++)
    ad_check(ad_fmt("peak/n at n=10^%d vs n=10^3", s + 3), per_iter[s],
             per_iter[0], 0.10, 0);
  return ad_finish();
}
