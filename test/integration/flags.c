// One moderately mixed function (helper with a branch, tanh, exp, sin, pow,
// fabs, fmax, a switch, an inactive int) differentiated in reverse and
// forward mode under many compiler flags: debug info, every -O level,
// fast-math, FP contraction off/fast (fmuladd/fma), no math errno, no
// inlining.
//
// RUN: %adcc -O0 -g %s -o %t.O0g %adlibs && %t.O0g
// RUN: %adcc -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcc -O2 -g %s -o %t.O2g %adlibs && %t.O2g
// RUN: %adcc -O3 %s -o %t.O3 %adlibs && %t.O3
// RUN: %adcc -Os %s -o %t.Os %adlibs && %t.Os
// RUN: %adcc -Oz %s -o %t.Oz %adlibs && %t.Oz
// RUN: %adcc -O2 -ffast-math %s -o %t.fm %adlibs && %t.fm
// RUN: %adcc -O3 -ffast-math -g %s -o %t.O3fmg %adlibs && %t.O3fmg
// RUN: %adcc -O0 -ffast-math %s -o %t.O0fm %adlibs && %t.O0fm
// RUN: %adcc -O2 -ffp-contract=off %s -o %t.nocontract %adlibs && %t.nocontract
// RUN: %adcc -O2 -ffp-contract=fast %s -o %t.contract %adlibs && %t.contract
// RUN: %adcc -O2 -fno-math-errno %s -o %t.noerrno %adlibs && %t.noerrno
// RUN: %adcc -O2 -fno-inline %s -o %t.noinline %adlibs && %t.noinline
// UBSan checks array accesses with llvm.objectsize, an integer query of a
// pointer's object; given memory with derivatives it was an error ("no
// derivative rule") from -O1. Trapping checks need no sanitizer runtime.
// clang-format off
// RUN: %adcc -O2 -fsanitize=undefined -fsanitize-trap=undefined %s -o %t.ubsan %adlibs && %t.ubsan
// RUN: %adcc -O0 -fsanitize=undefined -fsanitize-trap=undefined %s -o %t.ubsan0 %adlibs && %t.ubsan0
// clang-format on
// _FORTIFY_SOURCE (on by default in hardened distribution builds) makes
// memcpy, memset and snprintf of sizes the compiler cannot check calls of
// __memcpy_chk and friends, which were errors (no derivative rule; a
// probe).
// RUN: %adcc -O2 -D_FORTIFY_SOURCE=2 %s -o %t.fortify %adlibs && %t.fortify
// RUN: %adcc -O1 -D_FORTIFY_SOURCE=3 %s -o %t.fortify3 %adlibs && %t.fortify3

#include "ad.h"
#include "adcheck.h"
#include <math.h>
#include <string.h>

typedef struct {
  double dx, dy;
} grad2;
grad2 __ad_gradient_2(void *fn, ...) AD_MARKER;

static double leaky(double v) { return v > 0 ? v : 0.1 * v; }

double model(double x, double y) {
  double a = leaky(x * 1.5 - y);
  double b = tanh(a * y + 0.3);
  double r = a * b + exp(-y * y) * sin(x) + pow(fabs(y) + 1, 1.5) +
             0.25 * fmax(x, y);
  switch ((int)(x * 2) & 1) {
  case 0:
    r += x * y;
    break;
  default:
    r += x / (1 + y * y);
  }
  return r;
}

// A sum of squares through a pointer: array accesses for the sanitizers.
double sumsq(const double *v, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += v[i] * v[i];
  return s;
}

// Copies and clears of run-time sizes, and a message formatted on the way.
double copied_sumsq(const double *v, int n, char *log, int cap) {
  double b[8];
  memset(b, 0, n * sizeof(double));
  memcpy(b, v, n * sizeof(double));
  double s = 0;
  for (int i = 0; i < n; i++)
    s += b[i] * b[i];
  snprintf(log, cap, "n=%d", n);
  return s;
}

// Every point is away from the kinks: 1.5x = y, y = 0, x = y, 2x integer.
static volatile double xy[][2] = {
    {0.7, -0.4}, {-1.2, 0.9}, {1.9, 2.3}, {-0.3, -1.6}, {2.6, 0.35}};

int main(void) {
  for (unsigned i = 0; i < sizeof xy / sizeof xy[0]; i++) {
    double x = xy[i][0], y = xy[i][1], t = 0;
    char at[64];
    snprintf(at, sizeof at, "(%g,%g)", x, y);

    /* the analytic gradient, term by term */
    double u = 1.5 * x - y, s = u > 0 ? 1.0 : 0.1, a = s * u;
    double ax = 1.5 * s, ay = -s;
    double b = tanh(a * y + 0.3), db = 1 - b * b;
    double bx = db * ax * y, by = db * (ay * y + a);
    double e = exp(-y * y);
    double gx = ax * b + a * bx + e * cos(x);
    double gy = ay * b + a * by - 2 * y * e * sin(x) +
                1.5 * sqrt(fabs(y) + 1) * (y < 0 ? -1 : 1);
    if (x > y)
      gx += 0.25;
    else
      gy += 0.25;
    if (((int)(x * 2) & 1) == 0) {
      gx += y;
      gy += x;
    } else {
      gx += 1 / (1 + y * y);
      gy += -2 * x * y / ((1 + y * y) * (1 + y * y));
    }

    double fdx = AD_FD(x, model(x, y)), fdy = AD_FD(y, model(x, y));
    grad2 g = __ad_gradient_2(model, x, y);
    ad_deriv(ad_fmt("model dx %s", at), g.dx, gx, fdx, AD_TOL_D);
    ad_deriv(ad_fmt("model dy %s", at), g.dy, gy, fdy, AD_TOL_D);
    double d = __ad_gradient(model, x, AD_CONST, y);
    ad_deriv(ad_fmt("model dx, y const %s", at), d, gx, fdx, AD_TOL_D);

    double dx = -0.6, dy = 1.3;
    double fdt = AD_FD(t, model(x + t * dx, y + t * dy));
    d = __ad_derivative(model, x, dx, y, dy);
    ad_deriv(ad_fmt("model forward %s", at), d, gx * dx + gy * dy, fdt,
             AD_TOL_D);
  }
  double v[3] = {1, -2, 3}, dv[3] = {0, 0, 0};
  __ad_gradient(sumsq, v, dv, 3);
  for (int i = 0; i < 3; i++)
    ad_check(ad_fmt("sumsq d/dv%d", i), dv[i], 2 * v[i], 0, 0);
  volatile int vn = 3;
  int n = vn;
  char log[16];
  double dc[3] = {0, 0, 0}, tv[3] = {1, 1, 1};
  __ad_gradient(copied_sumsq, v, dc, n, AD_CONST, log, 16);
  for (int i = 0; i < 3; i++)
    ad_check(ad_fmt("copied_sumsq d/dv%d", i), dc[i], 2 * v[i], 0, 0);
  ad_check("copied_sumsq forward",
           __ad_derivative(copied_sumsq, v, tv, n, AD_CONST, log, 16), 4, 0, 0);
  ad_check("copied_sumsq logged", strcmp(log, "n=3") == 0, 1, 0, 0);
  return ad_finish();
}
