// A helper called once per iteration, whose call site proves its pointer
// arguments unchanged until the reverse pass (StableCallArgs.h), computes
// again in its reverse pass what follows from those arguments outside its
// loops: sqrt, cos, sin and exp of an angle read again from memory, and,
// after a branch, what follows from the values the branch merged. Its tape
// per call is then its arguments' addresses, the merged values and the
// branch taken. Checked against central differences and by the tape each
// call pushes; where the caller overwrites the memory the helper read, or
// the helper reads a global, those values are kept instead.
// clang-format off
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O2 -ffast-math %s -o %t.fast %adlibs && %t.fast
// RUN: %adcc -O2 -c %s -o %t.o -Rpass=adpass 2>&1 | FileCheck %s
// clang-format on
#include "ad.h"
#include "adcheck.h"
#include <math.h>
#include <string.h>

enum { NP = 4, N = 2 * 3 + 2 * NP };

// Rotates p by the angle |ang| and shifts it: out = R p + ang[0] e^(-t);
// for small angles, to first order.
__attribute__((noinline)) static void rotate(const double *ang,
                                             const double *p, double *out) {
  double t2 = ang[0] * ang[0] + ang[1] * ang[1];
  if (t2 > 0.01) {
    double t = sqrt(t2), c = cos(t), s = sin(t);
    out[0] = c * p[0] - s * p[1] + ang[0] * exp(-t);
    out[1] = s * p[0] + c * p[1];
  } else {
    out[0] = p[0] - ang[1] * p[1] + ang[0];
    out[1] = ang[1] * p[0] + p[1];
  }
}

// v[0..5]: three angles (the third small), v[6..]: NP points.
// CHECK: 'rotated': each call of 'rotate' at line [[@LINE+6]] pushes its tape of 48 bytes
double rotated(const double *v, int np) {
  double s = 0;
  for (int i = 0; i < np; ++i) {
    double o[2];
    // the third angle takes the other branch
    rotate(v + 2 * (i % 3), v + 6 + 2 * i, o);
    s += o[0] * o[0] + log1p(o[1] * o[1]);
  }
  return s;
}

// The caller halves the point after the call: the helper's reads of it
// cannot be repeated, and what follows from them is kept.
// CHECK: 'rotated_then_halved': each call of 'rotate' at line [[@LINE+5]] pushes its tape of 160 bytes
double rotated_then_halved(double *v, int np) {
  double s = 0;
  for (int i = 0; i < np; ++i) {
    double o[2];
    rotate(v + 2 * (i % 3), v + 6 + 2 * i, o);
    v[6 + 2 * i] *= 0.5;
    s += o[0] * o[0] + log1p(o[1] * o[1]) + v[6 + 2 * i];
  }
  return s;
}

double gain = 1.25;
// Reads a global, which callees never read again: its value is kept.
__attribute__((noinline)) static double damped(const double *p) {
  return exp(-p[0] * p[0]) * gain + sin(p[1]);
}

// CHECK: 'damped_sum': each call of 'damped' at line [[@LINE+4]] pushes its tape of 40 bytes
double damped_sum(const double *v, int np) {
  double s = 0;
  for (int i = 0; i < np; ++i) {
    s += damped(v + 6 + 2 * i);
    gain += 0.5;
  }
  gain = 1.25;
  return s;
}

int main(void) {
  volatile int vnp = NP;
  int np = vnp;
  const double v0[N] = {0.3, -0.4, 0.7, 0.2, 0.05, 0.02, 1.1,
                        -0.6, 0.4, 0.9, -1.3, 0.2, 0.5, 0.8};
  AD_CHECK_ARRAY_FN(rotated, N, v0, np);
  {
    // rotated_then_halved changes v: differences from fresh copies.
    double x[N], dx[N] = {0}, w[N];
    memcpy(x, v0, sizeof x);
    __ad_gradient_void(rotated_then_halved, x, dx, np);
    for (int j = 0; j < N; ++j) {
      double xs = v0[j];
      double fd = AD_FD(xs, (memcpy(w, v0, sizeof w), w[j] = xs,
                             rotated_then_halved(w, np)));
      // The shadow of memory f writes holds the cotangent of its initial
      // contents: d/dv of f, plus the seed 0 of the final contents.
      ad_check(ad_fmt("rotated_then_halved d/dv[%d]", j), dx[j], fd, 1e-6,
               1e-8);
    }
  }
  AD_CHECK_ARRAY_FN(damped_sum, N, v0, np);
  return ad_finish();
}
