// Recursion, direct and mutual, with one tape per activation (pushed on the
// runtime tape per recursive call): recursive power, a recursive sum over
// an array, a mutual recursion and a tree reduction. Tape memory grows
// linearly with the number of calls. Checked against analytic derivatives
// and finite differences.
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
#include "ad.h"
#include "ad_runtime.h"
#include "adcheck.h"
#include <math.h>

double power(double x, int n) { return n == 0 ? 1.0 : x * power(x, n - 1); }

// s(a, n) = a0^2 + sin(a0) s(a+1, n-1)
double rsum(const double *a, int n) {
  return n == 0 ? 0.0 : a[0] * a[0] + sin(a[0]) * rsum(a + 1, n - 1);
}

double odd(double x, int n);
double even(double x, int n) { return n == 0 ? x : cos(odd(x, n - 1)) * x; }
double odd(double x, int n) { return n == 0 ? x * x : even(x, n - 1) + x; }

double tree(const double *a, int lo, int hi) {
  if (hi - lo == 1)
    return exp(a[lo]);
  int m = (lo + hi) / 2;
  return tree(a, lo, m) * tree(a, m, hi) + a[m];
}

// Recursion with a counted loop in each activation, and a recursive call
// inside a loop: per-activation tapes interleave with loop records.
double rec_loop(const double *a, int n) {
  if (n == 0)
    return 0;
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * a[n - 1];
  return s + rec_loop(a, n - 1) * 0.5;
}
double rec_in_loop(const double *a, int n) {
  if (n <= 1)
    return a[0];
  double s = 0;
  for (int i = 0; i < 2; i++)
    s += sin(rec_in_loop(a + i, n - 1 - i)) * a[i];
  return s;
}

int main(void) {
  volatile double vx = 1.05;
  double x = vx;
  for (int n = 0; n <= 6; n += 3)
    ad_deriv(ad_fmt("power(x, %d)", n), __ad_gradient(power, x, n),
             n * pow(x, n - 1), AD_FD(x, power(x, n)), AD_TOL_D);
  ad_check("power forward", __ad_derivative(power, x, 2.0, 5), 10 * pow(x, 4), 1e-12, 0);

  double a[8] = {0.3, -0.2, 0.5, 0.1, 0.7, -0.4, 0.25, 0.6};
  double da[8] = {0};
  __ad_gradient(rsum, a, da, 8);
  // ds/da_k = 2 a_k + cos(a_k) s_{k+1}, times prod_{j<k} sin(a_j)
  double tail[9];
  tail[8] = 0;
  for (int k = 7; k >= 0; k--)
    tail[k] = a[k] * a[k] + sin(a[k]) * tail[k + 1];
  double prefix = 1;
  for (int k = 0; k < 8; k++) {
    ad_deriv(ad_fmt("rsum d/da%d", k), da[k],
             prefix * (2 * a[k] + cos(a[k]) * tail[k + 1]),
             AD_FD(a[k], rsum(a, 8)), AD_TOL_D);
    prefix *= sin(a[k]);
  }

  for (int n = 0; n <= 7; n += 7)
    ad_check(ad_fmt("even(x, %d) vs finite difference", n), __ad_gradient(even, x, n),
             AD_FD(x, even(x, n)), 1e-6, 1e-8);

  double db[8] = {0};
  __ad_gradient(tree, a, db, 0, 8);
  for (int k = 0; k < 8; k++)
    ad_check(ad_fmt("tree d/da%d vs finite difference", k), db[k],
             AD_FD(a[k], tree(a, 0, 8)), 1e-6, 1e-8);

  double dr[8] = {0}, dq[8] = {0};
  __ad_gradient(rec_loop, a, dr, 6);
  __ad_gradient(rec_in_loop, a, dq, 5);
  for (int k = 0; k < 6; k++)
    ad_check(ad_fmt("rec_loop d/da%d vs finite difference", k), dr[k],
             AD_FD(a[k], rec_loop(a, 6)), 1e-6, 1e-8);
  for (int k = 0; k < 5; k++)
    ad_check(ad_fmt("rec_in_loop d/da%d vs finite difference", k), dq[k],
             AD_FD(a[k], rec_in_loop(a, 5)), 1e-6, 1e-8);

  // One tape per activation: memory linear in the depth.
  size_t bytes[3];
  for (int k = 0; k < 3; k++) {
    __ad_tape_release();
    __ad_tape_reset_peak();
    int n = 1000 << k;
    double g = __ad_gradient(power, 1.0, n);
    ad_check(ad_fmt("power(1, %d)", n), g, n, 0, 0);
    bytes[k] = __ad_tape_peak_bytes();
  }
  printf("tape bytes for depth 1000, 2000, 4000: %zu %zu %zu\n", bytes[0], bytes[1], bytes[2]);
  ad_check("tape linear in depth (2000/1000)", (double)bytes[1] / bytes[0], 2, 0.05, 0);
  ad_check("tape linear in depth (4000/2000)", (double)bytes[2] / bytes[1], 2, 0.05, 0);
  return ad_finish();
}
