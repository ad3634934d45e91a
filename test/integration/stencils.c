// Time-stepping stencils, whose buffers are overwritten between the forward
// and the reverse pass, against central differences in the coefficient k
// and in every initial cell:
//   - the explicit 1-D heat equation (3 points, zero boundaries as branches
//     on the counter) in two heap buffers swapped every step, linear and
//     with a reaction term (the loads are then residuals too);
//   - a 5-point 2-D stencil in swapped heap buffers;
//   - an in-place update x[i] = x[i] + k sin(x[i]) over time steps;
//   - an in-place update whose store aliases a later-read input (the same
//     array passed twice);
//   - a leapfrog wave equation in three rotating buffers, which reads in
//     step s the cells written in step s - 2.
// And cases where the tape must keep what it keeps: the grid reached
// through row pointers loaded from memory, the step in a callee writing the
// buffer, a callee damping the buffer in place, memcpy instead of a swap,
// and a boundary branch that depends on the data (its merge must record
// its predecessor).
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O3 %s -o %t.O3 %adlibs && %t.O3

#include "ad.h"
#include "adcheck.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 16
#define NY 3

static double weighted_sum_sq(const double *a, int n) {
  double f = 0;
  for (int i = 0; i < n; ++i)
    f += (i + 1) * a[i] * a[i];
  return f;
}

/*--- 1-D heat, swapped heap buffers ----------------------------------------*/

double heat1d(double k, const double *u0, int n, int steps) {
  double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double));
  memcpy(a, u0, n * sizeof(double));
  for (int s = 0; s < steps; ++s) {
    for (int i = 0; i < n; ++i) {
      double left = i > 0 ? a[i - 1] : 0;
      double right = i + 1 < n ? a[i + 1] : 0;
      b[i] = a[i] + k * (left - 2 * a[i] + right);
    }
    double *t = a;
    a = b;
    b = t;
  }
  double f = weighted_sum_sq(a, n);
  free(a);
  free(b);
  return f;
}

// With a reaction term: a[i-1], a[i], a[i+1] are residuals of each step.
double reaction1d(double k, const double *u0, int n, int steps) {
  double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double));
  memcpy(a, u0, n * sizeof(double));
  for (int s = 0; s < steps; ++s) {
    for (int i = 0; i < n; ++i) {
      double left = i > 0 ? a[i - 1] : 0;
      double right = i + 1 < n ? a[i + 1] : 0;
      b[i] = a[i] + k * (left - 2 * a[i] + right) * (1 + 0.3 * left * right) +
             0.1 * a[i] * (1 - a[i] * a[i]);
    }
    double *t = a;
    a = b;
    b = t;
  }
  double f = weighted_sum_sq(a, n);
  free(a);
  free(b);
  return f;
}

/*--- 2-D 5-point stencil, n rows of NY cells -------------------------------*/

double heat2d(double k, const double *u0, int n, int steps) {
  int m = n * NY;
  double *a = malloc(m * sizeof(double)), *b = malloc(m * sizeof(double));
  memcpy(a, u0, m * sizeof(double));
  for (int s = 0; s < steps; ++s) {
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < NY; ++j) {
        double c = a[i * NY + j];
        double up = i > 0 ? a[(i - 1) * NY + j] : 0;
        double down = i + 1 < n ? a[(i + 1) * NY + j] : 0;
        double west = j > 0 ? a[i * NY + j - 1] : 0;
        double east = j + 1 < NY ? a[i * NY + j + 1] : 0;
        b[i * NY + j] = c + k * (up + down + west + east - 4 * c) * (1 + 0.2 * c);
      }
    double *t = a;
    a = b;
    b = t;
  }
  double f = weighted_sum_sq(a, m);
  free(a);
  free(b);
  return f;
}

/*--- In-place updates ------------------------------------------------------*/

