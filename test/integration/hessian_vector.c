// Hessian-vector products of a function of an array, by nesting requests
// through pointer arguments: forward over reverse (the derivative of the
// gradient along v) and reverse over reverse (the gradient of g . v).
// Checked against the analytic Hessian and central differences of the
// gradient.
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2

#include "ad.h"
#include "adcheck.h"

void __ad_derivative_void(void *, ...) AD_MARKER;

// f = sin(x0) x1 + x1^2 x0 + exp(x2 x0)
double f(const double *x) {
  return sin(x[0]) * x[1] + x[1] * x[1] * x[0] + exp(x[2] * x[0]);
}

void grad_f(const double *x, double *g) {
  for (int i = 0; i < 3; i++)
    g[i] = 0;
  __ad_gradient(f, x, g);
}

// g . v, whose gradient in x is H v (v held constant).
double grad_dot(const double *x, const double *v) {
  double g[3] = {0, 0, 0};
  __ad_gradient(f, x, g);
  return g[0] * v[0] + g[1] * v[1] + g[2] * v[2];
}

static void hessian(const double *x, double H[3][3]) {
  double e = exp(x[2] * x[0]);
  H[0][0] = -sin(x[0]) * x[1] + x[2] * x[2] * e;
  H[0][1] = H[1][0] = cos(x[0]) + 2 * x[1];
  H[0][2] = H[2][0] = e + x[0] * x[2] * e;
  H[1][1] = 2 * x[0];
  H[1][2] = H[2][1] = 0;
  H[2][2] = x[0] * x[0] * e;
}

int main(void) {
  volatile double vx = 0.3;
  double x[3] = {vx, 0.5, -0.4}, v[3] = {1, 0.5, -2}, H[3][3];
  hessian(x, H);
  // Central differences of the gradient along v.
  double fd[3], xp[3], xm[3], gp[3], gm[3], h = 1e-5;
  for (int i = 0; i < 3; i++) {
    xp[i] = x[i] + h * v[i];
    xm[i] = x[i] - h * v[i];
  }
  grad_f(xp, gp);
  grad_f(xm, gm);
  for (int i = 0; i < 3; i++)
    fd[i] = (gp[i] - gm[i]) / (2 * h);

  double g[3], hv[3] = {0, 0, 0};
  __ad_derivative_void(grad_f, x, v, g, hv);
  double dx[3] = {0, 0, 0};
  __ad_gradient(grad_dot, x, dx, AD_CONST, v);
  for (int i = 0; i < 3; i++) {
    double want = H[i][0] * v[0] + H[i][1] * v[1] + H[i][2] * v[2];
    ad_deriv(ad_fmt("forward over reverse (Hv)[%d]", i), hv[i], want, fd[i],
             AD_TOL_D);
    ad_deriv(ad_fmt("reverse over reverse (Hv)[%d]", i), dx[i], want, fd[i],
             AD_TOL_D);
  }
  return ad_finish();
}
