// Nested requests whose inner request leaves state behind that the outer
// code reads: the inner function's writes to globals (directly, through a
// callee, into an array), to memory through its pointer arguments and to
// heap blocks it allocates. The outer request differentiates those primal
// side effects too: their tangents (forward) and cotangents (reverse) must
// not be lost, nor mixed up with the inner request's own shadows of the
// same globals (both kept theirs in @S.shadow: forward over reverse lost
// the tangent of S, and forward over forward, or an inner cotangent that
// went through a global, did not compile).
// Each outer function h is checked in both outer modes against its hand
// derivative and central differences of h itself.
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
#include "ad.h"
#include "adcheck.h"
#include <stdlib.h>

double S, R;
double A[2];
double B[4];
static const double T[2] = {1.5, -0.5};

// g = x sin x, leaving S = sin x.     h = g' + S x = s + x c + x s
double g(double x) {
  S = sin(x);
  return x * S;
}
double h_rev(double x) { return __ad_gradient(g, x) + S * x; }
double h_fwd(double x) { return __ad_derivative(g, x, 1.0) + S * x; }
// g itself, called at both levels: the outer request's derivative of g
// must not use the inner request's shadow of S.     = 2 s + x c + x s
double h_both(double x) {
  double d = __ad_gradient(g, x);
  return d + g(x);
}

// The inner cotangent of S goes through the global (k reads S, g.rev adds
// to its shadow): it depends on x.  g2 = x s^2, h2 = g2' = s^2 + 2 x s c
__attribute__((noinline)) double k(double x) { return S * S * x; }
double g2(double x) {
  S = sin(x);
  return k(x);
}
double h2(double x) { return __ad_gradient(g2, x); }

// A callee writes the global.   h3 = s + x c + x s
__attribute__((noinline)) void put(double v) { R = v; }
double g3(double x) {
  put(sin(x));
  return R * x;
}
double h3(double x) { return __ad_gradient(g3, x) + R * x; }

// A global array.   g4 = x^2 s, h4 = g4' + x^3 s
double g4(double x) {
  A[0] = sin(x);
  A[1] = x * x;
  return A[0] * A[1];
}
double h4(double x) { return __ad_gradient(g4, x) + A[0] * A[1] * x; }

// A global written in a loop.   g5 = sum_i i x^3, h5 = g5' + B[n-1] x = 3 x^2 N
// + n x^3 with N = n(n+1)/2
double g5(double x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    B[i] = x * x * (i + 1);
    s += B[i] * x;
  }
  return s;
}
double h5(double x, int n) { return __ad_gradient(g5, x, n) + B[n - 1] * x; }

// The inner request reads a global the outer code wrote: a constant
// inside, varied outside.   gr = S x, gr' = S = x^2, h6 = x^4
double gr(double x) { return S * x; }
double h6_rev(double x) {
  S = x * x;
  return __ad_gradient(gr, x) * S;
}
double h6_fwd(double x) {
  S = x * x;
  return __ad_derivative(gr, x, 1.0) * S;
}

// A constant table (whose zero tangents the inner gradient's shadow
// takes cotangents into).   g7 = T0 T1 x s, h7 = g7' + T0^2 x s
double g7(double x) {
  S = T[0] * sin(x);
  return S * x * T[1];
}
double h7(double x) { return __ad_gradient(g7, x) + T[0] * S * x; }

// Outputs through a pointer argument of a void function.
// y = {x s, x^2}; h8 = dy0/dx + y0 y1 = s + x c + x^3 s
void gp(double x, double *y) {
  y[0] = sin(x) * x;
  y[1] = x * x;
}
double h8_fwd(double x) {
  double y[2], dy[2];
  __ad_derivative_void(gp, x, 1.0, y, dy);
  return dy[0] + y[0] * y[1];
}
double h8_rev(double x) {
  double y[2] = {0, 0}, dy[2] = {1, 0};
  double d = __ad_gradient(gp, x, y, dy);
  return d + y[0] * y[1];
}

// In place through a pointer argument: y0 <- sin(y0) y1 with y = {x, x^2};
// afterwards y0 = s x^2, dy = {c x^2, s}.   h9 = c x^2 + s^2 x^2
void gi(double *y) { y[0] = sin(y[0]) * y[1]; }
double h9(double x) {
  double y[2] = {x, x * x}, dy[2] = {1, 0};
  __ad_gradient_void(gi, y, dy);
  return dy[0] + dy[1] * y[0];
}

