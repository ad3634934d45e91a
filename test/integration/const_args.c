// Inactive arguments: AD_CONST before a double (first, middle, last, several
// at once, one holding the same value as an active argument, one deciding a
// branch), AD_CONST before a float; integer arguments of every width (int,
// short, signed char, unsigned, long long, _Bool; promoted through "...")
// before, between and after active ones; a request with no active argument
// at all (void marker).
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O2 -ffast-math %s -o %t.fm %adlibs && %t.fm

#include "ad.h"
#include "adcheck.h"
#include <math.h>

typedef struct {
  double dx, dz;
} grad2;
grad2 __ad_gradient_2(void *fn, ...) AD_MARKER;

double c1(double x, double y) { return x * x * y + sin(y) * x; }
double c3(double x, double y, double z) { return x * y + y * z * z + x / z; }
double c4(double a, double b, double c, double d) {
  return a * b * c * d + a + d;
}
double cself(double x, double y) { return x * y + y; }
double cbranch(double x, double y) { return y > 0 ? x * y : x - y; }
double cfloat(double x, float w) { return x * w + w * w; }
double cint(double x, int n) {
  if (n > 2)
    return x * x * n;
  return x * (n + 1) - n;
}
double cfirst(int n, double x) { return x * x * x * n; }
double cwidths(short s, double x, signed char c, unsigned u, long long k,
               _Bool b) {
  double r = x * s + x * x * c + u + (double)k * x;
  return b ? r * x : r;
}

static volatile double xs[] = {-1.7, -0.45, 0.6, 2.3};
static volatile double ys[] = {-1.2, 0.8, 1.9};
static volatile int ns[] = {-2, 0, 1, 3, 7};

int main(void) {
  for (unsigned i = 0; i < sizeof xs / sizeof xs[0]; i++) {
    for (unsigned j = 0; j < sizeof ys / sizeof ys[0]; j++) {
      double x = xs[i], y = ys[j], z = 0.7 + y * y, got, fd;
      char at[64];
      snprintf(at, sizeof at, "(%g,%g)", x, y);

      got = __ad_gradient(c1, x, AD_CONST, y);
      fd = AD_FD(x, c1(x, y));
      ad_deriv(ad_fmt("c1 d/dx, y const %s", at), got, 2 * x * y + sin(y), fd, AD_TOL_D);
      got = __ad_gradient(c1, AD_CONST, x, y);
      fd = AD_FD(y, c1(x, y));
      ad_deriv(ad_fmt("c1 d/dy, x const %s", at), got, x * x + cos(y) * x, fd, AD_TOL_D);

      grad2 g = __ad_gradient_2(c3, x, AD_CONST, y, z);
      fd = AD_FD(x, c3(x, y, z));
      ad_deriv(ad_fmt("c3 d/dx, y const %s", at), g.dx, y + 1 / z, fd, AD_TOL_D);
      fd = AD_FD(z, c3(x, y, z));
      ad_deriv(ad_fmt("c3 d/dz, y const %s", at), g.dz, 2 * y * z - x / (z * z), fd,
               AD_TOL_D);

      double a = x, b = y, c = z, d = x - y;
      got = __ad_gradient(c4, AD_CONST, a, AD_CONST, b, c, AD_CONST, d);
      fd = AD_FD(c, c4(a, b, c, d));
      ad_deriv(ad_fmt("c4 d/dc, rest const %s", at), got, a * b * d, fd, AD_TOL_D);
      got = __ad_gradient(c4, AD_CONST, a, AD_CONST, b, AD_CONST, c, d);
      fd = AD_FD(d, c4(a, b, c, d));
      ad_deriv(ad_fmt("c4 d/dd, rest const %s", at), got, a * b * c + 1, fd, AD_TOL_D);

      // The constant argument holds the same value as the active one: it
      // still contributes nothing.
      double xc = x;
      got = __ad_gradient(cself, x, AD_CONST, x);
      fd = AD_FD(x, cself(x, xc));
      ad_deriv(ad_fmt("cself d/dx, y=x const %s", at), got, xc, fd, AD_TOL_D);

      got = __ad_gradient(cbranch, x, AD_CONST, y);
      fd = AD_FD(x, cbranch(x, y));
      ad_deriv(ad_fmt("cbranch d/dx %s", at), got, y > 0 ? y : 1.0, fd, AD_TOL_D);

      float w = (float)y;
      got = __ad_gradient(cfloat, x, AD_CONST, w);
      fd = AD_FD(x, cfloat(x, w));
      ad_deriv(ad_fmt("cfloat d/dx, w const %s", at), got, (double)w, fd, AD_TOL_D);
    }

    for (unsigned j = 0; j < sizeof ns / sizeof ns[0]; j++) {
      double x = xs[i], got, fd;
      int n = ns[j];
      got = __ad_gradient(cint, x, n);
      fd = AD_FD(x, cint(x, n));
      ad_deriv(ad_fmt("cint d/dx (%g, n=%d)", x, n), got,
               n > 2 ? 2 * x * n : (double)(n + 1), fd, AD_TOL_D);
      got = __ad_gradient(cfirst, n, x);
      fd = AD_FD(x, cfirst(n, x));
      ad_deriv(ad_fmt("cfirst d/dx (n=%d, %g)", n, x), got, 3.0 * x * x * n, fd, AD_TOL_D);

      short s = (short)(n - 4);
      signed char c = (signed char)(2 * n + 1);
      unsigned u = (unsigned)(n + 9);
      long long k = (long long)n * 3 - 1;
      _Bool b = (n & 1) != 0;
      got = __ad_gradient(cwidths, s, x, c, u, k, b);
      fd = AD_FD(x, cwidths(s, x, c, u, k, b));
      double r = x * s + x * x * c + u + (double)k * x, dr = s + 2 * x * c + (double)k;
      ad_deriv(ad_fmt("cwidths d/dx (%g, n=%d)", x, n), got, b ? dr * x + r : dr, fd,
               AD_TOL_D);
    }
  }

  // No active argument: allowed, the value is meaningless (void marker).
  {
    volatile double vx = 1.25, vy = -0.5;
    double x = vx, y = vy;
    __ad_gradient_void(c1, AD_CONST, x, AD_CONST, y);
    ad_check("no-active request leaves inputs alone", x + y, 0.75, 0, 0);
  }
  return ad_finish();
}
