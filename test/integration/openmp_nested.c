// The gradient of a forward derivative through an OpenMP worksharing loop
// (a Hessian-vector product, reverse over forward): the outer reverse pass
// forks the region's derivative with per-thread tapes of nesting level 1.
// Checked against the analytic product and central differences of the
// forward derivative, on 1 and 4 threads.
//
// REQUIRES: openmp
// clang-format off
// RUN: %adcc -O0 -fopenmp %s -o %t.O0 %adlibs && env OMP_NUM_THREADS=1 %t.O0 && env OMP_NUM_THREADS=4 %t.O0
// RUN: %adcc -O2 -fopenmp %s -o %t.O2 %adlibs && env OMP_NUM_THREADS=1 %t.O2 && env OMP_NUM_THREADS=4 %t.O2
// clang-format on

#include "ad.h"
#include "adcheck.h"
#include <stdlib.h>

#define N 20000

double energy(const double *x, int n) {
  double s = 0;
#pragma omp parallel for schedule(dynamic, 7) reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += sin(x[i]) * x[i];
  return s;
}

double along(const double *x, const double *v, int n) {
  return __ad_derivative(energy, x, v, n);
}

int main(void) {
  double *x = malloc(N * sizeof *x), *v = malloc(N * sizeof *v);
  double *h = calloc(N, sizeof *h), *dv = calloc(N, sizeof *dv);
  for (int i = 0; i < N; i++) {
    x[i] = 0.9 * sin(0.21 * i);
    v[i] = cos(0.5 * i);
  }
  __ad_gradient(along, x, h, v, dv, N);
  double max_err = 0;
  for (int i = 0; i < N; i++)
    max_err =
        fmax(max_err, fabs(h[i] - v[i] * (2 * cos(x[i]) - x[i] * sin(x[i]))));
  ad_check("hvp every component", max_err, 0, 0, 1e-12);
  static const int Probes[] = {0, 1, 7, 8, 999, N - 1};
  for (unsigned k = 0; k < sizeof Probes / sizeof *Probes; k++) {
    int i = Probes[k];
    ad_deriv(ad_fmt("hvp[%d]", i), h[i],
             v[i] * (2 * cos(x[i]) - x[i] * sin(x[i])),
             AD_FD(x[i], along(x, v, N)), AD_TOL_D);
  }
  // d/dv of the forward derivative is the gradient.
  double max_dv_err = 0;
  for (int i = 0; i < N; i++)
    max_dv_err = fmax(max_dv_err, fabs(dv[i] - (cos(x[i]) * x[i] + sin(x[i]))));
  ad_check("d/dv every component", max_dv_err, 0, 0, 1e-12);
  free(x), free(v), free(h), free(dv);
  return ad_finish();
}
