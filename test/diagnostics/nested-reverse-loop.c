// Reverse mode over code that computes a gradient through a loop: at -O0
// the inner derivative keeps a record per iteration on the runtime tape,
// and the outer derivative's own records would land between its pushes and
// pops on that one LIFO stack. This gave twice the second derivative,
// garbage or a hang; it is an error naming the way that works (forward
// over reverse: integration/second_derivatives.c).
// When the inner derivative keeps values with derivatives on the runtime
// tape (sin(i x) / i: the partials of each iteration), no outer derivative
// of it is supported; the error said "an AD_CONST pointer, or a global
// variable" and now says what it is and which nesting works. From -O1 the
// loops below are counted and their partials recomputed from x and the
// counter, so nothing with a derivative is kept and the same functions are
// differentiated (integration/nested_loops.c).
// RUN: not %adcc -O0 -g -c %s -o /dev/null 2>&1 | FileCheck %s
#include <ad.h>
#include <math.h>

double h(double x) {
  double s = 0;
  for (int i = 1; i <= 5; i++)
    s += x * x;
  return s;
}
double dh(double x) { return __ad_gradient(h, x); }

double d2h(double x) {
  // CHECK: nested-reverse-loop.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate in reverse mode code that itself computes a gradient through a loop (a nested __ad_gradient whose function loops): not supported yet; take the outer derivative in forward mode (__ad_derivative of the function that calls __ad_gradient)
  return __ad_gradient(dh, x);
}

double waves(double x, int n) {
  double s = 0;
  // CHECK: nested-reverse-loop.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate derived code that keeps values with derivatives on the runtime tape (the gradient of a function whose loop keeps per-iteration values, requested inside the function being differentiated): not supported yet; nest the other way round (the gradient of a function that calls __ad_derivative), or keep the inner function free of such loops
  for (int i = 1; i <= n; i++)
    s += sin(i * x) / i;
  return s;
}
double dwaves(double x, int n) { return __ad_gradient(waves, x, n); }
double d2waves(double x, int n) { return __ad_derivative(dwaves, x, 1.0, n); }

// The same when the values are kept by a callee whose tape is pushed per
// call (the error named AD_CONST pointers and globals).
static double wave(double v) {
  // CHECK: nested-reverse-loop.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate derived code that keeps values with derivatives on the runtime tape
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

// A Hessian-vector product of an array function, forward over reverse: at
// -O0 the inner derivative keeps the addresses of the elements it reads
// (pointers with shadows), and the error named AD_CONST pointers and
// globals there.
static double energy(const double *x, int n) {
  double s = 0;
  // CHECK: nested-reverse-loop.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate derived code that keeps values with derivatives on the runtime tape
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
