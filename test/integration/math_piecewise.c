// Piecewise-constant functions floor ceil round trunc (double and float):
// derivative zero on their own, but their values still scale other active
// terms (x*floor(x) has derivative floor(x)), and x - floor(x) has slope 1.
// Points are away from integers and half-integers (also for 2x and 3x).
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O0 -ffast-math %s -o %t.fm0 %adlibs && %t.fm0
// RUN: %adcc -O2 -ffast-math %s -o %t.fm %adlibs && %t.fm

#include "ad.h"
#include "adcheck.h"
#include <math.h>

double p_floor(double x) { return floor(x); }
double p_ceil(double x) { return ceil(x); }
double p_round(double x) { return round(x); }
double p_trunc(double x) { return trunc(x); }
double p_mix(double x) { return x * floor(x) + ceil(2 * x) * x; }
double p_round3(double x) { return round(x * 3) / 3 + x * trunc(x); }
double p_frac(double x) { return x - floor(x); }
double p_dist(double x) { return (x - round(x)) * (x - round(x)); }

float pf_floor(float x) { return floorf(x); }
float pf_ceil(float x) { return ceilf(x); }
float pf_round(float x) { return roundf(x); }
float pf_trunc(float x) { return truncf(x); }
float pf_mix(float x) { return x * floorf(x) + ceilf(2 * x) * x; }
float pf_frac(float x) { return x - floorf(x) + truncf(x * 2) * x; }

static volatile double pts[] = {-3.35, -2.68, -1.68, -1.33, -0.92, -0.62,
                                -0.32, 0.1,   0.38,  0.66,  1.09,  1.37,
                                1.63,  2.32,  2.65,  3.68};

int main(void) {
  for (unsigned i = 0; i < sizeof pts / sizeof pts[0]; i++) {
    double x = pts[i];
    AD_CHECK1(p_floor, 0.0);
    AD_CHECK1(p_ceil, 0.0);
    AD_CHECK1(p_round, 0.0);
    AD_CHECK1(p_trunc, 0.0);
    AD_CHECK1(p_mix, floor(t) + ceil(2 * t));
    AD_CHECK1(p_round3, trunc(t));
    AD_CHECK1(p_frac, 1.0);
    AD_CHECK1(p_dist, 2 * (t - round(t)));

    AD_CHECK1F(pf_floor, 0.0);
    AD_CHECK1F(pf_ceil, 0.0);
    AD_CHECK1F(pf_round, 0.0);
    AD_CHECK1F(pf_trunc, 0.0);
    AD_CHECK1F(pf_mix, floor(t) + ceil(2 * t));
    AD_CHECK1F(pf_frac, 1 + trunc(t * 2));
  }
  return ad_finish();
}
