// A memcpy between heap blocks that the copying function never reads or
// writes itself: what the bytes are (doubles) shows only in the callees the
// blocks are passed to, as in an LSTM that copies its initial state into a
// buffer its step function updates. The copy was a compile error ("cannot
// be told from this function or its callers"). Checked against central
// differences, the source active (its derivative moves with the copy) and
// constant (the copy zeroes the destination's derivative).
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
#include "ad.h"
#include "adcheck.h"
#include <stdlib.h>
#include <string.h>

enum { N = 4 };

__attribute__((noinline)) static void fill(double *dst, const double *x,
                                           int n) {
  for (int i = 0; i < n; i++)
    dst[i] = x[i] * x[(i + 1) % n];
}

/* One step in place: state' = sin(w state) + state shifted. */
__attribute__((noinline)) static void step(double *state, const double *w,
                                           int n) {
  double first = state[0];
  for (int i = 0; i + 1 < n; i++)
    state[i] = sin(w[i] * state[i]) + state[i + 1];
  state[n - 1] = sin(w[n - 1] * state[n - 1]) + first;
}

__attribute__((noinline)) static double weighted(const double *state, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += (i + 1) * state[i] * state[i];
  return s;
}

/* The copy's source is computed from x: its derivative moves with it. */
double active_source(const double *x, const double *w, int n) {
  double *a = malloc(n * sizeof *a), *s = malloc(n * sizeof *s);
  fill(a, x, n);
  memcpy(s, a, n * sizeof *s);
  step(s, w, n);
  step(s, w, n);
  double r = weighted(s, n) + weighted(a, n);
  free(a);
  free(s);
  return r;
}

/* The copy's source is constant: only the weights have derivatives, and
 * the copied state starts with none. */
double constant_source(const double *w, const double *state0, int n) {
  double *s = malloc(n * sizeof *s);
  memcpy(s, state0, n * sizeof *s);
  for (int t = 0; t < 3; t++)
    step(s, w, n);
  double r = weighted(s, n);
  free(s);
  return r;
}

int main(void) {
  volatile int vn = N;
  int n = vn;
  double x0[N] = {0.7, -1.3, 0.45, 1.1}, w0[N] = {0.9, 1.2, -0.6, 0.8};
  double state0[N] = {0.3, -0.2, 0.5, 0.1};
  AD_CHECK_GRADIENT("active_source d/dx", N, x0,
                    __ad_gradient_void(active_source, x, dx, AD_CONST, w0, n),
                    active_source(w, w0, n));
  AD_CHECK_GRADIENT("active_source d/dw", N, w0,
                    __ad_gradient_void(active_source, AD_CONST, x0, x, dx, n),
                    active_source(x0, w, n));
  AD_CHECK_GRADIENT(
      "constant_source d/dw", N, w0,
      __ad_gradient_void(constant_source, x, dx, AD_CONST, state0, n),
      constant_source(w, state0, n));
  return ad_finish();
}
