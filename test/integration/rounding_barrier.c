// Rounding to an integer by adding 2^52 (2^23 in float) behind an empty
// inline assembly barrier, as Eigen's vectorised floor, exp and log do
// without SSE4.1 (EIGEN_OPTIMIZATION_BARRIER). The rounded value has
// derivative 0: x - round(x) has derivative 1, and a function of the
// rounded value alone has derivative 0. Differentiated as written, the sum
// would pass the derivative on (1 - 1 = 0, silently); the barrier was an
// error. With -ffast-math too, which the barrier is there for. A barrier
// on a sum whose addend may be negative stays an error
// (diagnostics/inline-asm.c).
// RUN: %adcc -O0 %s -o %t.O0 %adlibs -lm && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs -lm && %t.O2
// RUN: %adcc -O2 -ffast-math %s -o %t.fast %adlibs -lm && %t.fast
#include "ad.h"
#include "adcheck.h"
#include <math.h>

#define BARRIER(x) __asm__("" : "+g,x"(x))

static double round_abs(double x) {
  double r = fabs(x) + 4503599627370496.0; // 2^52
  BARRIER(r);
  return r - 4503599627370496.0;
}

static float round_abs_f(float x) {
  float r = fabsf(x) + 8388608.0f; // 2^23
  BARRIER(r);
  return r - 8388608.0f;
}

// The fractional part of |x| times x: d/dx = frac(|x|) + x * sign(x).
double frac_times(double x) { return (fabs(x) - round_abs(x)) * x; }

// A step function of x: derivative 0 (away from the steps).
double steps(double x) { return round_abs(3 * x) * 0.5 + x * x; }

float frac_times_f(float x) { return (fabsf(x) - round_abs_f(x)) * x; }

static double frac_times_slope(double x) {
  return fabs(x) - rint(fabs(x)) + fabs(x);
}
static double steps_slope(double x) { return 2 * x; }

int main() {
  const double Points[] = {0.3, -1.2, 2.3, -7.8};
  for (int i = 0; i < 4; i++) {
    double x = Points[i];
#ifndef __FAST_MATH__
    // Fast-math reassociates |x| - (r - 2^52) into (|x| + 2^52) - r, which
    // the barrier makes 0: the function itself is 0 there.
    ad_deriv_modes("frac_times", frac_times, frac_times_slope, x,
                   __ad_gradient(frac_times, x),
                   __ad_derivative(frac_times, x, 1.0));
#endif
    ad_deriv_modes("steps", steps, steps_slope, x, __ad_gradient(steps, x),
                   __ad_derivative(steps, x, 1.0));
#ifndef __FAST_MATH__
    float xf = (float)x;
    float fracf = fabsf(xf) - rintf(fabsf(xf));
    ad_deriv(ad_fmt("frac_times_f at %g", x), __ad_gradient(frac_times_f, xf),
             fracf + fabsf(xf), ad_fd1f(frac_times_f, xf), AD_TOL_F);
#endif
  }
  return ad_finish();
}
