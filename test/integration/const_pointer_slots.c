// A pointer variable holding AD_CONST data, passed by reference to a
// callee together with variables holding pointers with shadows: an OpenMP
// region reaches its shared variables so, and a noinline helper that takes
// `double **`. The variable got a shadow (a callee might store a pointer
// with one into it) and storing the constant pointer there was an error.
// A callee that only reads through the parameter and keeps no copy of it
// (readonly and nocapture from -O1; at -O0, a parameter only loaded
// through, also via its spill slot) cannot; one that writes through it
// (an out-parameter that receives the active pointer) still gives the
// variable a shadow, and the derivative flows through it.
// REQUIRES: openmp
// RUN: %adcc -O0 -fopenmp %s -o %t.O0 %adlibs && env OMP_NUM_THREADS=1 %t.O0 && env OMP_NUM_THREADS=4 %t.O0
// RUN: %adcc -O1 -fopenmp %s -o %t.O1 %adlibs && env OMP_NUM_THREADS=1 %t.O1 && env OMP_NUM_THREADS=4 %t.O1
// RUN: %adcc -O2 -fopenmp %s -o %t.O2 %adlibs && env OMP_NUM_THREADS=1 %t.O2 && env OMP_NUM_THREADS=4 %t.O2
// RUN: %adcc -O3 -fopenmp %s -o %t.O3 %adlibs && env OMP_NUM_THREADS=3 %t.O3
#include "ad.h"
#include "adcheck.h"
#include <math.h>
#include <stdlib.h>

#define N 2000

// An output array written in a parallel loop from a constant input, then
// a parallel reduction reading both: mean of (w2 tanh(w0 x + w1) - x)^2.
double fit(const double *w, const double *x, double *y, int n) {
#pragma omp parallel for schedule(dynamic, 7)
  for (int i = 0; i < n; i++)
    y[i] = tanh(w[0] * x[i] + w[1]) * w[2];
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += (y[i] - x[i]) * (y[i] - x[i]);
  return s / n;
}

static double dfit(const double *w, const double *x, int n, int k) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double t = tanh(w[0] * x[i] + w[1]), r = t * w[2] - x[i];
    double dt = (1 - t * t) * w[2];
    s += 2 * r * (k == 0 ? dt * x[i] : k == 1 ? dt : t);
  }
  return s / n;
}

// Reads through all three, writes through none.
__attribute__((noinline)) static double
weighted(double *const *w, double *const *x, double *const *c, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += (*c)[i] * (*w)[i] * (*x)[i] * (*x)[i];
  return s;
}

// Stores the active pointer into the constant one's variable.
__attribute__((noinline)) static void pick(double **out, double *from) {
  *out = from;
}

// sum c_i w_i x_i^2, then (via pick) sum w_i^2 c_i.
double through_slots(double *w, double *x, const double *c, int n) {
  double *cc = (double *)c;
  double s = weighted(&w, &x, &cc, n);
  double *p = 0;
  pick(&p, w); // p points to w: the second sum depends on w through it
  for (int i = 0; i < n; i++)
    s += p[i] * w[i] * c[i];
  return s;
}

int main(void) {
  double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y),
         *dy = calloc(N, sizeof *dy);
  for (int i = 0; i < N; i++)
    x[i] = sin(0.01 * i);
  double w[3] = {0.7, -0.2, 1.3}, dw[3] = {0};
  __ad_gradient(fit, w, dw, AD_CONST, x, y, dy, AD_CONST, N);
  for (int k = 0; k < 3; k++)
    ad_deriv(ad_fmt("fit d/dw%d", k), dw[k], dfit(w, x, N, k),
             AD_FD(w[k], fit(w, x, y, N)), AD_TOL_D);

  double v[8], xv[8], dv[8] = {0}, dxv[8] = {0}, c[8];
  for (int i = 0; i < 8; i++) {
    v[i] = 0.1 * i - 0.3;
    xv[i] = 0.2 * i + 0.1;
    c[i] = 1.0 / (i + 1);
  }
  __ad_gradient(through_slots, v, dv, xv, dxv, AD_CONST, c, AD_CONST, 8);
  for (int i = 0; i < 8; i++) {
    ad_deriv(ad_fmt("slots d/dv%d", i), dv[i],
             c[i] * xv[i] * xv[i] + 2 * v[i] * c[i],
             AD_FD(v[i], through_slots(v, xv, c, 8)), AD_TOL_D);
    ad_deriv(ad_fmt("slots d/dx%d", i), dxv[i], 2 * c[i] * v[i] * xv[i],
             AD_FD(xv[i], through_slots(v, xv, c, 8)), AD_TOL_D);
  }
  return ad_finish();
}
