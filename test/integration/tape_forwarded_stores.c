// A load of scratch memory that an earlier counted loop filled, on every
// iteration, with a value f.rev can compute (c[j] = x[j] - m[j], over
// inputs f.rev reads again) is computed again by f.rev for the cell it
// reads, not taped (pass/unzip/ForwardedStores.cpp). At -O2 the peak
// tape of `filled` is then the same for every n. Where the cell may hold
// something else when it is read, the value is taped: a conditional
// store, a loop that does not fill every cell read, a write through a
// pointer into the buffer in between, a callee writing it, a second store
// in the filling loop. Every gradient is checked against central
// differences.
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O3 %s -o %t.O3 %adlibs && %t.O3

#include "ad.h"
#include "ad_runtime.h"
#include "adcheck.h"
#include <stdlib.h>

enum { N = 6, NX = 2 * N };
// x then m.
static const double X0[NX] = {0.7,  -1.3, 0.4, 2.1, -0.6, 1.1,
                              0.25, 0.5,  -0.75, 0.3, 0.9, -0.2};

// Must fire: read in a later loop, and per column of a triangle inside an
// outer loop that fills the buffer again each time, with a factor computed
// before the filling loop.
double filled(const double *x, const double *m, int n) {
  double *c = malloc(n * sizeof *c);
  for (int j = 0; j < n; j++)
    c[j] = x[j] - m[j];
  double s = 0;
  for (int j = 0; j < n; j++)
    s += c[j] * c[j];
  free(c);
  return s;
}
double refilled(const double *x, const double *m, int n) {
  double *c = malloc(n * sizeof *c), *out = malloc(n * sizeof *out);
  double s = 0;
  for (int k = 0; k < 3; k++) {
    double scale = exp(0.1 * k * m[k]);
    for (int j = 0; j < n; j++)
      c[j] = scale * (x[j] - m[j] * (1 + 0.5 * k));
    for (int j = 0; j < n; j++)
      out[j] = c[j] * c[j];
    for (int col = 0; col < n; col++)
      for (int row = col + 1; row < n; row++)
        out[row] += sin(x[row] * c[col]);
    for (int j = 0; j < n; j++)
      s += out[j] * c[j];
  }
  free(c);
  free(out);
  return s;
}

// Must not fire: only the odd cells are written again.
double conditional(const double *x, const double *m, int n) {
  double *c = malloc(n * sizeof *c);
  for (int j = 0; j < n; j++)
    c[j] = 2 * x[j];
  for (int j = 0; j < n; j++)
    if (j % 2)
      c[j] = x[j] - m[j];
  double s = 0;
  for (int j = 0; j < n; j++)
    s += c[j] * c[j] * m[j];
  free(c);
  return s;
}

// The second loop leaves the last cell as the first one wrote it.
double short_fill(const double *x, const double *m, int n) {
  double *c = malloc(n * sizeof *c);
  for (int j = 0; j < n; j++)
    c[j] = 3 * x[j];
  for (int j = 0; j < n - 1; j++)
    c[j] = x[j] - m[j];
  double s = 0;
  for (int j = 0; j < n; j++)
    s += c[j] * c[j] * m[j];
  free(c);
  return s;
}

// A write through a pointer into the buffer after the filling loop.
double written_between(const double *x, const double *m, int n) {
  double *c = malloc(n * sizeof *c);
  for (int j = 0; j < n; j++)
    c[j] = x[j] - m[j];
  double *p = c + (n > 3 ? 1 : 0);
  p[0] = 5 * x[1];
  double s = 0;
  for (int j = 0; j < n; j++)
    s += c[j] * c[j] * m[j];
  free(c);
  return s;
}

// A callee writes the buffer after the filling loop.
__attribute__((noinline)) void twice_over(double *c, int n) {
  for (int j = 0; j < n; j++)
    c[j] *= 2;
}
double callee_writes(const double *x, const double *m, int n) {
  double *c = malloc(n * sizeof *c);
  for (int j = 0; j < n; j++)
    c[j] = x[j] - m[j];
  twice_over(c, n);
  double s = 0;
  for (int j = 0; j < n; j++)
    s += c[j] * c[j] * m[j];
  free(c);
  return s;
}

// A second store in the filling loop overwrites cells the first wrote.
double two_stores(const double *x, const double *m, int n) {
  double *c = malloc(n * sizeof *c);
  for (int j = 0; j < n; j++) {
    c[j] = x[j] - m[j];
    c[n - 1 - j] = m[j] * x[j];
  }
  double s = 0;
  for (int j = 0; j < n; j++)
    s += c[j] * c[j] * x[j];
  free(c);
  return s;
}

#define CHECK(f)                                                               \
  AD_CHECK_GRADIENT(#f, NX, X0, __ad_gradient(f, x, dx, x + N, dx + N, N),     \
                    f(w, w + N, N))

#ifdef __OPTIMIZE__
static size_t peak_of_filled(int n) {
  double *x = malloc(2 * n * sizeof *x), *dx = malloc(2 * n * sizeof *dx);
  for (int i = 0; i < 2 * n; i++) {
    x[i] = 0.25 + 0.01 * i;
    dx[i] = 0;
  }
  size_t peak = AD_TAPE_PEAK(__ad_gradient(filled, x, dx, x + n, dx + n, n));
  free(x);
  free(dx);
  return peak;
}
#endif

int main(void) {
  CHECK(filled);
  CHECK(refilled);
  CHECK(conditional);
  CHECK(short_fill);
  CHECK(written_between);
  CHECK(callee_writes);
  CHECK(two_stores);
#ifdef __OPTIMIZE__
  {
    // Nothing per element: taping c[j] would add 8 bytes per element.
    size_t small = peak_of_filled(16), large = peak_of_filled(1024);
    printf("filled: peak %zu bytes at n = 16, %zu at n = 1024\n", small,
           large);
    ad_check("filled keeps nothing per element", (double)large, (double)small,
             0, 0);
  }
#endif
  return ad_finish();
}
