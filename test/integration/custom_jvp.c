// Custom derivatives from a forward rule alone (AD_CUSTOM_JVP): blackbox is
// defined in another translation unit, so the plugin cannot see its body.
// The forward rule is used by __ad_derivative, and the reverse rule is
// derived from it by unzipping and transposing (checked by gradients, inside
// a differentiated loop too). AD_INACTIVE declares an external function to
// carry no derivative.
// RUN: %adcc -O0 %s %S/Inputs/custom_jvp_other.c -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s %S/Inputs/custom_jvp_other.c -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O2 -ffast-math %s %S/Inputs/custom_jvp_other.c -o %t.fm %adlibs && %t.fm
// Full LTO: the other file's bodies become visible only at the link, after
// the ad pass ran; the custom rules are what this file's gradients use.
// RUN: %adcc -O2 -flto -fuse-ld=bfd %s %S/Inputs/custom_jvp_other.c -o %t.lto %adlibs && %t.lto
#include "ad.h"
#include "adcheck.h"
#include <math.h>

double blackbox(double x, double y);
float blackbox_f(float x);
void log_message(const char *what, double value);

// d/dx = cos(x) y + x^2, d/dy = sin(x); branches on the primal are fine.
double blackbox_jvp(double x, double y, double dx, double dy) {
  double cx = x > 100 ? 0 : cos(x);
  return (cx * y + x * x) * dx + sin(x) * dy;
}
float blackbox_f_jvp(float x, float dx) { return expf(x) * (1 + x) * dx; }

AD_CUSTOM_JVP(blackbox, blackbox_jvp)
AD_CUSTOM_JVP(blackbox_f, blackbox_f_jvp)
AD_INACTIVE(log_message)

// A rule for a function whose body is right here: from -O1 the body was
// inlined into its callers before the pass ran, and differentiated instead
// of the rule (a straight-through estimator: 0 instead of 3). Functions
// with rules are now kept out of line.
double quantize(double x) { return floor(x * 4) / 4; }
double quantize_jvp(double x, double dx) { return dx; } // straight through
AD_CUSTOM_JVP(quantize, quantize_jvp)
double quantized_net(double w) { return 3 * quantize(w); }
// The same rule through a function pointer the request passes AD_CONST: a
// function named only in a request's later arguments was not counted as
// address-taken, so it was no target of the call (a compile error, or a
// run-time abort when another function of its type was one).
double apply_fn(double (*fn)(double), double x) { return 2 * fn(x); }

// An inactive function returning a double computed from an active value:
// its result is a constant (the compiler crashed).
double lookup_scale(double x);
AD_INACTIVE(lookup_scale)
double scaled(double x) { return lookup_scale(x) * x; }

double uses(const double *x, int n) { // sum_i blackbox(x_i, x_{i+1})
  double s = 0;
  for (int i = 0; i + 1 < n; i++) {
    s += blackbox(x[i], x[i + 1]);
    log_message("partial sum", s);
  }
  return s;
}

typedef struct { double dx, dy; } grad2;
grad2 __ad_gradient_2(void *fn, ...) AD_MARKER;

int main(void) {
  volatile double vx = 0.7, vy = -1.3;
  double x = vx, y = vy;
  double wx = cos(x) * y + x * x, wy = sin(x);
  grad2 g = __ad_gradient_2(blackbox, x, y);
  ad_deriv("gradient d/dx", g.dx, wx, AD_FD(x, blackbox(x, y)), AD_TOL_D);
  ad_deriv("gradient d/dy", g.dy, wy, AD_FD(y, blackbox(x, y)), AD_TOL_D);
  ad_check("forward (1, 0)", __ad_derivative(blackbox, x, 1.0, y, 0.0), wx, 1e-12, 0);
  ad_check("forward (0.5, 2)", __ad_derivative(blackbox, x, 0.5, y, 2.0),
           0.5 * wx + 2 * wy, 1e-12, 0);
  ad_check("gradient, y constant", __ad_gradient(blackbox, x, AD_CONST, y), wx, 1e-12, 0);

  volatile float vf = 0.4f;
  float xf = vf;
  ad_check("float rule", __ad_gradient_f(blackbox_f, xf),
           expf(xf) * (1 + xf), 1e-5, 0);

  double a[5] = {0.3, -0.4, 1.2, 0.8, -0.1}, da[5] = {0};
  volatile int vn = 5;
  __ad_gradient(uses, a, da, vn);
  for (int k = 0; k < 5; k++) {
    double want = (k + 1 < 5 ? cos(a[k]) * a[k + 1] + a[k] * a[k] : 0) +
                  (k > 0 ? sin(a[k - 1]) : 0);
    ad_deriv(ad_fmt("in a loop d/da%d", k), da[k], want, AD_FD(a[k], uses(a, 5)),
             AD_TOL_D);
  }
  ad_check("rule of an inlinable function, reverse",
           __ad_gradient(quantized_net, x), 3, 0, 0);
  ad_check("rule of an inlinable function, forward",
           __ad_derivative(quantized_net, x, 1.0), 3, 0, 0);
  ad_check("rule through a function pointer",
           __ad_gradient(apply_fn, AD_CONST, quantize, x), 2, 0, 0);
  ad_check("inactive double function", __ad_gradient(scaled, x),
           lookup_scale(x), 1e-15, 0);
  ad_check("inactive double function, forward",
           __ad_derivative(scaled, x, 1.0), lookup_scale(x), 1e-15, 0);
  return ad_finish();
}
