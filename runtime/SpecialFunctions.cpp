//===- SpecialFunctions.cpp - derivatives of the gamma function -----------===//
//
// lgamma' = digamma and tgamma' = tgamma * digamma; digamma' = trigamma, for
// second derivatives. libm has neither, so derivative code calls these.
//
// Both use the same scheme: the reflection formula moves x <= 0 to 1 - x,
// the recurrence psi(x) = psi(x + 1) - 1/x (psi1(x) = psi1(x + 1) + 1/x^2)
// moves x up to at least 10 (24 for long double), and there the asymptotic
// series in 1/x^2, truncated after the x^-12 (x^-13) term, is within 1e-16
// (1e-19) of the value.
// tan(pi x) and sin(pi x) are evaluated at x - round(x), which is exact, so
// the reflection keeps full accuracy for large negative x.
//
// At the poles (x = 0, -1, -2, ...) digamma is infinite with opposite signs
// on either side: -inf at +0 (the limit from the right), +inf at -0, NaN at
// negative integers; trigamma is +inf at every pole.
//
//===----------------------------------------------------------------------===//

#include "ad_runtime.h"

#include <cmath>

static const long double Pi = 3.14159265358979323846264338327950288L;

/// Where the asymptotic series is accurate to \p T's precision.
template <typename T> static constexpr T seriesStart() {
  return sizeof(T) > sizeof(double) ? 24 : 10;
}

/// pi / tan(pi x) for x not an integer.
template <typename T> static T piCotPi(T x) {
  T Frac = x - std::nearbyint(x); // exact, in [-0.5, 0.5]
  return T(Pi) / std::tan(T(Pi) * Frac);
}

template <typename T> static T digamma(T x) {
  if (std::isnan(x))
    return x;
  if (x == 0)
    return std::signbit(x) ? INFINITY : -INFINITY;
  T Sum = 0;
  if (x < 0) {
    if (x == std::floor(x))
      return NAN;
    // psi(x) = psi(1 - x) - pi / tan(pi x)
    Sum = -piCotPi(x);
    x = 1 - x;
  }
  if (std::isinf(x))
    return x;
  for (; x < seriesStart<T>(); x += 1)
    Sum -= 1 / x;
  // ln x - 1/2x - sum B_2k / (2k x^2k), k = 1..6
  T R = 1 / (x * x);
  T Series =
      R *
      (T(1) / 12 -
       R * (T(1) / 120 -
            R * (T(1) / 252 -
                 R * (T(1) / 240 - R * (T(1) / 132 - R * (T(691) / 32760))))));
  return Sum + std::log(x) - T(0.5) / x - Series;
}

template <typename T> static T trigamma(T x) {
  if (std::isnan(x))
    return x;
  T Sum = 0;
  T Sign = 1;
  if (x <= 0) {
    if (x == std::floor(x))
      return INFINITY;
    // psi1(x) = pi^2 / sin^2(pi x) - psi1(1 - x)
    T S = std::sin(T(Pi) * (x - std::nearbyint(x)));
    Sum = T(Pi) * T(Pi) / (S * S);
    Sign = -1;
    x = 1 - x;
  }
  if (std::isinf(x))
    return Sum; // psi1(+inf) = 0
  T Tail = 0;
  for (; x < seriesStart<T>(); x += 1)
    Tail += 1 / (x * x);
  // 1/x + 1/2x^2 + sum B_2k / x^(2k+1), k = 1..6
  T R = 1 / (x * x);
  T Series =
      1 / x + T(0.5) * R +
      R / x *
          (T(1) / 6 -
           R * (T(1) / 30 -
                R * (T(1) / 42 -
                     R * (T(1) / 30 - R * (T(5) / 66 - R * (T(691) / 2730))))));
  return Sum + Sign * (Tail + Series);
}

extern "C" double __ad_digamma(double x) { return digamma(x); }
extern "C" double __ad_trigamma(double x) { return trigamma(x); }
extern "C" float __ad_digammaf(float x) { return (float)__ad_digamma(x); }
extern "C" float __ad_trigammaf(float x) { return (float)__ad_trigamma(x); }
extern "C" long double __ad_digammal(long double x) { return digamma(x); }
extern "C" long double __ad_trigammal(long double x) { return trigamma(x); }
