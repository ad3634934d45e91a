// A custom JVP for a function of arrays, defined in another translation
// unit: f_jvp gets, for each pointer parameter, its tangent pointer, and
// reads the tangents of the array through it (CustomRules.cpp). Reverse
// mode transposes those reads into accumulations into the array's
// cotangents. w is only ever passed without derivatives (a constant table:
// its tangents read as zeros). Checked in forward and reverse mode, called
// on a local array, on the caller's own array, and in a loop over rows.
// Before, "custom derivatives of functions with pointer parameters are not
// supported yet".
// clang-format off
// RUN: %adcc -O0 %s %S/Inputs/custom_jvp_pointers_other.c -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s %S/Inputs/custom_jvp_pointers_other.c -o %t.O2 %adlibs && %t.O2
// clang-format on
#include "ad.h"
#include "adcheck.h"
#include <math.h>

double wsum(const double *a, const double *w, int n, double s);

double wsum_jvp(const double *a, const double *w, int n, double s,
                const double *da, const double *dw, double ds) {
  double t = 0;
  for (int i = 0; i < n; i++)
    t += (s * cos(a[i]) + w[i]) * da[i] + a[i] * dw[i] + sin(a[i]) * ds;
  return t;
}
AD_CUSTOM_JVP(wsum, wsum_jvp)

static const double W[3] = {0.5, -1.0, 2.0};

// wsum of (x0 x1, x1, x2^2) with scale s, plus wsum of x itself with 2.
double g(const double *x, double s) {
  double a[3] = {x[0] * x[1], x[1], x[2] * x[2]};
  return wsum(a, W, 3, s) + wsum(x, W, 3, 2.0);
}

// Rows of a 4 x 3 matrix, each scaled by its own s_r = r + 1 + x0.
double rows(const double *m) {
  double total = 0;
  for (int r = 0; r < 4; r++)
    total += wsum(m + 3 * r, W, 3, r + 1 + m[0]) * (r + 1);
  return total;
}

int main(void) {
  double x[3] = {0.3, 0.7, -0.4}, dx[3] = {0}, s = 1.3;
  double ds = __ad_gradient(g, x, dx, s);
  double a0 = x[0] * x[1], a2 = x[2] * x[2];
  double da0 = s * cos(a0) + W[0], da1 = s * cos(x[1]) + W[1];
  double da2 = s * cos(a2) + W[2];
  double want[3] = {da0 * x[1] + 2 * cos(x[0]) + W[0],
                    da0 * x[0] + da1 + 2 * cos(x[1]) + W[1],
                    da2 * 2 * x[2] + 2 * cos(x[2]) + W[2]};
  for (int i = 0; i < 3; i++)
    ad_deriv(ad_fmt("d/dx%d", i), dx[i], want[i], AD_FD(x[i], g(x, s)),
             AD_TOL_D);
  ad_deriv("d/ds", ds, sin(a0) + sin(x[1]) + sin(a2), AD_FD(s, g(x, s)),
           AD_TOL_D);
  // Forward mode: the same rule, in direction (1, -2, 0.5), ds = 0.25.
  double tx[3] = {1, -2, 0.5};
  double dir = __ad_derivative(g, x, tx, s, 0.25);
  double want_dir = want[0] * 1 + want[1] * -2 + want[2] * 0.5 + ds * 0.25;
  ad_check("directional", dir, want_dir, 1e-12, 1e-12);

  double m[12], dm[12] = {0};
  for (int k = 0; k < 12; k++)
    m[k] = 0.1 * k - 0.4;
  __ad_gradient_void(rows, m, dm);
  for (int k = 0; k < 12; k++) {
    int r = k / 3, c = k % 3;
    double sr = r + 1 + m[0];
    double want_k = (sr * cos(m[k]) + W[c]) * (r + 1);
    if (k == 0) // every row's scale: sum_r (r + 1) sum_c sin(m_rc)
      for (int q = 0; q < 4; q++)
        for (int c2 = 0; c2 < 3; c2++)
          want_k += (q + 1) * sin(m[3 * q + c2]);
    ad_deriv(ad_fmt("d rows/dm%d", k), dm[k], want_k, AD_FD(m[k], rows(m)),
             AD_TOL_D);
  }
  return ad_finish();
}
