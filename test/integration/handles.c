// Matrix and vector handles in the usual C style: a struct of sizes and a
// data pointer ({int rows, cols; double *data}), made by a constructor
// function that allocates, returned and passed by value, kept in arrays
// and chosen between. At -O0 such a struct is returned as {i64, ptr}
// (two registers) and its fields are taken apart by SROA: the data
// pointer of a constructor's result had no shadow ("a read of memory
// whose derivatives are unknown").
//   gram(x)   = sum_ij (A A)_ij^2, A = reshape(x, 2, 2)  (matmul of handles)
//   pick(x)   = a handle chosen by a branch, and handles in an array
//   resize(x) = a handle grown by a function that returns a new one
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O0 -g %s -o %t.O0g %adlibs && %t.O0g
#include "ad.h"
#include "adcheck.h"
#include <stdlib.h>
#include <string.h>

typedef struct {
  int rows, cols;
  double *data;
} mat;

__attribute__((noinline)) mat mat_new(int rows, int cols) {
  mat m = {rows, cols, calloc((size_t)rows * cols, sizeof(double))};
  return m;
}
__attribute__((noinline)) void mat_free(mat m) { free(m.data); }
__attribute__((noinline)) double *at(mat m, int i, int j) {
  return &m.data[i * m.cols + j];
}
__attribute__((noinline)) mat matmul(mat a, mat b) {
  mat o = mat_new(a.rows, b.cols);
  for (int i = 0; i < a.rows; ++i)
    for (int j = 0; j < b.cols; ++j) {
      double s = 0;
      for (int k = 0; k < a.cols; ++k)
        s += *at(a, i, k) * *at(b, k, j);
      *at(o, i, j) = s;
    }
  return o;
}

double gram(const double *x) {
  mat a = mat_new(2, 2);
  for (int i = 0; i < 4; ++i)
    a.data[i] = x[i];
  mat p = matmul(a, a);
  double t = 0;
  for (int i = 0; i < 4; ++i)
    t += p.data[i] * p.data[i];
  mat_free(a);
  mat_free(p);
  return t;
}

// sum of squares of the handle a branch picks, plus the first entries of
// two handles kept in an array (dynamically indexed).
double pick(const double *x, int which) {
  mat h[2];
  h[0] = mat_new(1, 3);
  h[1] = mat_new(1, 3);
  for (int j = 0; j < 3; ++j) {
    *at(h[0], 0, j) = x[j];
    *at(h[1], 0, j) = x[j] * x[j];
  }
  mat c = which ? h[1] : h[0];
  double t = 0;
  for (int j = 0; j < c.cols; ++j)
    t += c.data[j] * c.data[j];
  for (int k = 0; k < 2; ++k)
    t += h[k].data[0] * (k + 1);
  mat_free(h[0]);
  mat_free(h[1]);
  return t;
}

__attribute__((noinline)) mat grown(mat m, int cols) {
  mat g = mat_new(m.rows, cols);
  for (int i = 0; i < m.rows; ++i)
    memcpy(&g.data[i * cols], &m.data[i * m.cols], m.cols * sizeof(double));
  return g;
}
// v = (x0, x1), grown to (x0, x1, x0 x1): f = sum v^3
double resize(const double *x) {
  mat v = mat_new(1, 2);
  v.data[0] = x[0];
  v.data[1] = x[1];
  mat w = grown(v, 3);
  w.data[2] = w.data[0] * w.data[1];
  double t = 0;
  for (int j = 0; j < w.cols; ++j)
    t += w.data[j] * w.data[j] * w.data[j];
  mat_free(v);
  mat_free(w);
  return t;
}

int main(void) {
  double x[4] = {1, 2, 3, 4}, dx[4] = {0};
  __ad_gradient(gram, x, dx);
  // d/dA sum (A A)_ij^2 = 2 (P A^T + A^T P), P = A A (row-major 2x2)
  double P[4], G[4];
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      P[2 * i + j] = x[2 * i] * x[j] + x[2 * i + 1] * x[2 + j];
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      G[2 * i + j] = 2 * (P[2 * i] * x[2 * j] + P[2 * i + 1] * x[2 * j + 1] +
                          x[i] * P[j] + x[2 + i] * P[2 + j]);
  for (int i = 0; i < 4; ++i) {
    double *xi = &x[i];
    ad_deriv(ad_fmt("gram d/dx%d", i), dx[i], G[i], AD_FD(*xi, gram(x)),
             AD_TOL_D);
  }
  double t[4] = {0.5, -1, 0.25, 2}, want = 0;
  for (int i = 0; i < 4; ++i)
    want += dx[i] * t[i];
  ad_check("gram forward", __ad_derivative(gram, x, t), want, 1e-12, 1e-12);

  double y[3] = {0.5, -1.5, 2}, dy[3];
  for (int which = 0; which < 2; ++which) {
    memset(dy, 0, sizeof dy);
    __ad_gradient(pick, y, dy, which);
    for (int j = 0; j < 3; ++j) {
      // f = sum_j c_j^2 + y_0 + 2 y_0^2, c = y (which = 0) or y^2
      double w = which ? 4 * y[j] * y[j] * y[j] : 2 * y[j];
      if (j == 0)
        w += 1 + 4 * y[0];
      ad_check(ad_fmt("pick(%d) d/dy%d", which, j), dy[j], w, 1e-12, 0);
    }
  }

  double z[2] = {0.7, -1.3}, dz[2] = {0};
  __ad_gradient(resize, z, dz);
  // f = z0^3 + z1^3 + z0^3 z1^3
  double z0 = z[0], z1 = z[1];
  ad_check("resize d/dz0", dz[0], 3 * z0 * z0 * (1 + z1 * z1 * z1), 1e-12, 0);
  ad_check("resize d/dz1", dz[1], 3 * z1 * z1 * (1 + z0 * z0 * z0), 1e-12, 0);
  return ad_finish();
}
