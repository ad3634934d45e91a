// Nested derivatives through counted loops. From -O1 the inner gradient's
// partials (sin(i x), the elements of x) are recomputed or read again in
// its reverse pass; at -O0 the inner derivatives keep them on the runtime
// tape per iteration, and the outer derivative differentiates those
// records too (integration/nested_tape.c has while loops). Checked
// against central differences of the inner gradient and hand derivatives.
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O0 -g %s -o %t.O0g %adlibs && %t.O0g
// RUN: %adcc -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O3 %s -o %t.O3 %adlibs && %t.O3

#include "ad.h"
#include "adcheck.h"

void __ad_gradient_void(void *, ...) AD_MARKER;

double waves(double x, int n) {
  double s = 0;
  for (int i = 1; i <= n; i++)
    s += sin(i * x) / i;
  return s;
}
double dwaves(double x, int n) { return __ad_gradient(waves, x, n); }
double d2waves(double x, int n) { return __ad_derivative(dwaves, x, 1.0, n); }

// The partials kept by a callee called in the loop.
static double wave(double v) {
  return sin(v) * v;
}
double calls(double x, int n) {
  double s = 0;
  for (int i = 1; i <= n; i++)
    s += wave(i * x);
  return s;
}
double dcalls(double x, int n) { return __ad_gradient(calls, x, n); }
double d2calls(double x, int n) { return __ad_derivative(dcalls, x, 1.0, n); }

// A Hessian-vector product of an array function, forward over reverse.
static double energy(const double *x, int n) {
  double s = 0;
  for (int i = 0; i + 1 < n; i++) {
    double d = x[i + 1] - x[i];
    s += d * d * d * d + sin(x[i]);
  }
  return s;
}
double along(const double *x, const double *v, int n) {
  double g[8] = {0};
  __ad_gradient_void(energy, x, g, n);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += v[i] * g[i];
  return s;
}
double hv(const double *x, const double *t, const double *v, int n) {
  return __ad_derivative(along, x, t, AD_CONST, v, n);
}

// Reverse over reverse: h = 5 x^2 through a counted loop, d2h = 10.
double h(double x) {
  double s = 0;
  for (int i = 1; i <= 5; i++)
    s += x * x;
  return s;
}
double dh(double x) { return __ad_gradient(h, x); }

int main(void) {
  volatile int vn = 5;
  int n = vn;
  double x = 0.7;
  double want = 0; // d2/dx2 sum sin(i x)/i = -sum i sin(i x)
  for (int i = 1; i <= n; i++)
    want -= i * sin(i * x);
  ad_deriv("d2 waves", d2waves(x, n), want, AD_FD(x, dwaves(x, n)), AD_TOL_D);
  double want_calls =
      0; // d2/dx2 sum v sin v at v = i x: i^2 (2 cos v - v sin v)
  for (int i = 1; i <= n; i++)
    want_calls += i * i * (2 * cos(i * x) - i * x * sin(i * x));
  ad_deriv("d2 calls", d2calls(x, n), want_calls, AD_FD(x, dcalls(x, n)),
           AD_TOL_D);

  double X[5] = {0.1, 0.5, -0.3, 0.8, 0.2}, T[5] = {1, -1, 0.5, 0.2, 0.3},
         V[5] = {0.3, 0.1, -0.2, 1, 0.5};
  // (H t) . v with H of energy: tridiagonal from the d^4 terms, diagonal
  // from sin.
  double hwant = 0;
  for (int i = 0; i + 1 < n; i++) {
    double d = X[i + 1] - X[i], c = 12 * d * d;
    double dt = T[i + 1] - T[i], dv = V[i + 1] - V[i];
    hwant += c * dt * dv - sin(X[i]) * T[i] * V[i];
  }
  double s = 0.001;
  double Xp[5], Xm[5];
  for (int i = 0; i < 5; i++) {
    Xp[i] = X[i] + s * T[i];
    Xm[i] = X[i] - s * T[i];
  }
  double fd = (along(Xp, V, n) - along(Xm, V, n)) / (2 * s);
  ad_check("Hessian-vector product, analytic", hv(X, T, V, n), hwant, 1e-9,
           1e-12);
  ad_check("Hessian-vector product, differences", hv(X, T, V, n), fd, 1e-5,
           1e-8);
  // At -O0 the inner gradient keeps a record per iteration on the runtime
  // tape, and so does the outer one: each level has its own tape.
  ad_check("reverse over reverse", __ad_gradient(dh, x), 10, 1e-12, 1e-12);
  return ad_finish();
}
