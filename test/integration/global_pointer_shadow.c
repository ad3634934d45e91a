// Pointers kept in globals (AD_SHADOW, ad.h). A global pointer aimed at
// the input lost the effect of writes through it: with G = x and
// f = sum (G[i] *= 0.5, then x[i]^3), d/dx0 came out 1.08 instead of 0.54
// in both modes, with no message. Declared with AD_SHADOW(G, dG), loads of
// G in derived code find dG's value as their shadow; without a declaration
// such code is a compile error (diagnostics/global-pointer-alias.c).
//   alias    G aimed at the input: writes through it, then x read again
//   ctx      a global struct whose pointer is a workspace, and a float
//            field of the struct read by name (its derivative in dctx)
//   other    a global pointer aimed at a different array than the input,
//            read as data: its shadow is zeroed memory
//   coef     a static pointer set to a static const table: constant data,
//            no declaration needed
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0 | FileCheck %s
// RUN: %adcc -O1 %s -o %t.O1 %adlibs && %t.O1 | FileCheck %s
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2 | FileCheck %s
// CHECK: {{^}}36 checks passed
#include "ad.h"
#include "adcheck.h"

static const double table[3] = {1.5, -2, 0.25};
static const double *coef;

double *G, *dG;
AD_SHADOW(G, dG)

// sum c_i (x_i / 2)^3
double alias(double *x, int n) {
  for (int i = 0; i < n; ++i)
    G[i] *= 0.5;
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += coef[i] * x[i] * x[i] * x[i];
  return s;
}

struct Ctx {
  double *work;
  double scale;
} ctx, dctx;
AD_SHADOW(ctx, dctx)

// sum scale x_i^3, through the workspace
double with_ctx(double *x, int n) {
  for (int i = 0; i < n; ++i)
    ctx.work[i] = ctx.scale * x[i] * x[i];
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += ctx.work[i] * x[i];
  return s;
}

double *Y, *dY;
AD_SHADOW(Y, dY)

// sum y_i x_i^2, y read through Y
double other(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += Y[i] * x[i] * x[i];
  return s;
}

static double alias_at(const double *x0, int k, double xk) {
  double x[3] = {x0[0], x0[1], x0[2]};
  x[k] = xk;
  G = x;
  return alias(x, 3);
}

static double ctx_at(const double *x0, int k, double xk) {
  double x[3] = {x0[0], x0[1], x0[2]};
  x[k] = xk;
  return with_ctx(x, 3);
}

static double other_at(const double *x0, int k, double xk) {
  double x[3] = {x0[0], x0[1], x0[2]};
  x[k] = xk;
  return other(x, 3);
}

static void check_alias(const double *x0) {
  double x[3] = {x0[0], x0[1], x0[2]}, dx[3] = {0};
  G = x;
  dG = dx;
  __ad_gradient(alias, x, dx, 3);
  for (int k = 0; k < 3; ++k) {
    double xk = x0[k];
    double want = 3 * table[k] * x0[k] * x0[k] / 8;
    ad_deriv(ad_fmt("alias rev d/dx%d", k), dx[k], want,
             AD_FD(xk, alias_at(x0, k, xk)), AD_TOL_D);
    double t[3] = {0}, y[3] = {x0[0], x0[1], x0[2]};
    t[k] = 1;
    G = y;
    dG = t; // the tangent of what G points to
    ad_check(ad_fmt("alias fwd d/dx%d", k), __ad_derivative(alias, y, t, 3),
             want, AD_TOL_D.rtol, AD_TOL_D.atol);
  }
}

static void check_ctx(const double *x0) {
  double w[3], dw[3] = {0};
  ctx.work = w;
  ctx.scale = 2;
  dctx.work = dw;
  dctx.scale = 0;
  double x[3] = {x0[0], x0[1], x0[2]}, dx[3] = {0};
  __ad_gradient(with_ctx, x, dx, 3);
  double dscale = 0;
  for (int k = 0; k < 3; ++k) {
    double xk = x0[k];
    ad_deriv(ad_fmt("ctx rev d/dx%d", k), dx[k], 3 * 2 * x0[k] * x0[k],
             AD_FD(xk, ctx_at(x0, k, xk)), AD_TOL_D);
    dscale += x0[k] * x0[k] * x0[k];
  }
  // the cotangent of the field read by name, added into dctx
  ad_check("ctx rev d/dscale", dctx.scale, dscale, AD_TOL_D.rtol,
           AD_TOL_D.atol);
  double t[3] = {0, 1, 0};
  dctx.scale = 1; // and a tangent for it in forward mode
  ad_check("ctx fwd", __ad_derivative(with_ctx, x, t, 3),
           3 * 2 * x0[1] * x0[1] + dscale, AD_TOL_D.rtol, AD_TOL_D.atol);
}

static void check_other(const double *x0) {
  double y[3] = {0.7, -1.3, 2.1}, dy[3] = {0};
  Y = y;
  dY = dy;
  double x[3] = {x0[0], x0[1], x0[2]}, dx[3] = {0};
  __ad_gradient(other, x, dx, 3);
  for (int k = 0; k < 3; ++k) {
    double xk = x0[k];
    ad_deriv(ad_fmt("other rev d/dx%d", k), dx[k], 2 * y[k] * x0[k],
             AD_FD(xk, other_at(x0, k, xk)), AD_TOL_D);
    // what Y points to is not an input: its gradient lands in dY
    ad_check(ad_fmt("other rev d/dy%d", k), dy[k], x0[k] * x0[k],
             AD_TOL_D.rtol, AD_TOL_D.atol);
  }
  double t[3] = {0, 0, 1};
  dy[0] = dy[1] = dy[2] = 0;
  ad_check("other fwd", __ad_derivative(other, x, t, 3), 2 * y[2] * x0[2],
           AD_TOL_D.rtol, AD_TOL_D.atol);
}

int main(void) {
  coef = table;
  const double x0[3] = {1.2, -0.7, 0.9};
  check_alias(x0);
  check_ctx(x0);
  check_other(x0);
  return ad_finish();
}
