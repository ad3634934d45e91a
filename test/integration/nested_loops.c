// Nested derivatives through loops (from -O1): the inner gradient's loops
// are counted, and the partials they need (sin(i x), the elements of x)
// are recomputed or read again in its reverse pass rather than kept on the
// runtime tape, so an outer forward derivative sees no value with a
// derivative stored there. At -O0 the inner derivatives keep those values
// on the runtime tape, and the same functions are a compile error (the
// error said "an AD_CONST pointer, or a global variable" before; it now
// says what it is and which nesting works). Checked against central
// differences of the inner gradient and hand derivatives.
//
// RUN: not %adcc -O0 -g -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: %adcc -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2

#include "ad.h"
#include "adcheck.h"

void __ad_gradient_void(void *, ...) AD_MARKER;

double waves(double x, int n) {
  double s = 0;
  // CHECK: nested_loops.c:[[@LINE+6]]:{{[0-9]+}}: error: cannot differentiate
  // CHECK-SAME: derived code that keeps values with derivatives on the runtime
  // CHECK-SAME: tape (the gradient of a function whose loop keeps per-iteration
  // CHECK-SAME: values, requested inside the function being differentiated):
  // CHECK-SAME: not supported yet; nest the other way round (the gradient of a
  // CHECK-SAME: function that calls __ad_derivative), or keep the inner
  for (int i = 1; i <= n; i++)
    s += sin(i * x) / i;
  return s;
}
double dwaves(double x, int n) { return __ad_gradient(waves, x, n); }
double d2waves(double x, int n) { return __ad_derivative(dwaves, x, 1.0, n); }

// The partials kept by a callee called in the loop.
static double wave(double v) {
  // CHECK: nested_loops.c:[[@LINE+6]]:{{[0-9]+}}: error: cannot differentiate
  // CHECK-SAME: derived code that keeps values with derivatives on the runtime
  // CHECK-SAME: tape (the gradient of a function whose loop keeps per-iteration
  // CHECK-SAME: values, requested inside the function being differentiated):
  // CHECK-SAME: not supported yet; nest the other way round (the gradient of a
  // CHECK-SAME: function that calls __ad_derivative), or keep the inner
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
  // CHECK: nested_loops.c:[[@LINE+6]]:{{[0-9]+}}: error: cannot differentiate
  // CHECK-SAME: derived code that keeps values with derivatives on the runtime
  // CHECK-SAME: tape (the gradient of a function whose loop keeps per-iteration
  // CHECK-SAME: values, requested inside the function being differentiated):
  // CHECK-SAME: not supported yet; nest the other way round (the gradient of a
  // CHECK-SAME: function that calls __ad_derivative), or keep the inner
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
  // tape, where the outer one's records would interleave with its own.
  // CHECK: nested_loops.c:[[@LINE+3]]:{{[0-9]+}}: error: cannot differentiate
  // CHECK-SAME: in reverse mode code that itself computes a gradient through a
  // CHECK-SAME: loop
  ad_check("reverse over reverse", __ad_gradient(dh, x), 10, 1e-12, 1e-12);
  return ad_finish();
}
