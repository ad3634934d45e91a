// Memory with derivatives overwritten by an integer constant holds no
// derivative afterwards. A small memset becomes an integer store at -O1 and
// above (InstCombine), and the bytes may be read back as doubles through
// another pointer to the same memory, which nothing forwards the zero to:
// the store zeroes their tangent (pass/linearize/LinearizeLoadStore.cpp), and in reverse
// mode the cotangent reaching them stops there. Found by a randomized probe:
// before, d/dx[2] below was 0.711 instead of 0 at -O1 and -O2.
//   - cleared(a, c): c == a + 1, so c[1] is the a[2] that memset cleared;
//   - cleared_field: a struct {double w; long n;} zeroed field by field
//     through one pointer and read through another.
// Every gradient is checked against central differences, reverse and
// forward mode.
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2

#include "ad.h"
#include "adcheck.h"
#include <string.h>

double cleared(double *a, double *c) {
  a[2] = a[2] * a[0] + a[1];
  memset(&a[2], 0, sizeof(double));
  return 0.711 * c[1] + a[2] * a[0] + c[0] * a[3];
}

typedef struct {
  double w;
  long n;
} Item;

double cleared_field(Item *p, double *q) {
  p->w = p->w * q[1];
  memset(&p->w, 0, sizeof p->w);
  p->n = 0;
  double *alias = (double *)p;
  return alias[0] * 3.0 + q[0] * q[1] + (double)p->n;
}

int main(void) {
  double x0[4] = {0.3, -0.7, 1.1, 0.45};
  {
    double x[4], dx[4] = {0}, t[4] = {0};
    memcpy(x, x0, sizeof x);
    __ad_gradient(cleared, x, dx, x + 1, dx + 1);
    for (int j = 0; j < 4; j++) {
      double w[4], xs = x0[j];
      double fd =
          AD_FD(xs, (memcpy(w, x0, sizeof w), w[j] = xs, cleared(w, w + 1)));
      ad_check(ad_fmt("cleared d/dx[%d]", j), dx[j], fd, 1e-6, 1e-8);
      memcpy(x, x0, sizeof x);
      memset(t, 0, sizeof t);
      t[j] = 1;
      double d = __ad_derivative(cleared, x, t, x + 1, t + 1);
      ad_check(ad_fmt("cleared forward e%d", j), d, fd, 1e-6, 1e-8);
    }
  }
  {
    Item it = {0.8, 5}, dit = {0, 0};
    double q[2] = {1.3, -0.4}, dq[2] = {0, 0};
    __ad_gradient(cleared_field, &it, &dit, q, dq);
    ad_check("cleared_field d/dw", dit.w, 0.0, 1e-9, 1e-12);
    ad_check("cleared_field d/dq0", dq[0], q[1], 1e-9, 1e-12);
    ad_check("cleared_field d/dq1", dq[1], q[0], 1e-9, 1e-12);
  }
  return ad_finish();
}
