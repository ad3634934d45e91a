// Parallel regions inside a time loop: each step runs two worksharing
// loops (a diffusion stencil with schedule(static, 4), then a copy back),
// so every region instance keeps its region object on the tape of the
// step, and the reverse pass replays the instances last first. Checked
// against central differences at -O0 and -O2 on 1 and 4 threads.
//
// REQUIRES: openmp
// clang-format off
// RUN: %adcc -O0 -fopenmp %s -o %t.O0 %adlibs && env OMP_NUM_THREADS=1 %t.O0 && env OMP_NUM_THREADS=4 %t.O0
// RUN: %adcc -O2 -fopenmp %s -o %t.O2 %adlibs && env OMP_NUM_THREADS=1 %t.O2 && env OMP_NUM_THREADS=4 %t.O2
// clang-format on

#include "ad.h"
#include "adcheck.h"
#include <stdlib.h>

#define N 2000
#define STEPS 20

double diffuse(double *u, double *v, int n, int steps) {
  for (int t = 0; t < steps; t++) {
#pragma omp parallel for schedule(static, 4)
    for (int i = 1; i < n - 1; i++)
      v[i] = u[i] + 0.1 * (u[i - 1] - 2 * u[i] + u[i + 1]) + 0.01 * sin(u[i]);
#pragma omp parallel for
    for (int i = 1; i < n - 1; i++)
      u[i] = v[i];
  }
  double s = 0;
  for (int i = 0; i < n; i++)
    s += u[i] * u[i];
  return s;
}

static double u0[N], u[N], v[N];

// diffuse from u0 (it overwrites its input).
static double from_start(void) {
  for (int i = 0; i < N; i++)
    u[i] = u0[i];
  return diffuse(u, v, N, STEPS);
}

int main(void) {
  for (int i = 0; i < N; i++)
    u0[i] = sin(0.01 * i) + 0.3 * cos(0.37 * i);
  double *du = calloc(N, sizeof *du), *dv = calloc(N, sizeof *dv);
  for (int i = 0; i < N; i++)
    u[i] = u0[i];
  __ad_gradient(diffuse, u, du, v, dv, N, STEPS);
  static const int Probes[] = {0, 1, 2, 3, 4, 5, 500, 1001, N - 2, N - 1};
  for (unsigned k = 0; k < sizeof Probes / sizeof *Probes; k++) {
    int j = Probes[k];
    double fd = AD_FD(u0[j], from_start());
    ad_check(ad_fmt("d/du0[%d] [AD vs FD]", j), du[j], fd, 1e-6, 1e-8);
  }
  free(du), free(dv);
  return ad_finish();
}
