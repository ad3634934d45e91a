// A _Complex double passed whole to a forward-mode request reaches f as
// two double parameters, and the marker as two double arguments: paired one
// by one, creal(z) was taken as the value and cimag(z) as its tangent, a
// silently wrong derivative. It is an error that shows the form that works
// (integration/complex.c); the parts passed one by one, a complex float
// (one vector register) and reverse mode are not.
// clang-format off
// RUN: not %adcc -O0 -c %s -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: not %adcc -O2 -c %s -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=error:
// clang-format on
#include <ad.h>
#include <complex.h>

double cprod(double complex z) { return creal(z) * cimag(z) * cimag(z); }
float cprodf(float complex z) { return crealf(z) * cimagf(z); }
double xy(double x, double y) { return x * y; }

double whole(double complex z, double complex tz) {
  // CHECK: complex-forward.c:[[@LINE+1]]:10: error: __ad_derivative: the value for parameter 1 of 'cprod' is a _Complex double passed whole; it travels as two double values, which forward mode would read as two arguments (a value and its tangent): pass the parts one by one, each followed by its tangent (__ad_derivative(f, creal(z), creal(tz), cimag(z), cimag(tz)))
  return __ad_derivative(cprod, z, tz);
}

double as_tangent(double x, double complex tz) {
  // CHECK: complex-forward.c:[[@LINE+1]]:10: error: __ad_derivative: the tangent for parameter 1 of 'xy' is a _Complex double passed whole
  return __ad_derivative(xy, x, tz, 1.0, 0.0);
}

double from_memory(const double complex *z) {
  // CHECK: complex-forward.c:[[@LINE+1]]:10: error: __ad_derivative: the value for parameter 1 of 'cprod' is a _Complex double passed whole
  return __ad_derivative(cprod, z[0], z[1]);
}

double parts(double complex z, double complex tz) {
  return __ad_derivative(cprod, creal(z), creal(tz), cimag(z), cimag(tz)) +
         __ad_derivative(xy, creal(z), cimag(z), cimag(z), creal(z));
}

float single(float complex z, float complex tz) {
  return __ad_derivative_f(cprodf, z, tz);
}

typedef struct { double re, im; } cgrad;
cgrad __ad_gradient_c(void *, ...) AD_MARKER;
double reverse(double complex z) {
  cgrad g = __ad_gradient_c(cprod, z);
  return g.re + g.im;
}
