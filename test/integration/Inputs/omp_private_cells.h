// Kernels of '#pragma omp parallel for' loops whose reverse pass adds into
// shadow cells: some touch each cell from one iteration only (x[i], a
// collapsed a[i*m+j]), the others share cells between iterations (a
// stencil, x[i] and x[i+1], a shared scalar, x[2*i] and x[i], x[idx[i]],
// a callee reading p[0] and p[1], a collapsed a[j]). schedule(static, 1)
// puts neighbouring iterations on different threads.
#include "ad.h"
#include <math.h>

// One cell per iteration.
double private_loss(const double *x, int n) {
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += log(1 + x[i] * x[i]);
  return s;
}

// The same, chunks handed out at run time.
double private_loss_dynamic(const double *x, int n) {
  double s = 0;
#pragma omp parallel for schedule(dynamic, 7) reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += log(1 + x[i] * x[i]);
  return s;
}

double stencil3(const double *x, int n) {
  double s = 0;
#pragma omp parallel for schedule(static, 1) reduction(+ : s)
  for (int i = 1; i < n - 1; i++)
    s += x[i] * (x[i - 1] + x[i + 1]);
  return s;
}

double next_pair(const double *x, int n) {
  double s = 0;
#pragma omp parallel for schedule(static, 1) reduction(+ : s)
  for (int i = 0; i < n - 1; i++)
    s += sin(x[i]) * x[i + 1];
  return s;
}

double shared_scalar(const double *x, const double *p, int n) {
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += x[i] * x[i] * *p;
  return s;
}

// x holds 2n elements.
double twice_index(const double *x, int n) {
  double s = 0;
#pragma omp parallel for schedule(static, 1) reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += x[2 * i] * x[i];
  return s;
}

double indirect(const double *x, const int *idx, int n) {
  double s = 0;
#pragma omp parallel for schedule(static, 1) reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += x[idx[i]] * x[idx[i]];
  return s;
}

__attribute__((noinline)) double pair_product(const double *p) {
  return p[0] * p[1];
}

double callee_pair(const double *x, int n) {
  double s = 0;
#pragma omp parallel for schedule(static, 1) reduction(+ : s)
  for (int i = 0; i < n - 1; i++)
    s += pair_product(&x[i]);
  return s;
}

// a holds n * m elements.
double collapsed_private(const double *a, int n, int m) {
  double s = 0;
#pragma omp parallel for collapse(2) reduction(+ : s)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      s += a[i * m + j] * a[i * m + j] * a[i * m + j];
  return s;
}

// a holds m elements, each read by n iterations.
double collapsed_column(const double *a, int n, int m) {
  double s = 0;
#pragma omp parallel for collapse(2) schedule(static, 1) reduction(+ : s)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      s += sin(a[j]) * (i + 1);
  return s;
}
