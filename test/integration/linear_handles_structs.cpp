// Handles of functions that find their data through pointers inside the
// structs they are given: a std::vector read and one written in place, a
// struct {double *data; int n}, and an array of row pointers. The shadow
// pointers inside the caller's shadow structs are read when the handle is
// applied, so each application may pass other shadow structs. Rows by
// __ad_vjp equal __ad_gradient (and central differences), columns by
// __ad_jvp equal __ad_derivative.
//
// RUN: %adcxx -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcxx -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcxx -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcxx -O3 %s -o %t.O3 %adlibs && %t.O3

#include "ad.h"
#include "adcheck.h"
#include <cmath>
#include <vector>

void F(const std::vector<double> &x, std::vector<double> &y) {
  for (size_t i = 0; i < y.size(); ++i)
    y[i] = std::exp(x[i]) * x[(i + 1) % x.size()];
}

struct vec {
  double *data;
  int n;
};
double norm2(const vec *v) {
  double s = 0;
  for (int i = 0; i < v->n; ++i)
    s += std::sin(v->data[i]) * v->data[i];
  return std::sqrt(s);
}

struct rows {
  double **row;
  int n;
};
double weighted_trace(const rows *m) {
  double s = 0;
  for (int i = 0; i < m->n; ++i)
    for (int j = 0; j < m->n; ++j)
      s += m->row[i][j] * m->row[j][i] * (i + 1);
  return s;
}

static void check_vectors() {
  std::vector<double> x{0.1, -0.4, 0.7}, y(3);
  ad_linear *L = __ad_linearize(F, &x, &y);
  for (int j = 0; j < 3; ++j) {
    std::vector<double> e(3, 0.0), col(3, 0.0), col2(3, 0.0), yy(3);
    e[j] = 1;
    __ad_jvp_void(F, L, &x, &e, &yy, &col);
    __ad_derivative_void(F, &x, &e, &yy, &col2);
    std::vector<double> gx(3, 0.0), gy(3, 0.0), gx2(3, 0.0), gy2(3, 0.0);
    gy[j] = gy2[j] = 1;
    __ad_vjp_void(F, L, &x, &gx, &yy, &gy);
    __ad_gradient_void(F, &x, &gx2, &yy, &gy2);
    for (int i = 0; i < 3; ++i) {
      ad_check(ad_fmt("vector column %d [%d]", j, i), col[i], col2[i], 1e-13,
               1e-13);
      ad_check(ad_fmt("vector row %d [%d]", j, i), gx[i], gx2[i], 1e-13, 1e-13);
      ad_check(ad_fmt("vector output shadow %d [%d]", j, i), gy[i], 0, 0, 0);
    }
  }
  ad_linear_free(L);
}

static void check_struct() {
  double d[4] = {0.5, 1.2, -0.3, 0.8}, r;
  vec v = {d, 4};
  ad_linear *L = __ad_linearize(norm2, &r, &v);
  for (int round = 0; round < 2; ++round)
    for (int i = 0; i < 4; ++i) {
      double g[4] = {0}, e[4] = {0};
      e[i] = 1;
      vec dv = {g, 4}, ev = {e, 4};
      __ad_vjp_void(norm2, L, 1.0, &v, &dv);
      double fd = AD_FD(d[i], norm2(&v));
      ad_check(ad_fmt("struct row [%d] vs fd", i), g[i], fd, 1e-6, 1e-8);
      double col = __ad_jvp(norm2, L, &v, &ev);
      ad_check(ad_fmt("struct column %d", i), col, g[i], 1e-13, 1e-13);
    }
  ad_linear_free(L);
}

static void check_rows() {
  double r0[3] = {1, 2, 0.5}, r1[3] = {3, -4, 1}, r2[3] = {0.2, 0.3, 2}, t;
  double *row[3] = {r0, r1, r2};
  rows m = {row, 3};
  ad_linear *L = __ad_linearize(weighted_trace, &t, &m);
  double s[3][3] = {}, g[3][3] = {};
  double *srow[3] = {s[0], s[1], s[2]}, *grow[3] = {g[0], g[1], g[2]};
  rows sm = {srow, 3}, gm = {grow, 3};
  __ad_vjp_void(weighted_trace, L, 1.0, &m, &sm);
  __ad_gradient_void(weighted_trace, &m, &gm);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      ad_check(ad_fmt("rows [%d][%d]", i, j), s[i][j], g[i][j], 1e-13, 1e-13);
      double fd = AD_FD(row[i][j], weighted_trace(&m));
      ad_check(ad_fmt("rows [%d][%d] vs fd", i, j), s[i][j], fd, 1e-6, 1e-8);
    }
  ad_linear_free(L);
}

int main() {
  check_vectors();
  check_struct();
  check_rows();
  return ad_finish();
}
