// Triple nested loops: C = A B (A m x k, B k x n, row-major, m, k, n from
// volatiles) followed by the scalar loss sum(C .* W) with W AD_CONST. The
// gradients are dA = W B^T and dB = A^T W. Three placements of C: fused into
// the loss (no C array), a local array inside the function, and a caller's
// workspace passed with a shadow. For the workspace the API says: its shadow
// on entry is the cotangent of C's final contents (here seeded with G, so
// the gradient becomes that of loss + <G, C>: dA = (W+G) B^T) and on return
// the cotangent of C's initial contents, which is zero because C is
// overwritten. Also a non-linear variant, sum(W .* tanh(A B)), where every
// entry of C needs its own residual.
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O3 %s -o %t.O3 %adlibs && %t.O3

#include "ad.h"
#include "adcheck.h"
#include <math.h>

#define MAXD 6

double loss_fused(const double *A, const double *B, const double *W, int m,
                  int k, int n) {
  double s = 0;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      double c = 0;
      for (int p = 0; p < k; p++)
        c += A[i * k + p] * B[p * n + j];
      s += c * W[i * n + j];
    }
  return s;
}

double loss_local(const double *A, const double *B, const double *W, int m,
                  int k, int n) {
  double C[MAXD * MAXD];
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      C[i * n + j] = 0;
      for (int p = 0; p < k; p++)
        C[i * n + j] += A[i * k + p] * B[p * n + j];
    }
  double s = 0;
  for (int i = 0; i < m * n; i++)
    s += C[i] * W[i];
  return s;
}

double loss_ws(const double *A, const double *B, const double *W, double *C,
               int m, int k, int n) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      C[i * n + j] = 0;
      for (int p = 0; p < k; p++)
        C[i * n + j] += A[i * k + p] * B[p * n + j];
    }
  double s = 0;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      s += C[i * n + j] * W[i * n + j];
  return s;
}

double loss_tanh(const double *A, const double *B, const double *W, int m,
                 int k, int n) {
  double C[MAXD * MAXD];
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      double c = 0;
      for (int p = 0; p < k; p++)
        c += A[i * k + p] * B[p * n + j];
      C[i * n + j] = tanh(c);
    }
  double s = 0;
  for (int i = 0; i < m * n; i++)
    s += C[i] * W[i];
  return s;
}

static volatile int vm = 3, vk = 4, vn = 5;

static double val(int i, double scale) {
  return scale * sin(1.3 * i + 0.4) + 0.05 * i;
}

static void zero(double *d) {
  for (int i = 0; i < MAXD * MAXD; i++)
    d[i] = 0;
}

typedef double (*lossfn)(const double *, const double *, const double *, int,
                         int, int);

// Checks dA, dB against (W+G) B^T and A^T (W+G) and finite differences of
// f + <G, AB> computed with fused loops (f the loss at hand).
static void check(const char *name, lossfn f, const double *A_in,
                  const double *B_in, const double *W, const double *G,
                  const double *dA, const double *dB, int m, int k, int n,
                  int nonlinear) {
  double A[MAXD * MAXD], B[MAXD * MAXD], Wt[MAXD * MAXD], Ct[MAXD * MAXD];
  for (int i = 0; i < MAXD * MAXD; i++)
    A[i] = A_in[i], B[i] = B_in[i];
  // Effective output cotangent Wt = dloss/dC (+ G).
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      double c = 0;
      for (int p = 0; p < k; p++)
        c += A[i * k + p] * B[p * n + j];
      double t = tanh(c);
      Wt[i * n + j] = (nonlinear ? W[i * n + j] * (1 - t * t) : W[i * n + j]) +
                      (G ? G[i * n + j] : 0);
    }
  (void)Ct;
#define OBJ() (f(A, B, W, m, k, n) + (G ? loss_fused(A, B, G, m, k, n) : 0))
  for (int i = 0; i < m; i++)
    for (int p = 0; p < k; p++) {
      double want = 0;
      for (int j = 0; j < n; j++)
        want += Wt[i * n + j] * B[p * n + j];
      double fd = AD_FD(A[i * k + p], OBJ());
      ad_deriv(ad_fmt("%s dA[%d][%d]", name, i, p), dA[i * k + p], want, fd,
               AD_TOL_D);
    }
  for (int p = 0; p < k; p++)
    for (int j = 0; j < n; j++) {
      double want = 0;
      for (int i = 0; i < m; i++)
        want += A[i * k + p] * Wt[i * n + j];
      double fd = AD_FD(B[p * n + j], OBJ());
      ad_deriv(ad_fmt("%s dB[%d][%d]", name, p, j), dB[p * n + j], want, fd,
               AD_TOL_D);
    }
  for (int i = m * k; i < MAXD * MAXD; i++)
    ad_check(ad_fmt("%s dA[%d] beyond m*k untouched", name, i), dA[i], 0, 0, 0);
  for (int i = k * n; i < MAXD * MAXD; i++)
    ad_check(ad_fmt("%s dB[%d] beyond k*n untouched", name, i), dB[i], 0, 0, 0);