double inplace_steps(double k, const double *u0, int n, int steps) {
  double *x = malloc(n * sizeof(double));
  memcpy(x, u0, n * sizeof(double));
  for (int s = 0; s < steps; ++s)
    for (int i = 0; i < n; ++i)
      x[i] = x[i] + k * sin(x[i]);
  double f = weighted_sum_sq(x, n);
  free(x);
  return f;
}

// Called with y == x: the store of x[i] overwrites y[i], which the next
// iteration reads as y[i] and later ones as y[n - 1 - i].
double inplace_alias(double *x, const double *y, int n) {
  for (int i = 0; i + 1 < n; ++i)
    x[i + 1] = x[i + 1] * y[i] + 0.5 * y[n - 1 - i] * y[n - 1 - i];
  return weighted_sum_sq(x, n);
}

/*--- Leapfrog wave: reads the cells of two steps before --------------------*/

double wave(double k, const double *u0, int n, int steps) {
  double *prev = malloc(n * sizeof(double)), *cur = malloc(n * sizeof(double));
  double *next = malloc(n * sizeof(double));
  memcpy(prev, u0, n * sizeof(double));
  memcpy(cur, u0, n * sizeof(double));
  for (int s = 0; s < steps; ++s) {
    for (int i = 0; i < n; ++i) {
      double left = i > 0 ? cur[i - 1] : 0;
      double right = i + 1 < n ? cur[i + 1] : 0;
      next[i] = 2 * cur[i] - prev[i] * (1 - 0.1 * prev[i]) +
                k * (left - 2 * cur[i] + right);
    }
    double *t = prev;
    prev = cur;
    cur = next;
    next = t;
  }
  double f = weighted_sum_sq(cur, n) + weighted_sum_sq(prev, n);
  free(prev);
  free(cur);
  free(next);
  return f;
}

/*--- Where the tape must keep what it keeps --------------------------------*/

// The grid through a table of row pointers: each row's address is loaded
// from memory, and the table's two halves swap every step.
double rows2d(double k, const double *u0, int n, int steps) {
  double **rows = malloc(2 * n * sizeof(double *));
  for (int i = 0; i < 2 * n; ++i)
    rows[i] = malloc(NY * sizeof(double));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < NY; ++j)
      rows[i][j] = u0[i * NY + j];
  for (int s = 0; s < steps; ++s) {
    double **a = rows + (s % 2) * n, **b = rows + (1 - s % 2) * n;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < NY; ++j) {
        double c = a[i][j];
        double west = j > 0 ? a[i][j - 1] : 0;
        double up = i > 0 ? a[i - 1][j] : 0;
        b[i][j] = c + k * (west + up - 2 * c) * (1 + 0.2 * c);
      }
  }
  double f = 0;
  for (int i = 0; i < n; ++i)
    f += weighted_sum_sq(rows[(steps % 2) * n + i], NY) * (i + 1);
  for (int i = 0; i < 2 * n; ++i)
    free(rows[i]);
  free(rows);
  return f;
}

__attribute__((noinline)) static void step_into(const double *a, double *b,
                                                double k, int n) {
  for (int i = 0; i < n; ++i) {
    double left = i > 0 ? a[i - 1] : 0;
    double right = i + 1 < n ? a[i + 1] : 0;
    b[i] = a[i] + k * (left - 2 * a[i] + right) * (1 + 0.3 * a[i]);
  }
}

__attribute__((noinline)) static void damp(double *a, int n) {
  for (int i = 0; i < n; ++i)
    a[i] = a[i] * (1 - 0.05 * a[i]);
}

// The step and a damping pass in callees that write the buffers. (A loop
// copies u0: a memcpy whose element type only callees show is an error.)
double callee_steps(double k, const double *u0, int n, int steps) {
  double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double));
  for (int i = 0; i < n; ++i)
    a[i] = u0[i];
  for (int s = 0; s < steps; ++s) {
    step_into(a, b, k, n);
    damp(b, n);
    double *t = a;
    a = b;
    b = t;
  }
  double f = weighted_sum_sq(a, n);
  free(a);
  free(b);
  return f;
}

