// long double (x86_fp80) code differentiated in long double, in both modes:
// the libm functions' long double variants, long double arguments and
// results through the markers (__ad_gradient_ld, __ad_derivative_ld, a
// struct of two long double partials), double functions that compute in
// long double inside (a Kahan-compensated sum), arrays, a struct with a
// long double field, memcpy and memmove of long double arrays, and a
// counted loop whose long double state is kept per iteration, sincosl,
// modfl and frexpl, _Complex long double products and quotients
// (__mulxc3, __divxc3), a long double global, a linearized handle, and
// second derivatives.
// Derivatives are compared, in long double, with formulas and with
// central differences (adcheck.h's AD_TOL_LD: a few units in the last
// place, and 1e-12 for differences, beyond double's reach).
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O3 %s -o %t.O3 %adlibs && %t.O3
// RUN: %adcc -O2 -ffast-math %s -o %t.fm %adlibs && %t.fm

#define _GNU_SOURCE // sincosl
#include "ad.h"
#include "adcheck.h"
#include <complex.h>
#include <math.h>
#include <string.h>

typedef struct {
  long double a, b;
} grad2l;
grad2l __ad_gradient_2l(void *fn, ...) AD_MARKER;
long double __ad_jvp_ld(void *fn, ad_linear *L, ...) AD_MARKER;
grad2l __ad_vjp_2l(void *fn, ad_linear *L, ...) AD_MARKER;

static const long double EulerGamma = 0.577215664901532860606512090082L;

long double sin_x2(long double x) { return sinl(x) * x * x; }
// Its derivative, for second derivatives (reverse over reverse, forward
// over reverse).
long double d_sin_x2(long double x) { return __ad_gradient_ld(sin_x2, x); }

// One long double function per libm function of one argument.
#define UNARY(F)                                                               \
  long double u_##F(long double x) { return F(x); }
UNARY(sinl);
UNARY(cosl);
UNARY(tanl);
UNARY(asinl);
UNARY(acosl);
UNARY(atanl);
UNARY(sinhl);
UNARY(coshl);
UNARY(tanhl);
UNARY(asinhl);
UNARY(acoshl);
UNARY(atanhl);
UNARY(expl);
UNARY(exp2l);
UNARY(expm1l);
UNARY(logl);
UNARY(log2l);
UNARY(log10l);
UNARY(log1pl);
UNARY(sqrtl);
UNARY(cbrtl);
UNARY(fabsl);
UNARY(erfl);
UNARY(erfcl);
UNARY(lgammal);
UNARY(tgammal);

long double b_powl(long double a, long double b) { return powl(a, b); }
long double b_atan2l(long double a, long double b) { return atan2l(a, b); }
long double b_hypotl(long double a, long double b) { return hypotl(a, b); }
long double b_fminl(long double a, long double b) { return fminl(a, b); }
long double b_fmaxl(long double a, long double b) { return fmaxl(a, b); }
long double b_fmodl(long double a, long double b) { return fmodl(a, b); }
long double b_copysignl(long double a, long double b) {
  return copysignl(a, b) * a;
}
long double b_fmal(long double a, long double b) { return fmal(a, b, a * b); }
long double b_ldexpl(long double a, long double b) { return ldexpl(a * b, 3); }

// A double function computing in long double inside.
double mixed(double x) { return (double)((long double)x * x * sinl(x)); }

// Kahan-compensated sum of squares: double data, long double accumulators.
double kahan_squares(const double *a, int n) {
  long double s = 0, c = 0;
  for (int i = 0; i < n; i++) {
    long double y = (long double)a[i] * a[i] - c;
    long double t = s + y;
    c = (t - s) - y;
    s = t;
  }
  return (double)s;
}

// Arrays of long double, copied and moved.
long double copied_cubes(const long double *a, int n) {
  long double b[8];
  memcpy(b, a, n * sizeof *a);
  memmove(b + 1, b, (n - 1) * sizeof *b); // b = a[0], a[0], a[1], ...
  long double s = 0;
  for (int i = 0; i < n; i++)
    s += b[i] * b[i] * a[i];
  return s;
}

typedef struct {
  long double v;
  int n;
  double w;
} tagged;
double tagged_value(const tagged *t) {
  return (double)(t->v * t->v * t->n) + t->w * t->w;
}

