// Doubles moved as integers by optimised code: a generic byte swap
// (memcpy through an unsigned char buffer) becomes i64 loads and stores,
// or stores of the bits of a double already loaded for a comparison. The
// derivative moves with the bytes (it was silently dropped before: wrong
// gradients at -O1 to -O3). At -O0 the buffer is still there, and copying
// through it is the "untyped local storage" error
// (diagnostics/untyped-copy.ll).
// RUN: %adcc -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O3 %s -o %t.O3 %adlibs && %t.O3
#include "ad.h"
#include "adcheck.h"
#include <string.h>

static void swap_bytes(void *a, void *b, size_t sz) {
  unsigned char t[32];
  memcpy(t, a, sz);
  memcpy(a, b, sz);
  memcpy(b, t, sz);
}

// Bubble sort through a generic byte swap, values compared.
double sorted_weights(const double *x, int n) {
  double y[8];
  for (int i = 0; i < n; i++)
    y[i] = x[i];
  for (int pass = 0; pass < n; pass++)
    for (int j = 0; j + 1 < n; j++)
      if (y[j] > y[j + 1])
        swap_bytes(&y[j], &y[j + 1], sizeof(double));
  double s = 0;
  for (int i = 0; i < n; i++)
    s += (i + 1) * y[i] * y[i];
  return s;
}

// The same swap, ordered by integer keys: the doubles are only moved.
double permuted(const double *x, const int *key0, int n) {
  double y[8];
  int key[8];
  for (int i = 0; i < n; i++) {
    y[i] = x[i];
    key[i] = key0[i];
  }
  for (int pass = 0; pass < n; pass++)
    for (int j = 0; j + 1 < n; j++)
      if (key[j] > key[j + 1]) {
        swap_bytes(&y[j], &y[j + 1], sizeof(double));
        swap_bytes(&key[j], &key[j + 1], sizeof(int));
      }
  double s = 0;
  for (int i = 0; i < n; i++)
    s += (i + 1) * y[i] * y[i];
  return s;
}

int main(void) {
  volatile int vn = 4;
  int n = vn;
  double x[4] = {0.5, -2.0, 3.0, 1.25}, dx[4] = {0};
  __ad_gradient(sorted_weights, x, dx, n);
  // sorted: -2 (1), 0.5 (2), 1.25 (3), 3 (4): d/dx = 2 w x
  double w[4] = {2, 1, 4, 3};
  for (int k = 0; k < 4; k++)
    ad_check(ad_fmt("sorted_weights d/dx%d", k), dx[k], 2 * w[k] * x[k], 1e-12, 0);
  int key[4] = {3, 1, 4, 2};
  double dp[4] = {0};
  __ad_gradient(permuted, x, dp, AD_CONST, key, n);
  // positions by key: x1 (1), x3 (2), x0 (3), x2 (4)
  double pw[4] = {3, 1, 4, 2};
  for (int k = 0; k < 4; k++)
    ad_check(ad_fmt("permuted d/dx%d", k), dp[k], 2 * pw[k] * x[k], 1e-12, 0);
  return ad_finish();
}
