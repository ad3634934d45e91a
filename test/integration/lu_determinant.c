// The determinant by LU decomposition with partial pivoting, on a matrix of
// row pointers allocated inside the differentiated function (pivoting swaps
// the row pointers); d det / dA = det(A) A^-T, checked by finite
// differences. At -O2, loop idiom recognition turns the row copy into a
// memcpy from the argument into fresh heap memory, with no typed access
// left on either side: its element type comes from the memcpy's TBAA tag
// ("double"); before, the request failed ("it moves both float and double
// data (or data of unknown type)").
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O3 %s -o %t.O3 %adlibs && %t.O3
#include "ad.h"
#include "adcheck.h"
#include <stdlib.h>
#define N 4
double det(const double *a, int n) {
  double **m = malloc(n * sizeof(double *));
  for (int i = 0; i < n; i++) {
    m[i] = malloc(n * sizeof(double));
    for (int j = 0; j < n; j++)
      m[i][j] = a[i * n + j];
  }
  double d = 1;
  for (int k = 0; k < n; k++) {
    int p = k;
    for (int i = k + 1; i < n; i++)
      if (fabs(m[i][k]) > fabs(m[p][k]))
        p = i;
    if (p != k) {
      double *t = m[p];
      m[p] = m[k];
      m[k] = t;
      d = -d;
    }
    d *= m[k][k];
    for (int i = k + 1; i < n; i++) {
      double f = m[i][k] / m[k][k];
      for (int j = k; j < n; j++)
        m[i][j] -= f * m[k][j];
    }
  }
  for (int i = 0; i < n; i++)
    free(m[i]);
  free(m);
  return d;
}
int main(void) {
  double a[N * N] = {2, 1, 0.5, 3, 1, 4, 1, 0.2, 0.3, 2, 5, 1, 1, 0.1, 2, 3},
               da[N * N] = {0};
  volatile int vn = N;
  int n = vn;
  __ad_gradient(det, a, da, n);
  for (int k = 0; k < N * N; k++)
    ad_check(ad_fmt("det d/da%d", k), da[k], AD_FD(a[k], det(a, n)), 1e-6,
             1e-8);
  return ad_finish();
}
