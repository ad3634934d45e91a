// Calls with pointer arguments between user functions: shadows are passed
// along, one specialisation per activity pattern, and a callee called inside
// a loop gets its tape pushed per call. noinline keeps the calls at -O2.
//   quad(A, x)  = sum_i x_i * dot(A + i n, x)          (row pointers)
//   smooth(x,y) : axpy twice into y (void helper writing memory), y = ...
//   mixed(x)    = dot(W, x) + dot(x, x)   (W a constant table: 'cd' and 'dd')
//   byvalue(x)  : a struct passed by value that the callee modifies
//   span_dot    : a struct of pointers passed by value, advanced by the callee
//   workspace(x): scratch memory from an allocating helper, kept in a struct
//                 field and written through (at -O0 SROA takes the pointer
//                 out of the field: "an active value is stored into memory
//                 without a shadow" until the helper's result got one)
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O3 %s -o %t.O3 %adlibs && %t.O3
#include "ad.h"
#include "adcheck.h"
#include <stdlib.h>

#define N 4

__attribute__((noinline)) static double dot(const double *a, const double *b,
                                            int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}

__attribute__((noinline)) static void axpy(double a, const double *x,
                                           double *y, int n) {
  for (int i = 0; i < n; i++)
    y[i] += a * x[i];
}

double quad(const double *A, const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i] * dot(A + i * n, x, n);
  return s;
}

// y = a x + b x^2 (elementwise, x^2 built in a local), returns sum y_i^2.
double smooth(double a, double b, const double *x, double *y, int n) {
  double sq[N];
  for (int i = 0; i < n; i++) {
    sq[i] = x[i] * x[i];
    y[i] = 0;
  }
  axpy(a, x, y, n);
  axpy(b, sq, y, n);
  return dot(y, y, n);
}

static const double W[N] = {0.5, -1.0, 2.0, 0.25};
double mixed(const double *x, int n) { return dot(W, x, n) + dot(x, x, n); }

// A struct passed by value (in memory: byval) that the callee modifies:
// the caller's object, and so its shadow, must stay as they were.
typedef struct {
  double a[6];
} big;
__attribute__((noinline)) static double consume(big b, double x) {
  for (int i = 0; i < 6; i++)
    b.a[i] *= x;
  double s = 0;
  for (int i = 0; i < 6; i++)
    s += b.a[i] * b.a[i];
  return s;
}
// r = sum ((x + i) * 2)^2, t = sum (x + i): f = r + t x
double byvalue(double x) {
  big b;
  for (int i = 0; i < 6; i++)
    b.a[i] = x + i;
  double r = consume(b, 2.0);
  double t = 0;
  for (int i = 0; i < 6; i++)
    t += b.a[i];
  return r + t * x;
}

// A struct of pointers passed by value (byval: 24 bytes) whose callee
// advances its copy's pointers: the caller's shadow pointers must not move.
typedef struct {
  double *p, *q;
  long n;
} span;
__attribute__((noinline)) static double walk(span s) {
  double t = 0;
  for (long i = 0; i < s.n; i++) {
    t += *s.p * *s.q;
    s.p++;
    s.q++;
  }
  return t;
}
double span_dot(double *a, double *b) {
  span s = {a, b, 3};
  double r = walk(s);
  return r + s.p[0] * 2;
}

// w = (x0^2, w0 x1, w1 w0): f = w2 + w1 = x0^4 x1^2 + x0^2 x1
typedef struct {
  double *buf;
  int n;
} scratch;
__attribute__((noinline)) static double *new_buffer(int n) {
  return (double *)calloc(n, sizeof(double));
}
double workspace(const double *x) {
  scratch s;
  s.n = 3;
  s.buf = new_buffer(s.n);
  s.buf[0] = x[0] * x[0];
  s.buf[1] = s.buf[0] * x[1];
  s.buf[2] = s.buf[1] * s.buf[1];
  double r = s.buf[2] + s.buf[1];
  free(s.buf);
  return r;
}

typedef struct { double da, db; } grad_ab;
grad_ab __ad_gradient_ab(void *fn, ...) AD_MARKER;

