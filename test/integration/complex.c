// Complex arithmetic: without -ffast-math clang calls compiler-rt's
// __muldc3 / __divdc3 (double) and __mulsc3 / __divsc3 (float) for complex
// multiply and divide; their JVP is the product / quotient rule on (re, im)
// pairs (pass/linearize/LinearizeComplex.cpp). cabs has a rule like hypot.
//   mag(x)  = |(x + 2i)^2 / (x - i) + (0.5 + x i)|
//   parts(x, y) = re + im of (x + y i)^3 / (1 + x i)
//   fmul(x) = re of (x + 0.5i)(2x - i) in float
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O2 -ffast-math %s -o %t.fm %adlibs && %t.fm
#include "ad.h"
#include "adcheck.h"
#include <complex.h>

double mag(double x) {
  double complex z = x + 2.0 * I;
  double complex w = z * z / (x - 1.0 * I) + (0.5 + x * I);
  return cabs(w);
}

double parts(double x, double y) {
  double complex z = x + y * I;
  double complex q = z * z * z / (1.0 + x * I);
  return creal(q) + cimag(q);
}

float fmul(float x) {
  float complex a = x + 0.5f * I, b = 2 * x - 1.0f * I;
  return crealf(a * b);
}

typedef struct {
  double dx, dy;
} grad_xy;
grad_xy __ad_gradient_xy(void *fn, ...) AD_MARKER;

int main(void) {
  volatile double vx = 0.8, vy = -0.6;
  double x = vx, y = vy;
  ad_check("mag d/dx vs FD", __ad_gradient(mag, x), AD_FD(x, mag(x)), 1e-6,
           1e-8);
  ad_check("mag forward", __ad_derivative(mag, x, 1.0), __ad_gradient(mag, x),
           1e-12, 1e-12);
  grad_xy g = __ad_gradient_xy(parts, x, y);
  ad_check("parts d/dx vs FD", g.dx, AD_FD(x, parts(x, y)), 1e-6, 1e-8);
  ad_check("parts d/dy vs FD", g.dy, AD_FD(y, parts(x, y)), 1e-6, 1e-8);
  ad_check("parts forward d/dy", __ad_derivative(parts, x, 0.0, y, 1.0), g.dy,
           1e-12, 1e-12);
  // re((x + 0.5i)(2x - i)) = 2x^2 + 0.5: derivative 4x
  float xf = 0.7f;
  ad_check("fmul d/dx", __ad_gradient_f(fmul, xf), 4 * xf, 1e-5, 1e-6);
  return ad_finish();
}