// A counted loop carrying long double state: an explicit Euler scheme for
// y' = -k y^2 from y0, 64 steps of size h.
long double euler(long double y0, long double k) {
  long double y = y0, h = 0.01L;
  for (int i = 0; i < 64; i++)
    y = y - h * k * y * y;
  return y;
}

// Library functions with a second output.
long double with_sincos(long double x) {
  long double s, c;
  sincosl(x, &s, &c);
  return s * c * x;
}
long double with_modf(long double x) {
  long double i;
  return modfl(x, &i) * x + i;
}
long double with_frexp(long double x) {
  int e;
  return frexpl(x, &e) * e * x;
}

// (x + 2 x^2 i) (1 + x i) / (x - 3 i), real part plus 3 times the imaginary.
long double complex_ratio(long double x) {
  long double _Complex z = x + 2 * x * x * I, w = 1 + x * I;
  long double _Complex q = z * w / (x - 3 * I);
  return creall(q) + 3 * cimagl(q);
}

long double scale_l = 1.5L;
long double last_l;
long double through_global(long double x) {
  last_l = x * scale_l;
  return last_l * last_l * x;
}

int main(void) {
  ad_tol T = AD_TOL_LD;
  static volatile long double pts[] = {0.3L, 0.55L, 0.8L};
  for (unsigned p = 0; p < sizeof pts / sizeof pts[0]; p++) {
    long double x = pts[p];
    long double want = cosl(x) * x * x + 2 * x * sinl(x);
    ad_deriv_ld(ad_fmt("sin_x2 rev at %Lg", x), __ad_gradient_ld(sin_x2, x),
                want, AD_FD_LD(x, sin_x2(x)), T);
    ad_deriv_ld(ad_fmt("sin_x2 fwd at %Lg", x),
                __ad_derivative_ld(sin_x2, x, 1.0L), want,
                AD_FD_LD(x, sin_x2(x)), T);

    long double second = (2 - x * x) * sinl(x) + 4 * x * cosl(x);
    ad_deriv_ld(ad_fmt("sin_x2'' rev over rev at %Lg", x),
                __ad_gradient_ld(d_sin_x2, x), second, AD_FD_LD(x, d_sin_x2(x)),
                T);
    ad_deriv_ld(ad_fmt("sin_x2'' fwd over rev at %Lg", x),
                __ad_derivative_ld(d_sin_x2, x, 1.0L), second,
                AD_FD_LD(x, d_sin_x2(x)), T);

    long double s = sqrtl(1 - x * x), y = 1 + x; // y for acosh
#define CHECK1(F, ARG, D)                                                      \
  do {                                                                         \
    long double t = (ARG);                                                     \
    long double fd = AD_FD_LD(t, u_##F(t));                                    \
    ad_deriv_ld(ad_fmt(#F " rev at %Lg", t), __ad_gradient_ld(u_##F, t), (D),  \
                fd, T);                                                        \
    ad_deriv_ld(ad_fmt(#F " fwd at %Lg", t),                                   \
                __ad_derivative_ld(u_##F, t, 1.0L), (D), fd, T);               \
  } while (0)
    CHECK1(sinl, x, cosl(x));
    CHECK1(cosl, x, -sinl(x));
    CHECK1(tanl, x, 1 / (cosl(x) * cosl(x)));
    CHECK1(asinl, x, 1 / s);
    CHECK1(acosl, x, -1 / s);
    CHECK1(atanl, x, 1 / (1 + x * x));
    CHECK1(sinhl, x, coshl(x));
    CHECK1(coshl, x, sinhl(x));
    CHECK1(tanhl, x, 1 / (coshl(x) * coshl(x)));
    CHECK1(asinhl, x, 1 / sqrtl(x * x + 1));
    CHECK1(acoshl, y, 1 / sqrtl(y * y - 1));
    CHECK1(atanhl, x, 1 / (1 - x * x));
    CHECK1(expl, x, expl(x));
    CHECK1(exp2l, x, exp2l(x) * 0.693147180559945309417232121458L);
    CHECK1(expm1l, x, expl(x));
    CHECK1(logl, x, 1 / x);
    CHECK1(log2l, x, 1 / (x * 0.693147180559945309417232121458L));
    CHECK1(log10l, x, 1 / (x * 2.30258509299404568401799145468L));
    CHECK1(log1pl, x, 1 / (1 + x));
    CHECK1(sqrtl, x, 0.5L / sqrtl(x));
    CHECK1(cbrtl, x, 1 / (3 * cbrtl(x) * cbrtl(x)));
    CHECK1(fabsl, -x, -1.0L);
    CHECK1(erfl, x, 1.12837916709551257389615890312L * expl(-x * x));
    CHECK1(erfcl, x, -1.12837916709551257389615890312L * expl(-x * x));
  }
  // The gamma function at points where digamma is known exactly:
  // psi(1/2) = -gamma - 2 ln 2, psi(3) = 3/2 - gamma.
  long double psi_half = -EulerGamma - 2 * 0.693147180559945309417232121458L;
  CHECK1(lgammal, 0.5L, psi_half);
  CHECK1(tgammal, 0.5L, sqrtl(3.14159265358979323846264338328L) * psi_half);
  CHECK1(lgammal, 3.0L, 1.5L - EulerGamma);
  CHECK1(tgammal, 3.0L, 2 * (1.5L - EulerGamma));

  long double a = 1.3L, b = 0.7L;
#define CHECK2(F, DA, DB)                                                      \
  do {                                                                         \
    grad2l g = __ad_gradient_2l(b_##F, a, b);                                  \
    ad_deriv_ld(#F " d/da", g.a, (DA), AD_FD_LD(a, b_##F(a, b)), T);           \
    ad_deriv_ld(#F " d/db", g.b, (DB), AD_FD_LD(b, b_##F(a, b)), T);           \
    ad_deriv_ld(#F " fwd", __ad_derivative_ld(b_##F, a, 1.0L, b, 2.0L),        \
                (DA) + 2 * (DB), (DA) + 2 * (DB), T);                          \
  } while (0)
  CHECK2(powl, b * powl(a, b - 1), powl(a, b) * logl(a));
  CHECK2(atan2l, b / (a * a + b * b), -a / (a * a + b * b));
  CHECK2(hypotl, a / hypotl(a, b), b / hypotl(a, b));
  CHECK2(fminl, 0.0L, 1.0L);
  CHECK2(fmaxl, 1.0L, 0.0L);
  CHECK2(fmodl, 1.0L, -1.0L);
  CHECK2(copysignl, 2 * a, 0.0L);
  CHECK2(fmal, 2 * b, 2 * a);
  CHECK2(ldexpl, 8 * b, 8 * a);

  // Long double inside a double function: double's precision at the end.
  ad_tol TD = AD_TOL_D;
  for (double x = 0.4; x < 2; x += 0.5)
    ad_deriv(ad_fmt("mixed at %g", x), __ad_gradient(mixed, x),
             2 * x * sin(x) + x * x * cos(x), AD_FD(x, mixed(x)), TD);

  double d[5] = {0.5, -1.25, 2.0, 3.5, -0.75}, gd[5] = {0};
  __ad_gradient(kahan_squares, d, gd, 5);
  for (int i = 0; i < 5; i++)
    ad_deriv(ad_fmt("kahan d/d[%d]", i), gd[i], 2 * d[i],
             AD_FD(d[i], kahan_squares(d, 5)), TD);
  double fwd = __ad_derivative(kahan_squares, d, gd, 5);
  double want_fwd = 0;
  for (int i = 0; i < 5; i++)
    want_fwd += 2 * d[i] * gd[i];
  ad_check("kahan fwd", fwd, want_fwd, 1e-12, 1e-14);

  long double la[5] = {0.5L, -1.25L, 2.0L, 1.5L, -0.75L}, lg[5] = {0};
  __ad_gradient(copied_cubes, la, lg, 5);
  // s = a0^3 + sum_{i>=1} a_{i-1}^2 a_i.
  for (int i = 0; i < 5; i++) {
    long double before = la[i ? i - 1 : 0];
    long double want = before * before +
                       (i + 1 < 5 ? 2 * la[i] * la[i + 1] : 0) +
                       (i == 0 ? 2 * la[0] * la[0] : 0);
    ad_deriv_ld(ad_fmt("copied_cubes d/da[%d]", i), lg[i], want,
                AD_FD_LD(la[i], copied_cubes(la, 5)), T);
  }
  long double ldir[5] = {1, -2, 0.5L, 3, 0.25L};
  long double lfwd = __ad_derivative_ld(copied_cubes, la, ldir, 5);
  long double lwant = 0;
  for (int i = 0; i < 5; i++)
    lwant += lg[i] * ldir[i];
  ad_check_ld("copied_cubes fwd", lfwd, lwant, T.rtol * 10, T.atol);

  tagged t = {1.75L, 3, 0.5}, dt = {0, 0, 0};
  __ad_gradient(tagged_value, &t, &dt);
  ad_deriv_ld("tagged d/dv", dt.v, 6 * t.v, AD_FD_LD(t.v, tagged_value(&t)),
              AD_TOL_D);
  ad_deriv("tagged d/dw", dt.w, 2 * t.w, AD_FD(t.w, tagged_value(&t)), TD);
  ad_check("tagged n untouched", dt.n, 0, 0, 0);

  // y(N) for y' = -k y^2 has no closed form; differences only, and the
  // two modes against each other.
  long double y0 = 0.9L, k = 1.7L;
  grad2l ge = __ad_gradient_2l(euler, y0, k);
  ad_check_ld("euler d/dy0", ge.a, AD_FD_LD(y0, euler(y0, k)), T.fd_rtol,
              T.fd_atol);
  ad_check_ld("euler d/dk", ge.b, AD_FD_LD(k, euler(y0, k)), T.fd_rtol,
              T.fd_atol);
  ad_check_ld("euler fwd", __ad_derivative_ld(euler, y0, 1.0L, k, 0.0L), ge.a,
              T.rtol * 100, T.atol);

  for (unsigned p = 0; p < sizeof pts / sizeof pts[0]; p++) {
    long double x = pts[p] * 3; // frexpl's exponent is constant near x
    ad_deriv_ld(ad_fmt("sincosl at %Lg", x), __ad_gradient_ld(with_sincos, x),
                (sinl(2 * x) + 2 * x * cosl(2 * x)) / 2,
                AD_FD_LD(x, with_sincos(x)), T);
    ad_deriv_ld(ad_fmt("modfl at %Lg", x),
                __ad_derivative_ld(with_modf, x, 1.0L), 2 * x - truncl(x),
                AD_FD_LD(x, with_modf(x)), T);
    int e;
    frexpl(x, &e);
    ad_deriv_ld(ad_fmt("frexpl at %Lg", x), __ad_gradient_ld(with_frexp, x),
                ldexpl(2 * x, -e) * e, AD_FD_LD(x, with_frexp(x)), T);
    long double fd = AD_FD_LD(x, complex_ratio(x));
    ad_check_ld(ad_fmt("complex_ratio rev at %Lg", x),
                __ad_gradient_ld(complex_ratio, x), fd, T.fd_rtol, T.fd_atol);
    ad_check_ld(ad_fmt("complex_ratio fwd at %Lg", x),
                __ad_derivative_ld(complex_ratio, x, 1.0L),
                __ad_gradient_ld(complex_ratio, x), T.rtol * 10, T.atol);
    ad_deriv_ld(
        ad_fmt("through_global at %Lg", x), __ad_gradient_ld(through_global, x),
        3 * x * x * scale_l * scale_l, AD_FD_LD(x, through_global(x)), T);
  }

  // Linearized once, applied in both directions.
  long double y = 0.4L, fy;
  ad_linear *L = __ad_linearize(b_powl, &fy, a, y);
  ad_check_ld("handle value", fy, powl(a, y), T.rtol, T.atol);
  ad_check_ld("handle jvp", __ad_jvp_ld(b_powl, L, a, 1.0L, y, 0.5L),
              y * powl(a, y - 1) + 0.5L * powl(a, y) * logl(a), T.rtol * 10,
              T.atol);
  grad2l v = __ad_vjp_2l(b_powl, L, 2.0L, a, y);
  ad_check_ld("handle vjp a", v.a, 2 * y * powl(a, y - 1), T.rtol * 10, T.atol);
  ad_check_ld("handle vjp b", v.b, 2 * powl(a, y) * logl(a), T.rtol * 10,
              T.atol);
  ad_linear_free(L);
  return ad_finish();
}