// memcpy back instead of a swap: the same buffer is overwritten each step.
double copy_back(double k, const double *u0, int n, int steps) {
  double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double));
  memcpy(a, u0, n * sizeof(double));
  for (int s = 0; s < steps; ++s) {
    for (int i = 0; i < n; ++i) {
      double left = i > 0 ? a[i - 1] : 0;
      double right = i + 1 < n ? a[i + 1] : 0;
      b[i] = a[i] + k * (left - 2 * a[i] + right) * (1 + 0.3 * a[i]);
    }
    memcpy(a, b, n * sizeof(double));
  }
  double f = weighted_sum_sq(a, n);
  free(a);
  free(b);
  return f;
}

// A boundary that depends on the data: which side the merge was entered
// from is only known from the values.
double data_branch(double k, const double *u0, int n, int steps) {
  double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double));
  memcpy(a, u0, n * sizeof(double));
  for (int s = 0; s < steps; ++s) {
    for (int i = 0; i < n; ++i) {
      double left = i > 0 && a[i] > 0.4 ? a[i - 1] : 0.5 * a[i];
      double right = i + 1 < n ? a[i + 1] : 0;
      b[i] = a[i] + k * (left - 2 * a[i] + right) * (1 + 0.3 * a[i]);
    }
    double *t = a;
    a = b;
    b = t;
  }
  double f = weighted_sum_sq(a, n);
  free(a);
  free(b);
  return f;
}

/*--- Checks ----------------------------------------------------------------*/

static volatile int vn = 7, vsteps = 5;
static volatile double vu[MAXN] = {0.7,  0.2,  0.9, 0.45, 0.6,  0.15,
                                   0.35, 0.8,  0.5, 0.25, 0.65, 0.3,
                                   0.55, 0.05, 0.4, 0.75};

// d/dk and d/du0[j] for j < len against central differences.
#define CHECK_KERNEL(fn, k0, n, len)                                           \
  do {                                                                         \
    double k = (k0), u[MAXN], du[MAXN];                                        \
    for (int j = 0; j < MAXN; j++)                                             \
      u[j] = vu[j], du[j] = 0;                                                 \
    double dk = __ad_gradient(fn, k, u, du, n, steps);                         \
    ad_check(#fn " d/dk", dk, AD_FD(k, fn(k, u, n, steps)), 1e-6, 1e-8);       \
    for (int j = 0; j < (len); j++)                                            \
      ad_check(ad_fmt(#fn " d/du0[%d]", j), du[j],                             \
               AD_FD(u[j], fn(k, u, n, steps)), 1e-6, 1e-8);                   \
  } while (0)

int main(void) {
  int n = vn, steps = vsteps;
  CHECK_KERNEL(heat1d, 0.2, n, n);
  CHECK_KERNEL(reaction1d, 0.2, n, n);
  CHECK_KERNEL(heat2d, 0.1, n / 2 + 1, (n / 2 + 1) * NY);
  CHECK_KERNEL(inplace_steps, 0.3, n, n);
  CHECK_KERNEL(wave, 0.2, n, n);
  CHECK_KERNEL(rows2d, 0.15, n / 2 + 1, (n / 2 + 1) * NY);
  CHECK_KERNEL(callee_steps, 0.2, n, n);
  CHECK_KERNEL(copy_back, 0.2, n, n);
  CHECK_KERNEL(data_branch, 0.2, n, n);

  // The same array as x and y: the gradient of the initial contents.
  double x0[MAXN];
  for (int j = 0; j < MAXN; j++)
    x0[j] = vu[j];
  AD_CHECK_GRADIENT("inplace_alias", 7, x0,
                    __ad_gradient(inplace_alias, x, dx, x, dx, 7),
                    inplace_alias(w, w, 7));
  return ad_finish();
}
