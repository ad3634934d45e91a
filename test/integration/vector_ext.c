// Clang vector extensions, typedef double v4d __attribute__((vector_size(32))):
//   - a function over const v4d * arrays (elementwise products, a lane
//     reduction at the end) whose shadow is a v4d array too;
//   - lane arithmetic on a vector loaded from a double array (splat scalar,
//     shuffles via __builtin_shufflevector, element extraction/insertion);
//   - a void kernel writing v4d outputs, used as a VJP;
//   - a float vector type (v8f) in float arithmetic.
// Each gradient entry is checked against a hand formula and finite
// differences.
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O3 %s -o %t.O3 %adlibs && %t.O3

#include "ad.h"
#include "adcheck.h"
#include <math.h>
#include <string.h>

typedef double v4d __attribute__((vector_size(32)));
typedef float v8f __attribute__((vector_size(32)));

#define NV 3

// sum over vectors and lanes of a_i * a_i * b_i + a_i.
double vdot(const v4d *a, const v4d *b, int n) {
  v4d acc = {0, 0, 0, 0};
  for (int i = 0; i < n; i++)
    acc += a[i] * a[i] * b[i] + a[i];
  return acc[0] + acc[1] + acc[2] + acc[3];
}

// Lanes of x[0..3] as a vector: y = x * s + reverse(x) * x; returns
// y0 * y1 + y2 - y3 * y3, with the vector built by a memcpy from doubles.
double lanes(const double *x, double s) {
  v4d v;
  memcpy(&v, x, sizeof v);
  v4d r = __builtin_shufflevector(v, v, 3, 2, 1, 0);
  v4d y = v * s + r * v;
  y[2] = y[2] * y[2];
  return y[0] * y[1] + y[2] - y[3] * y[3];
}

// out[i] = sqrt-free elementwise map: a[i] * a[i] - 2 a[i] (v4d in, out).
void vmap(const v4d *a, v4d *out, int n) {
  for (int i = 0; i < n; i++)
    out[i] = a[i] * a[i] - 2 * a[i];
}

// float vectors: sum of lanes of x^3 / 3.
float vcube(const v8f *x, int n) {
  v8f acc = {0};
  for (int i = 0; i < n; i++)
    acc += x[i] * x[i] * x[i] / 3.0f;
  float s = 0;
  for (int l = 0; l < 8; l++)
    s += acc[l];
  return s;
}

static volatile int vn = NV;
static volatile double vals[12] = {0.7,  -1.3, 1.1,  0.45, -0.6, 1.15,
                                   -0.85, 0.9, 1.6, -0.25, 0.35, 1.8};

static const ad_tol TOL_FL = {1e-5, 1e-6, 1e-3, 1e-4};

int main(int argc, char **argv) {
  (void)argv;
  int n = vn + (argc - 1);
  v4d a[NV], b[NV], da[NV], db[NV];
  for (int i = 0; i < NV; i++)
    for (int l = 0; l < 4; l++) {
      a[i][l] = vals[(4 * i + l) % 12];
      b[i][l] = vals[(4 * i + l + 5) % 12];
      da[i][l] = 0.25;
      db[i][l] = 0;
    }

  __ad_gradient(vdot, a, da, b, db, n);
  for (int i = 0; i < NV; i++)
    for (int l = 0; l < 4; l++) {
      double av = a[i][l], bv = b[i][l], fa, fb;
      { double t = av; fa = AD_FD(t, (a[i][l] = t, vdot(a, b, n))); a[i][l] = av; }
      { double t = bv; fb = AD_FD(t, (b[i][l] = t, vdot(a, b, n))); b[i][l] = bv; }
      ad_deriv(ad_fmt("vdot d/da[%d][%d] (+0.25)", i, l), da[i][l],
               0.25 + 2 * av * bv + 1, 0.25 + fa, AD_TOL_D);
      ad_deriv(ad_fmt("vdot d/db[%d][%d]", i, l), db[i][l], av * av, fb,
               AD_TOL_D);
    }

  {
    double x[4] = {vals[0], vals[1], vals[2], vals[3]}, dx[4] = {0, 0, 0, 0};
    double s = vals[5];
    double ds = __ad_gradient(lanes, x, dx, s);
    // y_l = x_l s + x_{3-l} x_l.
    double y[4], dy[4][5]; // dy[l][j]: d y_l / d x_j (j = 4: d/ds)
    memset(dy, 0, sizeof dy);
    for (int l = 0; l < 4; l++) {
      y[l] = x[l] * s + x[3 - l] * x[l];
      dy[l][l] += s + x[3 - l];
      dy[l][3 - l] += x[l];
      dy[l][4] = x[l];
    }
    // L = y0 y1 + y2^2 - y3^2.
    double gL[4] = {y[1], y[0], 2 * y[2], -2 * y[3]};
    for (int j = 0; j <= 4; j++) {
      double want = 0;
      for (int l = 0; l < 4; l++)
        want += gL[l] * dy[l][j];
      if (j < 4)
        ad_deriv(ad_fmt("lanes d/dx[%d]", j), dx[j], want,
                 AD_FD(x[j], lanes(x, s)), AD_TOL_D);
      else
        ad_deriv("lanes d/ds", ds, want, AD_FD(s, lanes(x, s)), AD_TOL_D);
    }
  }

  {
    v4d out[NV], dout[NV];
    for (int i = 0; i < NV; i++)
      for (int l = 0; l < 4; l++) {
        da[i][l] = 0;
        dout[i][l] = 1.0 + 0.5 * l - i;
      }
    __ad_gradient_void(vmap, a, da, out, dout, n);
    for (int i = 0; i < NV; i++)
      for (int l = 0; l < 4; l++) {
        double av = a[i][l], w = 1.0 + 0.5 * l - i;
        ad_deriv(ad_fmt("vmap vjp d/da[%d][%d]", i, l), da[i][l],
                 w * (2 * av - 2), w * AD_FD(av, av * av - 2 * av), AD_TOL_D);
        ad_check(ad_fmt("vmap dout[%d][%d] ends zero", i, l), dout[i][l], 0, 0,
                 0);
        ad_check(ad_fmt("vmap primal out[%d][%d]", i, l), out[i][l],
                 av * av - 2 * av, 1e-15, 0);
      }
  }

  {
    v8f x[2], dx[2];
    for (int i = 0; i < 2; i++)
      for (int l = 0; l < 8; l++) {
        x[i][l] = (float)vals[(8 * i + l) % 12];
        dx[i][l] = 0;
      }
    __ad_gradient(vcube, x, dx, 2);
    for (int i = 0; i < 2; i++)
      for (int l = 0; l < 8; l++) {
        float xv = x[i][l], t = xv;
        double fd = AD_FD(t, (x[i][l] = t, vcube(x, 2)));
        x[i][l] = xv;
        ad_deriv(ad_fmt("vcube d/dx[%d][%d] (float)", i, l), dx[i][l],
                 (double)xv * xv, fd, TOL_FL);
      }
  }

  return ad_finish();
}
