// The sign bit of a double flipped or cleared through memcpy into a
// uint64_t: from -O1 the prepared copy computes these as fneg and fabs
// (the same bits), which have derivatives. (At -O0 the integer load of
// the double's bytes stays an error: diagnostics/unsupported-constructs.c
// has other bits changed, an error at every level.)
// RUN: %adcc -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
#include "ad.h"
#include "adcheck.h"
#include <stdint.h>
#include <string.h>

// (-x)^3: the derivative is -3 x^2.
double flipped_cube(double *x) {
  uint64_t u;
  memcpy(&u, x, 8);
  u ^= 1ULL << 63;
  double d;
  memcpy(&d, &u, 8);
  return d * d * d;
}

// |x|^3: the derivative is 3 x |x|.
double cleared_cube(double *x) {
  uint64_t u;
  memcpy(&u, x, 8);
  u &= ~(1ULL << 63);
  double d;
  memcpy(&d, &u, 8);
  return d * d * d;
}

int main(void) {
  double points[] = {-0.7, 1.3};
  for (int k = 0; k < 2; k++) {
    double x = points[k], g = 0, h = 0;
    __ad_gradient_void(flipped_cube, &x, &g);
    __ad_gradient_void(cleared_cube, &x, &h);
    ad_deriv(ad_fmt("flip at %g", x), g, -3 * x * x,
             AD_FD(x, flipped_cube(&x)), AD_TOL_D);
    ad_deriv(ad_fmt("clear at %g", x), h, 3 * x * fabs(x),
             AD_FD(x, cleared_cube(&x)), AD_TOL_D);
  }
  return ad_finish();
}
