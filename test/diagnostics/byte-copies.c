// Doubles moved byte by byte (a generic swap, as hand-written C sort
// routines do; a char copy loop) kept their values and lost their
// derivatives: the gradient came out in the unsorted order at -O0, -O1
// and -Os, with no diagnostic (found by a probe). A derivative cannot move
// in pieces: it is an error where the bytes stay bytes; from -O2 the loop
// becomes whole-value moves and the gradient is checked.
// RUN: not %adcc -O0 -g -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %adcc -O1 -g -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
#include "ad.h"
#include "adcheck.h"

static void swap_bytes(void *a, void *b, unsigned long n) {
  unsigned char *p = a, *q = b;
  while (n--) {
    // CHECK: byte-copies.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate: floating-point data is moved in pieces smaller than a value (a byte-wise copy or swap): its derivative would be lost; copy whole values, or use memcpy or memmove
    unsigned char t = *p;
    *p++ = *q;
    *q++ = t;
  }
}

// the sorted values weighted 1, 10, 100
double sorted(const double *x) {
  double v[3] = {x[0], x[1], x[2]};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j + 1 < 3 - i; j++)
      if (v[j] > v[j + 1])
        swap_bytes(&v[j], &v[j + 1], sizeof(double));
  return v[0] + 10 * v[1] + 100 * v[2];
}

int main(void) {
  double x[3] = {0.5, -0.7, 0.2}, dx[3] = {0};
  __ad_gradient(sorted, x, dx);
  ad_check("d/dx0", dx[0], 100, 0, 0);
  ad_check("d/dx1", dx[1], 1, 0, 0);
  ad_check("d/dx2", dx[2], 10, 0, 0);
  return ad_finish();
}
