// f.rev tells its shadow accumulations apart from the primal memory it reads
// again and from its tape records (scoped alias metadata), so that the
// reversed inner loop of a dense layer vectorizes without overlap checks.
// What that must not claim: two primal arguments apart (the constant vector
// is the active vector itself), nor two shadows apart (one array passed
// twice, whole or shifted by one, with its shadow passed twice: the
// reversed loop's accumulations then overlap from one iteration to the
// next, and reordering them would lose updates).
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O3 %s -o %t.O3 %adlibs && %t.O3
// RUN: %adcc -O2 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=IR

#include "ad.h"
#include "adcheck.h"
#include <math.h>

enum { M = 13, N = 37 };

double layer(const double *W, const double *v, const double *x, int m, int n) {
  double f = 0;
  for (int i = 0; i < m; ++i) {
    double s = 0;
    for (int j = 0; j < n; ++j)
      s += W[i * n + j] * x[j];
    f += v[i] * tanh(s);
  }
  return f;
}

// The reversed row loop of dW vectorizes, without comparing addresses.
// IR-LABEL: define {{.*}}@layer_grad(
// IR-NOT:   icmp {{.*}} ptr
// IR:       fadd <2 x double>
// IR-NOT:   icmp {{.*}} ptr
// IR-LABEL: define {{.*}}@adjacent(
void layer_grad(const double *W, double *dW, const double *v, double *dv,
                const double *x, int m, int n) {
  __ad_gradient_void(layer, W, dW, v, dv, AD_CONST, x, m, n);
}

double adjacent(const double *a, const double *b, int n) {
  double f = 0;
  for (int i = 0; i + 1 < n; ++i)
    f += a[i] * b[i + 1];
  return f;
}

void adjacent_grad(const double *a, double *da, const double *b, double *db,
                   int n) {
  __ad_gradient_void(adjacent, a, da, b, db, n);
}

// With b = a + 1 (and db = da + 1) an in-place recurrence a_{i+1} = sin a_i:
// f.rev reads and clears db[i] = da[i + 1] after adding into it in the
// previous reverse iteration.
double chain(const double *a, double *b, int n) {
  for (int i = 0; i < n; ++i)
    b[i] = sin(a[i]);
  return b[n - 1];
}

void chain_grad(double *a, double *da, double *b, double *db, int n) {
  __ad_gradient_void(chain, a, da, b, db, n);
}

static double W[M * N], v[N], x[N], dW[M * N], dv[N];

static void fill(void) {
  for (int k = 0; k < M * N; ++k)
    W[k] = 0.05 * sin(0.7 * k + 0.3);
  for (int k = 0; k < N; ++k) {
    v[k] = cos(0.4 * k) + 0.1;
    x[k] = 0.5 * sin(1.3 * k) - 0.2;
  }
  memset(dW, 0, sizeof dW);
  memset(dv, 0, sizeof dv);
}

// dW_ij = v_i (1 - t_i^2) x_j, dv_i = t_i, with c the constant vector;
// checked against differences of layer(W, v, c) at the same point, c a
// copy that does not move with W and v.
static void check_layer(const char *what, const double *c, int m) {
  double cc[N];
  memcpy(cc, c, sizeof cc);
  for (int i = 0; i < m; ++i) {
    double s = 0;
    for (int j = 0; j < N; ++j)
      s += W[i * N + j] * cc[j];
    double t = tanh(s);
    for (int j = 0; j < N; j += 5) {
      double fd = AD_FD(W[i * N + j], layer(W, v, cc, m, N));
      ad_deriv(ad_fmt("%s dW[%d][%d]", what, i, j), dW[i * N + j],
               v[i] * (1 - t * t) * cc[j], fd, AD_TOL_D);
    }
    double fd = AD_FD(v[i], layer(W, v, cc, m, N));
    ad_deriv(ad_fmt("%s dv[%d]", what, i), dv[i], t, fd, AD_TOL_D);
  }
}

// One array a as both arguments of adjacent, shifted by `shift`:
// f = sum_i a_i a_{i+1+shift}.
static void check_adjacent_twice(int shift) {
  double a[N], da[N] = {0};
  for (int k = 0; k < N; ++k)
    a[k] = sin(0.9 * k) + 0.3;
  int n = N - shift;
  adjacent_grad(a, da, a + shift, da + shift, n);
  for (int k = 0; k < N; ++k) {
    int d = 1 + shift;
    double want = (k - d >= 0 ? a[k - d] : 0) + (k + d < N ? a[k + d] : 0);
    double fd = AD_FD(a[k], adjacent(a, a + shift, n));
    ad_deriv(ad_fmt("adjacent shift %d d/da[%d]", shift, k), da[k], want, fd,
             AD_TOL_D);
  }
}

static void check_chain(void) {
  enum { L = 23 };
  double a0[L + 1], a[L + 1], da[L + 1] = {0};
  for (int k = 0; k <= L; ++k)
    a0[k] = 0.3 + 0.05 * k;
  memcpy(a, a0, sizeof a);
  chain_grad(a, da, a + 1, da + 1, L);
  double want = 1, s = a0[0];
  for (int k = 0; k < L; ++k) {
    want *= cos(s);
    s = sin(s);
  }
  for (int j = 0; j <= L; ++j) {
    double w[L + 1], x = a0[j];
    double fd =
        AD_FD(x, (memcpy(w, a0, sizeof w), w[j] = x, chain(w, w + 1, L)));
    ad_deriv(ad_fmt("chain d/da[%d]", j), da[j], j == 0 ? want : 0, fd,
             AD_TOL_D);
  }
}

int main(void) {
  fill();
  layer_grad(W, dW, v, dv, x, M, N);
  check_layer("layer", x, M);

  // The constant vector is the active v itself (M rows of N, v of N).
  fill();
  layer_grad(W, dW, v, dv, v, M, N);
  check_layer("layer, x = v", v, M);

  check_adjacent_twice(0);
  check_adjacent_twice(1);
  check_chain();
  return ad_finish();
}
