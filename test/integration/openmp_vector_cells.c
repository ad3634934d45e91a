// A parallel loop over a user's vector type (two doubles per element)
// whose reverse pass adds into its neighbours' shadows: the cells are
// vectors, which were written back with a plain load, add and store, a
// race between threads (max error 1.0 to 2.0 on 2 and 4 threads; right on
// one). They are now added lane by lane with atomics. Checked against the
// analytic gradient, ten times over, on 1 and 4 threads.
// REQUIRES: openmp
// RUN: %adcc -O0 -fopenmp %s -o %t.O0 %adlibs && env OMP_NUM_THREADS=1 %t.O0 && env OMP_NUM_THREADS=4 %t.O0
// RUN: %adcc -O2 -fopenmp %s -o %t.O2 %adlibs && env OMP_NUM_THREADS=1 %t.O2 && env OMP_NUM_THREADS=4 %t.O2
#include "ad.h"
#include "adcheck.h"
#include <math.h>
#include <stdlib.h>

typedef double v2 __attribute__((vector_size(16)));

// sum over i of <x_{i-1} * x_{i+1}, x_i>, lane by lane
double triple(const v2 *x, int n) {
  double s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static, 1)
  for (int i = 1; i < n - 1; i++) {
    v2 a = x[i - 1] * x[i + 1];
    s += a[0] * x[i][0] + a[1] * x[i][1];
  }
  return s;
}

// d/dx_j: the three terms in which x_j appears
static double dtriple(const v2 *x, int n, int j, int c) {
  double g = 0;
  if (j >= 1 && j <= n - 2)
    g += x[j - 1][c] * x[j + 1][c];
  if (j - 1 >= 1)
    g += x[j - 2][c] * x[j - 1][c];
  if (j + 1 <= n - 2)
    g += x[j + 1][c] * x[j + 2][c];
  return g;
}

int main(void) {
  enum { N = 100000 };
  v2 *x = malloc(N * sizeof *x), *dx = malloc(N * sizeof *dx);
  for (int i = 0; i < N; i++) {
    x[i][0] = sin(0.001 * i);
    x[i][1] = cos(0.002 * i);
  }
  double max_err = 0;
  for (int rep = 0; rep < 10; rep++) {
    for (int i = 0; i < N; i++)
      dx[i] = (v2){0, 0};
    __ad_gradient(triple, x, dx, AD_CONST, N);
    for (int j = 0; j < N; j++)
      for (int c = 0; c < 2; c++)
        max_err = fmax(max_err, fabs(dx[j][c] - dtriple(x, N, j, c)));
  }
  ad_check("vector cells, largest error over ten gradients", max_err, 0, 0,
           1e-12);
  for (int j = 1; j < 4; j++) {
    double fd = AD_FD(x[j][0], triple(x, N));
    ad_deriv(ad_fmt("d/dx%d[0]", j), dx[j][0], dtriple(x, N, j, 0), fd,
             AD_TOL_D);
  }
  return ad_finish();
}