// A heap block the inner function allocates and hands back.
// h10 = s + x c + x s
double gh(double x, double **pp) {
  double *p = malloc(sizeof *p);
  *p = sin(x);
  *pp = p;
  return x * *p;
}
double h10(double x) {
  double *p = 0, *dp = 0;
  double d = __ad_gradient(gh, x, &p, &dp);
  double r = d + *p * x;
  free(p);
  free(dp);
  return r;
}

// Three levels: the outer request differentiates h_rev's derivative and
// reads S too.   h11 = h_rev' + x^2 s
double h11(double x) { return __ad_derivative(h_rev, x, 1.0) + S * x * x; }

// The inner request takes a pointer and its function reads a mutable
// global by name, so the request checks, when it runs, that the pointer is
// not into that global: the outer request differentiates the check too (a
// call without a derivative).   g12 = W0 x0^2 + W1 sin x1 at (x, 0.3),
// h12 = dg12/dx0 * x = 2 W0 x^2
double W[2] = {2.0, 3.0};
double g12(const double *v) { return W[0] * v[0] * v[0] + W[1] * sin(v[1]); }
double h12(double x) {
  double v[2] = {x, 0.3}, dv[2] = {0, 0};
  __ad_gradient(g12, v, dv);
  return dv[0] * x;
}

#define CHECK_BOTH(name, fn, want)                                             \
  do {                                                                         \
    ad_deriv(name " (forward outside)", __ad_derivative(fn, x, 1.0), want,     \
             AD_FD(x, fn(x)), AD_TOL_D);                                       \
    ad_deriv(name " (reverse outside)", __ad_gradient(fn, x), want,            \
             AD_FD(x, fn(x)), AD_TOL_D);                                       \
  } while (0)

int main(void) {
  volatile double vx = 0.7;
  double x = vx, s = sin(x), c = cos(x);
  double hp = 2 * c - x * s + s + x * c; // (s + x c + x s)'
  CHECK_BOTH("global, inner gradient", h_rev, hp);
  CHECK_BOTH("global, inner derivative", h_fwd, hp);
  CHECK_BOTH("global, g at both levels", h_both, hp);
  CHECK_BOTH("inner cotangent through a global", h2,
             4 * s * c + 2 * x * (c * c - s * s));
  CHECK_BOTH("global written by a callee", h3, hp);
  CHECK_BOTH("global array", h4,
             2 * s + 4 * x * c - x * x * s + 3 * x * x * s + x * x * x * c);
#ifdef __OPTIMIZE__
  // At -O0 the inner gradient keeps B[i] on the runtime tape, and no
  // outer derivative of that is supported yet: a compile error
  // (diagnostics/nested-reverse-loop.c).
  volatile int vn = 4;
  int n = vn;
  double h5p = 6 * x * (n * (n + 1) / 2) + 3 * n * x * x;
  ad_deriv("global written in a loop (forward outside)",
           __ad_derivative(h5, x, 1.0, n), h5p, AD_FD(x, h5(x, n)), AD_TOL_D);
  ad_deriv("global written in a loop (reverse outside)",
           __ad_gradient(h5, x, n), h5p, AD_FD(x, h5(x, n)), AD_TOL_D);
#endif
  CHECK_BOTH("global the outer code wrote, inner gradient", h6_rev,
             4 * x * x * x);
  CHECK_BOTH("global the outer code wrote, inner derivative", h6_fwd,
             4 * x * x * x);
  CHECK_BOTH("constant table", h7,
             T[0] * T[1] * (2 * c - x * s) + T[0] * T[0] * (s + x * c));
  double h8p = 2 * c - x * s + 3 * x * x * s + x * x * x * c;
  CHECK_BOTH("pointer outputs, inner derivative", h8_fwd, h8p);
  CHECK_BOTH("pointer outputs, inner gradient", h8_rev, h8p);
  CHECK_BOTH("in place through a pointer", h9,
             2 * x * c - x * x * s + 2 * x * s * s + 2 * x * x * s * c);
  CHECK_BOTH("heap block handed back", h10, hp);
  CHECK_BOTH("inner request checked against a global it reads", h12,
             4 * W[0] * x);
  CHECK_BOTH("three levels", h11,
             -3 * s - x * c + 2 * c - x * s + 2 * x * s + x * x * c);
  return ad_finish();
}