#undef OBJ
}

static double ws_as_loss(const double *A, const double *B, const double *W,
                         int m, int k, int n) {
  double C[MAXD * MAXD];
  return loss_ws(A, B, W, C, m, k, n);
}

int main(int argc, char **argv) {
  (void)argv;
  int m = vm + (argc - 1), k = vk, n = vn;
  double A[MAXD * MAXD], B[MAXD * MAXD], W[MAXD * MAXD], G[MAXD * MAXD];
  double dA[MAXD * MAXD], dB[MAXD * MAXD];
  for (int i = 0; i < MAXD * MAXD; i++) {
    A[i] = val(i, 1.1);
    B[i] = val(i + 7, 0.9);
    W[i] = val(3 * i + 2, 1.4);
    G[i] = val(5 * i + 1, 0.6);
  }

  zero(dA), zero(dB);
  __ad_gradient(loss_fused, A, dA, B, dB, AD_CONST, W, m, k, n);
  check("fused", loss_fused, A, B, W, 0, dA, dB, m, k, n, 0);

  zero(dA), zero(dB);
  __ad_gradient(loss_local, A, dA, B, dB, AD_CONST, W, m, k, n);
  check("local C", loss_local, A, B, W, 0, dA, dB, m, k, n, 0);

  // Square and degenerate shapes.
  for (int s = 1; s <= 2; s++) {
    int mm = s == 1 ? 1 : MAXD, kk = s == 1 ? MAXD : 1, nn = s == 1 ? 1 : MAXD;
    zero(dA), zero(dB);
    __ad_gradient(loss_local, A, dA, B, dB, AD_CONST, W, mm, kk, nn);
    check(ad_fmt("local C %dx%dx%d", mm, kk, nn), loss_local, A, B, W, 0, dA,
          dB, mm, kk, nn, 0);
  }

  // Workspace with a zero shadow: plain loss; the shadow stays zero.
  {
    double C[MAXD * MAXD], dC[MAXD * MAXD];
    zero(dA), zero(dB), zero(dC);
    for (int i = 0; i < MAXD * MAXD; i++)
      C[i] = -7;
    __ad_gradient(loss_ws, A, dA, B, dB, AD_CONST, W, C, dC, m, k, n);
    check("workspace", ws_as_loss, A, B, W, 0, dA, dB, m, k, n, 0);
    for (int i = 0; i < MAXD * MAXD; i++)
      ad_check(ad_fmt("workspace dC[%d] stays 0", i), dC[i], 0, 0, 0);
    // Primal side effect: C holds A B (and -7 beyond m*n).
    for (int i = 0; i < m; i++)
      for (int j = 0; j < n; j++) {
        double c = 0;
        for (int p = 0; p < k; p++)
          c += A[i * k + p] * B[p * n + j];
        ad_check(ad_fmt("workspace C[%d][%d] primal", i, j), C[i * n + j], c,
                 1e-14, 1e-14);
      }
    ad_check("workspace C beyond m*n untouched", C[m * n], -7, 0, 0);
  }

  // Workspace whose shadow is seeded with G: cotangent of C's final value.
  // Entries beyond m*n are never written, so their shadow stays as seeded.
  {
    double C[MAXD * MAXD], dC[MAXD * MAXD];
    zero(dA), zero(dB);
    for (int i = 0; i < MAXD * MAXD; i++)
      dC[i] = G[i];
    __ad_gradient(loss_ws, A, dA, B, dB, AD_CONST, W, C, dC, m, k, n);
    check("workspace seeded", ws_as_loss, A, B, W, G, dA, dB, m, k, n, 0);
    for (int i = 0; i < MAXD * MAXD; i++)
      ad_check(ad_fmt("workspace seeded dC[%d] on return", i), dC[i],
               i < m * n ? 0 : G[i], 0, 0);
  }

  zero(dA), zero(dB);
  __ad_gradient(loss_tanh, A, dA, B, dB, AD_CONST, W, m, k, n);
  check("tanh", loss_tanh, A, B, W, 0, dA, dB, m, k, n, 1);

  return ad_finish();
}