int main(void) {
  volatile int vn = N;
  int n = vn;
  double A[N * N], x[N] = {0.3, -0.8, 1.1, 0.45};
  for (int k = 0; k < N * N; k++)
    A[k] = 0.1 * (k % 5) - 0.2 + 0.05 * k;

  // quad: d/dx_k = sum_j (A_kj + A_jk) x_j ; d/dA_ij = x_i x_j
  double dA[N * N] = {0}, dx[N] = {0};
  __ad_gradient(quad, A, dA, x, dx, n);
  for (int k = 0; k < n; k++) {
    double want = 0;
    for (int j = 0; j < n; j++)
      want += (A[k * n + j] + A[j * n + k]) * x[j];
    ad_deriv(ad_fmt("quad d/dx%d", k), dx[k], want, AD_FD(x[k], quad(A, x, n)), AD_TOL_D);
  }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      ad_deriv(ad_fmt("quad d/dA%d%d", i, j), dA[i * n + j], x[i] * x[j],
               AD_FD(A[i * n + j], quad(A, x, n)), AD_TOL_D);

  // smooth: y_i = a x_i + b x_i^2, f = sum y_i^2
  volatile double va = 0.7, vb = -0.3;
  double a = va, b = vb, y[N], dy[N] = {0}, dx2[N] = {0};
  grad_ab g = __ad_gradient_ab(smooth, a, b, x, dx2, y, dy, n);
  double wa = 0, wb = 0;
  for (int i = 0; i < n; i++) {
    double yi = a * x[i] + b * x[i] * x[i];
    wa += 2 * yi * x[i];
    wb += 2 * yi * x[i] * x[i];
    ad_deriv(ad_fmt("smooth d/dx%d", i), dx2[i], 2 * yi * (a + 2 * b * x[i]),
             AD_FD(x[i], smooth(a, b, x, y, n)), AD_TOL_D);
    ad_check(ad_fmt("smooth: output shadow %d ends zero", i), dy[i], 0, 0, 0);
  }
  ad_deriv("smooth d/da", g.da, wa, AD_FD(a, smooth(a, b, x, y, n)), AD_TOL_D);
  ad_deriv("smooth d/db", g.db, wb, AD_FD(b, smooth(a, b, x, y, n)), AD_TOL_D);

  // mixed: d/dx_k = W_k + 2 x_k
  double dx3[N] = {0};
  __ad_gradient(mixed, x, dx3, n);
  for (int k = 0; k < n; k++)
    ad_deriv(ad_fmt("mixed d/dx%d", k), dx3[k], W[k] + 2 * x[k],
             AD_FD(x[k], mixed(x, n)), AD_TOL_D);
  // byvalue: d/dx = sum 8 (x + i) + sum (x + i) + 6 x
  double bx = 0.5, want = 0;
  for (int i = 0; i < 6; i++)
    want += 9 * (bx + i);
  want += 6 * bx;
  ad_deriv("byvalue d/dx", __ad_gradient(byvalue, bx), want,
           AD_FD(bx, byvalue(bx)), AD_TOL_D);
  ad_check("byvalue forward", __ad_derivative(byvalue, bx, 1.0), want, 1e-12,
           0);
  // span_dot: d/da = b + (2, 0, 0), d/db = a
  double sa[3] = {1, 2, 3}, sb[3] = {0.5, -1, 2}, dsa[3] = {0}, dsb[3] = {0};
  __ad_gradient(span_dot, sa, dsa, sb, dsb);
  for (int i = 0; i < 3; i++) {
    ad_check(ad_fmt("span_dot d/da%d", i), dsa[i], sb[i] + (i == 0 ? 2 : 0),
             1e-12, 0);
    ad_check(ad_fmt("span_dot d/db%d", i), dsb[i], sa[i], 1e-12, 0);
  }
  // workspace: d/dx0 = 4 x0^3 x1^2 + 2 x0 x1, d/dx1 = 2 x0^4 x1 + x0^2
  double wx[2] = {1.5, -0.7}, dwx[2] = {0, 0};
  __ad_gradient(workspace, wx, dwx);
  double w0 = wx[0], w1 = wx[1];
  ad_check("workspace d/dx0", dwx[0],
           4 * w0 * w0 * w0 * w1 * w1 + 2 * w0 * w1, 1e-12, 0);
  ad_check("workspace d/dx1", dwx[1], 2 * w0 * w0 * w0 * w0 * w1 + w0 * w0,
           1e-12, 0);
  double tw[2] = {1, 0};
  ad_check("workspace forward", __ad_derivative(workspace, wx, tw), dwx[0],
           1e-12, 0);
  return ad_finish();
}
