// Requests in the two arms of an if/else, differing only in the function:
// at -O2 SimplifyCFG sank them into one call of a select between the two
// functions, which the pass rejected ("the first argument must name a
// function"). Marker declarations are nomerge: AD_MARKER says so, and the
// plugin marks every __ad_gradient* / __ad_derivative* declaration at the
// start of the pipeline, which covers variants declared without AD_MARKER
// (grad2 below, declared as API.md's example is).
// The functions shift an array in place with memmove (overlapping copies).
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O3 %s -o %t.O3 %adlibs && %t.O3
#include "ad.h"
#include "adcheck.h"

#define N 5

double rshift(double *a, int n) {
  for (int r = 0; r < 2; r++) {
    memmove(a + 1, a, (n - 1) * sizeof(double));
    a[0] = a[1] * a[2];
  }
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * (i + 1);
  return s;
}

double lshift(double *a, int n) {
  memmove(a, a + 1, (n - 1) * sizeof(double));
  a[n - 1] = a[0] * 3;
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * a[i] * (i + 1);
  return s;
}

double scaled(double x, double k) { return sin(x) * k; }
double squared(double x, double k) { return x * x * k; }

typedef struct {
  double dx, dk;
} grad2;
grad2 __ad_gradient_2(void *fn, ...); // no AD_MARKER

static double fd(int which, const double *a0, int n, int k) {
  double p[N], m[N], h = 1e-6;
  memcpy(p, a0, sizeof p);
  memcpy(m, a0, sizeof m);
  p[k] += h;
  m[k] -= h;
  return which == 0 ? (rshift(p, n) - rshift(m, n)) / (2 * h)
                    : (lshift(p, n) - lshift(m, n)) / (2 * h);
}

int main(void) {
  volatile int vn = N;
  int n = vn;
  double a0[N] = {0.3, -0.8, 1.1, 0.45, -0.2};
  for (int which = 0; which < 2; which++) {
    double a[N], da[N] = {0};
    memcpy(a, a0, sizeof a);
    if (which == 0)
      __ad_gradient(rshift, a, da, n);
    else
      __ad_gradient(lshift, a, da, n);
    for (int k = 0; k < n; k++)
      ad_check(ad_fmt("%s d/da%d", which ? "lshift" : "rshift", k), da[k],
               fd(which, a0, n, k), 1e-6, 1e-7);
  }
  for (int which = 0; which < 2; which++) {
    double x = 0.6, k = 1.5;
    grad2 g;
    if (which == 0)
      g = __ad_gradient_2(scaled, x, k);
    else
      g = __ad_gradient_2(squared, x, k);
    ad_check(ad_fmt("variant %d d/dx", which), g.dx,
             which == 0 ? cos(x) * k : 2 * x * k, 1e-12, 0);
    ad_check(ad_fmt("variant %d d/dk", which), g.dk,
             which == 0 ? sin(x) : x * x, 1e-12, 0);
  }
  return ad_finish();
}
