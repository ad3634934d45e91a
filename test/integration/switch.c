// `switch` on integers computed from the active input: (int)(x*2) with
// shared cases and default, fall-through that accumulates, a negative
// remainder (%), a sum of comparisons, and cases that return early or assign
// a variable used after the switch. At -O2 some become lookup tables or
// select chains. Points cover every case, none near a case boundary.
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O3 %s -o %t.O3 %adlibs && %t.O3

#include "ad.h"
#include "adcheck.h"

double s_basic(double x) {
  int k = (int)(x * 2);
  switch (k) {
  case 0:
    return x * x;
  case 1:
    return 3 * x;
  case 2:
  case 3:
    return x * x * x;
  case -1:
    return -x;
  default:
    return 1 / x;
  }
}

double s_fall(double x) {
  double r = 1;
  switch ((int)(x * 2) & 3) {
  case 3:
    r *= x;
    /* fall through */
  case 2:
    r = r * x + 1;
    /* fall through */
  case 1:
    r = r * x;
    break;
  default:
    r = x + 2;
  }
  return r;
}

double s_mod(double x) {
  int k = (int)(x * 3) % 4; /* -3 .. 3 */
  double y = x * x;
  switch (k) {
  case -3:
  case 3:
    y = y * x;
    break;
  case -2:
    y = -y;
    break;
  case -1:
    y = y + x;
    break;
  case 0:
    break;
  case 1:
    y = x;
    break;
  case 2:
    return y * 2;
  }
  return y + 1;
}

double s_cmpsum(double x) {
  double a = x * 0.5, b = 0;
  switch ((x > 0) + (x > 1) + (x > 2)) {
  case 0:
    b = a * a;
    break;
  case 1:
    b = x;
    break;
  case 2:
    b = a * x * x;
    break;
  case 3:
    b = 4;
    break;
  }
  return a + b;
}

// x*2 and x*3 stay >= 0.1 away from integers at every point.
static volatile double pts[] = {-2.7, -1.45, -1.2, -0.8, -0.55, -0.3,
                                0.2,  0.55,  0.7,  1.2,  1.45,  1.7,
                                2.3,  2.55,  3.1,  3.75};

int main(void) {
  for (unsigned i = 0; i < sizeof pts / sizeof pts[0]; i++) {
    double x = pts[i];
    {
      int k = (int)(x * 2);
      double d = k == 0             ? 2 * x
                 : k == 1           ? 3.0
                 : k == 2 || k == 3 ? 3 * x * x
                 : k == -1          ? -1.0
                                    : -1 / (x * x);
      AD_CHECK1(s_basic, d);
    }
    {
      /* The switch again, carrying the tangent by hand. */
      double r = 1, dr = 0;
      switch ((int)(x * 2) & 3) {
      case 3:
        dr = dr * x + r, r *= x;
        /* fall through */
      case 2:
        dr = dr * x + r, r = r * x + 1;
        /* fall through */
      case 1:
        dr = dr * x + r, r = r * x;
        break;
      default:
        dr = 1;
      }
      AD_CHECK1(s_fall, dr);
    }
    {
      int k = (int)(x * 3) % 4;
      double d = (k == 3 || k == -3) ? 3 * x * x
                 : k == -2           ? -2 * x
                 : k == -1           ? 2 * x + 1
                 : k == 0            ? 2 * x
                 : k == 1            ? 1.0
                                     : 4 * x;
      AD_CHECK1(s_mod, d);
    }
    {
      int n = (x > 0) + (x > 1) + (x > 2);
      double d = n == 0   ? 0.5 + 0.5 * x
                 : n == 1 ? 1.5
                 : n == 2 ? 0.5 + 1.5 * x * x
                          : 0.5;
      AD_CHECK1(s_cmpsum, d);
    }
  }
  return ad_finish();
}
