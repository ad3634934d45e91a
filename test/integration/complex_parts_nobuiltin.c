// With -fno-builtin (or -ffreestanding) creal and cimag are calls, which had
// no rule: taking the real part of a complex value was an error (found by
// a probe).
// RUN: %adcc -O0 -fno-builtin %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 -fno-builtin %s -o %t.O2 %adlibs && %t.O2
#include "ad.h"
#include "adcheck.h"
#include <complex.h>

// re + im of (a + b i)^2 = a^2 - b^2 + 2ab.
double square_parts(double a, double b) {
  double _Complex z = a + b * I;
  z = z * z;
  return creal(z) + cimag(z);
}

typedef struct {
  double da, db;
} grad2;
grad2 __ad_gradient_2(void *, ...) AD_MARKER;

int main(void) {
  grad2 g = __ad_gradient_2(square_parts, 0.7, 0.5);
  ad_check("d/da", g.da, 2 * 0.7 + 2 * 0.5, 1e-15, 0);
  ad_check("d/db", g.db, -2 * 0.5 + 2 * 0.7, 1e-15, 0);
  ad_check("forward", __ad_derivative(square_parts, 0.7, 1.0, 0.5, 0.0),
           2 * 0.7 + 2 * 0.5, 1e-15, 0);
  return ad_finish();
}
