//===- SpecialFunctions.cpp - derivatives of the gamma function -----------===//
//
// lgamma' = digamma and tgamma' = tgamma * digamma; digamma' = trigamma, for
// second derivatives. libm has neither, so derivative code calls these.
//
// Both use the same scheme: the reflection formula moves x <= 0 to 1 - x,
// the recurrence psi(x) = psi(x + 1) - 1/x (psi1(x) = psi1(x + 1) + 1/x^2)
// moves x up to at least 10, and there the asymptotic series in 1/x^2,
// truncated after the x^-12 (x^-13) term, is within 1e-16 of the value.
// tan(pi x) and sin(pi x) are evaluated at x - round(x), which is exact, so
// the reflection keeps full accuracy for large negative x.
//
// At the poles (x = 0, -1, -2, ...) digamma is infinite with opposite signs
// on either side: -inf at +0 (the limit from the right), +inf at -0, NaN at
// negative integers; trigamma is +inf at every pole.
//
//===----------------------------------------------------------------------===//

#include "ad_runtime.h"

#include <math.h>

static const double Pi = 3.14159265358979323846264338327950288;

/// pi / tan(pi x) for x not an integer.
static double piCotPi(double x) {
  double Frac = x - nearbyint(x); // exact, in [-0.5, 0.5]
  return Pi / tan(Pi * Frac);
}

extern "C" double __ad_digamma(double x) {
  if (isnan(x))
    return x;
  if (x == 0)
    return signbit(x) ? INFINITY : -INFINITY;
  double Sum = 0;
  if (x < 0) {
    if (x == floor(x))
      return NAN;
    // psi(x) = psi(1 - x) - pi / tan(pi x)
    Sum = -piCotPi(x);
    x = 1 - x;
  }
  if (isinf(x))
    return x;
  for (; x < 10; x += 1)
    Sum -= 1 / x;
  // ln x - 1/2x - sum B_2k / (2k x^2k), k = 1..6
  double R = 1 / (x * x);
  double Series =
      R * (1.0 / 12 -
           R * (1.0 / 120 -
                R * (1.0 / 252 -
                     R * (1.0 / 240 - R * (1.0 / 132 - R * (691.0 / 32760))))));
  return Sum + log(x) - 0.5 / x - Series;
}

extern "C" double __ad_trigamma(double x) {
  if (isnan(x))
    return x;
  double Sum = 0;
  double Sign = 1;
  if (x <= 0) {
    if (x == floor(x))
      return INFINITY;
    // psi1(x) = pi^2 / sin^2(pi x) - psi1(1 - x)
    double S = sin(Pi * (x - nearbyint(x)));
    Sum = Pi * Pi / (S * S);
    Sign = -1;
    x = 1 - x;
  }
  if (isinf(x))
    return Sum; // psi1(+inf) = 0
  double Tail = 0;
  for (; x < 10; x += 1)
    Tail += 1 / (x * x);
  // 1/x + 1/2x^2 + sum B_2k / x^(2k+1), k = 1..6
  double R = 1 / (x * x);
  double Series =
      1 / x + 0.5 * R +
      R / x *
          (1.0 / 6 -
           R * (1.0 / 30 -
                R * (1.0 / 42 -
                     R * (1.0 / 30 - R * (5.0 / 66 - R * (691.0 / 2730))))));
  return Sum + Sign * (Tail + Series);
}

extern "C" float __ad_digammaf(float x) { return (float)__ad_digamma(x); }
extern "C" float __ad_trigammaf(float x) { return (float)__ad_trigamma(x); }
