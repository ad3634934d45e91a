/*===- adcheck.h - checking helpers for the ADPass integration tests ------===*
 *
 * Header-only, static functions only; works in C and C++.
 *
 *   ad_check(what, got, want, rtol, atol)   one comparison; prints
 *                                           "FAIL what: got G want W" if
 *                                           |got-want| > atol + rtol*|want|
 *                                           (or either value is NaN/inf)
 *   ad_deriv(what, got, analytic, fd, tol)  the standard triple check of a
 *                                           derivative: AD vs analytic, AD vs
 *                                           finite difference, and analytic
 *                                           vs finite difference (so a wrong
 *                                           hand formula fails too)
 *   AD_FD(var, expr)                        d(expr)/d(var) by a central
 *                                           4-point (Richardson) stencil;
 *                                           var is a local float/double
 *                                           lvalue, restored afterwards
 *   ad_fd1(f, x), ad_fd1f(f, x)             same for double(double) and
 *                                           float(float) function pointers
 *   ad_deriv_modes(name, f, df, x, g, t)    ad_deriv of a gradient g and a
 *                                           forward derivative t of
 *                                           double(double) f at x
 *   ad_check_ld, ad_deriv_ld, AD_FD_LD      the same in long double (the
 *                                           step about 6e-5 relative)
 *   ad_fmt(fmt, ...)                        printf into a rotating buffer
 *                                           of 8 (ad_deriv uses 3), for
 *                                           check labels: pass it straight
 *                                           to ad_check/ad_deriv
 *   AD_CHECK_GRADIENT(name, n, x0, grad, ev) every component of an array
 *                                           function's gradient against
 *                                           central differences (below)
 *   AD_CHECK_ARRAY_FN(f, n, x0, len)        the same for a function
 *                                           double f(const double *, int)
 *                                           called as f(x, len)
 *   AD_TAPE_PEAK(request)                   the peak tape bytes of one
 *                                           request, run from an empty
 *                                           tape with no cached chunks
 *   ad_finish()                             prints "N checks passed" (or the
 *                                           failure count); returns the exit
 *                                           status: 0 iff nothing failed and
 *                                           at least one check ran
 *
 * The stencil step is a power of two relative to max(|x|, 1/4): about 1e-4
 * relative for double, 1e-2 for float. Keep test points at least 3 steps
 * away from kinks, branch boundaries and domain edges.
 *===----------------------------------------------------------------------===*/
#ifndef ADCHECK_H
#define ADCHECK_H

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The checking code itself must not be affected by -ffast-math. */
#pragma float_control(precise, on, push)

#define AD_UNUSED __attribute__((unused))

typedef struct {
  double rtol, atol;       /* AD (and analytic) vs analytic */
  double fd_rtol, fd_atol; /* anything vs finite differences */
} ad_tol;

/* Derivatives computed in double. */
static const ad_tol AD_TOL_D AD_UNUSED = {1e-9, 1e-12, 1e-6, 1e-8};
/* Derivatives computed in float, compared with formulas evaluated in double
 * and with finite differences of the float function. */
static const ad_tol AD_TOL_F AD_UNUSED = {1e-5, 1e-6, 1e-3, 1e-4};

static int ad_checks_run_ = 0;
static int ad_checks_failed_ = 0;

/* NaN/inf test on the bits, immune to -ffinite-math-only. */
static AD_UNUSED int ad_is_finite(double v) {
  uint64_t b;
  memcpy(&b, &v, sizeof b);
  return ((b >> 52) & 0x7ff) != 0x7ff;
}

static AD_UNUSED const char *ad_fmt(const char *fmt, ...) {
  static char bufs[8][256];
  static unsigned next = 0;
  char *b = bufs[next++ % 8];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(b, sizeof bufs[0], fmt, ap);
  va_end(ap);
  return b;
}

/* noinline and the volatile round trip keep -ffast-math callers from
 * assuming the values are finite. */
static AD_UNUSED __attribute__((noinline)) int
ad_check(const char *what, double got_in, double want_in, double rtol,
         double atol) {
  volatile double got_v = got_in, want_v = want_in;
  double got = got_v, want = want_v;
  int ok = 0;
  double err = 0, tol = 0;
  ad_checks_run_++;
  if (ad_is_finite(got) && ad_is_finite(want)) {
    err = fabs(got - want);
    tol = atol + rtol * fabs(want);
    ok = err <= tol;
  }
  if (!ok) {
    ad_checks_failed_++;
    printf("FAIL %s: got %.17g want %.17g (|err| %.3g, tol %.3g)\n", what, got,
           want, err, tol);
  }
  return ok;
}

static AD_UNUSED void ad_deriv(const char *what, double got, double analytic,
                               double fd, ad_tol t) {
  ad_check(ad_fmt("%s [AD vs analytic]", what), got, analytic, t.rtol, t.atol);
  ad_check(ad_fmt("%s [AD vs FD]", what), got, fd, t.fd_rtol, t.fd_atol);
  ad_check(ad_fmt("%s [analytic vs FD]", what), analytic, fd, t.fd_rtol,
           t.fd_atol);
}

/* Power-of-two step: x0 + k*h is exact for k in -2..2. */
static AD_UNUSED double ad_fd_step(double x, int is_float) {
  double a = fabs(x);
  int e;
  if (a < 0.25)
    a = 0.25;
  frexp(a, &e); /* a = m * 2^e, m in [0.5, 1) */
  return ldexp(1.0, e - (is_float ? 7 : 14));
}

static AD_UNUSED int ad_finish(void) {
  if (ad_checks_failed_) {
    printf("%d of %d checks FAILED\n", ad_checks_failed_, ad_checks_run_);
    return 1;
  }
  if (ad_checks_run_ == 0) {
    printf("no checks ran\n");
    return 1;
  }
  printf("%d checks passed\n", ad_checks_run_);
  return 0;
}

/* long double derivatives: to a few units in the last place of its 64-bit
 * significand, and finite differences to 1e-12, which double's rounding
 * (2e-16 / 6e-5) could not reach. */
static const ad_tol AD_TOL_LD AD_UNUSED = {1e-17, 1e-19, 1e-12, 1e-13};

static AD_UNUSED __attribute__((noinline)) int
ad_check_ld(const char *what, long double got_in, long double want_in,
            long double rtol, long double atol) {
  volatile long double got_v = got_in, want_v = want_in;
  long double got = got_v, want = want_v;
  long double err = fabsl(got - want), tol = atol + rtol * fabsl(want);
  int ok = err <= tol; /* false for NaN */
  ad_checks_run_++;
  if (!ok) {
    ad_checks_failed_++;
    printf("FAIL %s: got %.21Lg want %.21Lg (|err| %.3Lg, tol %.3Lg)\n", what,
           got, want, err, tol);
  }
  return ok;
}

static AD_UNUSED void ad_deriv_ld(const char *what, long double got,
                                  long double analytic, long double fd,
                                  ad_tol t) {
  ad_check_ld(ad_fmt("%s [AD vs analytic]", what), got, analytic, t.rtol,
              t.atol);
  ad_check_ld(ad_fmt("%s [AD vs FD]", what), got, fd, t.fd_rtol, t.fd_atol);
  ad_check_ld(ad_fmt("%s [analytic vs FD]", what), analytic, fd, t.fd_rtol,
              t.fd_atol);
}

/* Power-of-two step about 2^-14 relative to max(|x|, 1/4). */
static AD_UNUSED long double ad_fd_step_ld(long double x) {
  int e;
  frexpl(fabsl(x) < 0.25L ? 0.25L : fabsl(x), &e);
  return ldexpl(1.0L, e - 14);
}

#pragma float_control(pop)

/* AD_FD in long double: var is a long double (or double) lvalue. */
#define AD_FD_LD(var, expr)                                                    \
  __extension__({                                                              \
    long double ad_fd_x0_ = (var);                                             \
    long double ad_fd_h_ = ad_fd_step_ld(ad_fd_x0_);                           \
    long double ad_fd_v_[4];                                                   \
    int ad_fd_i_;                                                              \
    for (ad_fd_i_ = 0; ad_fd_i_ < 4; ad_fd_i_++) {                             \
      static const long double ad_fd_o_[4] = {-2.0L, -1.0L, 1.0L, 2.0L};       \
      (var) = ad_fd_x0_ + ad_fd_o_[ad_fd_i_] * ad_fd_h_;                       \
      ad_fd_v_[ad_fd_i_] = (expr);                                             \
    }                                                                          \
    (var) = ad_fd_x0_;                                                         \
    (ad_fd_v_[0] - 8.0L * ad_fd_v_[1] + 8.0L * ad_fd_v_[2] - ad_fd_v_[3]) /    \
        (12.0L * ad_fd_h_);                                                    \
  })

/* d(expr)/d(var): (f(-2h) - 8 f(-h) + 8 f(h) - f(2h)) / 12h. */
#define AD_FD(var, expr)                                                       \
  __extension__({                                                              \
    double ad_fd_x0_ = (double)(var);                                          \
    double ad_fd_h_ = ad_fd_step(ad_fd_x0_, sizeof(var) == sizeof(float));     \
    double ad_fd_v_[4];                                                        \
    int ad_fd_i_;                                                              \
    for (ad_fd_i_ = 0; ad_fd_i_ < 4; ad_fd_i_++) {                             \
      static const double ad_fd_o_[4] = {-2.0, -1.0, 1.0, 2.0};                \
      (var) = ad_fd_x0_ + ad_fd_o_[ad_fd_i_] * ad_fd_h_;                       \
      ad_fd_v_[ad_fd_i_] = (double)(expr);                                     \
    }                                                                          \
    (var) = ad_fd_x0_;                                                         \
    (ad_fd_v_[0] - 8.0 * ad_fd_v_[1] + 8.0 * ad_fd_v_[2] - ad_fd_v_[3]) /      \
        (12.0 * ad_fd_h_);                                                     \
  })

static AD_UNUSED double ad_fd1(double (*f)(double), double x) {
  return AD_FD(x, f(x));
}

static AD_UNUSED double ad_fd1f(float (*f)(float), float x) {
  return AD_FD(x, f(x));
}

/* Both modes of a double(double) function at x: the gradient and the
 * forward derivative (computed by the caller's requests) against the
 * analytic derivative df and central differences of f. */
static AD_UNUSED void ad_deriv_modes(const char *name, double (*f)(double),
                                     double (*df)(double), double x,
                                     double grad, double tangent) {
  double fd = ad_fd1(f, x);
  ad_deriv(ad_fmt("%s'(%g) reverse", name, x), grad, df(x), fd, AD_TOL_D);
  ad_deriv(ad_fmt("%s'(%g) forward", name, x), tangent, df(x), fd, AD_TOL_D);
}

/* One-variable gradient checks at the point `x` (a double in scope): the
 * plugin's gradient of f against the analytic derivative dfdt and a
 * finite difference, within tol; AD_CHECK1 uses the double tolerance.
 * The macro binds `t` to the point, so dfdt may be written in `t` or `x`;
 * a caller's own variable named `t` would be shadowed.
 * AD_CHECK1F does the same for float functions, in float. */
#define AD_CHECK1_TOL(f, dfdt, tol)                                            \
  do {                                                                         \
    double t = x;                                                              \
    double got_ = __ad_gradient(f, t);                                         \
    double fd_ = AD_FD(t, f(t));                                               \
    ad_deriv(ad_fmt(#f "'(%g)", t), got_, (dfdt), fd_, tol);                   \
  } while (0)

#define AD_CHECK1(f, dfdt) AD_CHECK1_TOL(f, dfdt, AD_TOL_D)

#define AD_CHECK1F(f, dfdt)                                                    \
  do {                                                                         \
    float tf_ = (float)x;                                                      \
    double t = tf_;                                                            \
    float got_ = __ad_gradient_f(f, tf_);                                      \
    double fd_ = AD_FD(tf_, f(tf_));                                           \
    ad_deriv(ad_fmt(#f "'(%g)", t), got_, (dfdt), fd_, AD_TOL_F);              \
  } while (0)

/* The gradient of a function of one array against central differences:
 * binds `x` and `dx` to copies of x0[0..n) and zeroes dx, runs grad_call
 * (an __ad_gradient of x, dx), then compares each dx[j] with the finite
 * difference of eval_on, an expression in `w`: a fresh copy of x0 whose
 * element j is varied. Needs <string.h>. */
#define AD_CHECK_GRADIENT(name, n, x0, grad_call, eval_on)                     \
  do {                                                                         \
    double x[n], dx[n], w[n];                                                  \
    memcpy(x, x0, sizeof x);                                                   \
    memset(dx, 0, sizeof dx);                                                  \
    grad_call;                                                                 \
    for (int j = 0; j < (n); j++) {                                            \
      double xs = (x0)[j];                                                     \
      double fd = AD_FD(xs, (memcpy(w, x0, sizeof w), w[j] = xs, eval_on));   \
      ad_check(ad_fmt("%s d/dx[%d]", name, j), dx[j], fd, 1e-6, 1e-8);         \
    }                                                                          \
  } while (0)

/* AD_CHECK_GRADIENT of `double f(const double *x, int len)` at x0 (n
 * elements), named after f. */
#define AD_CHECK_ARRAY_FN(f, n, x0, len)                                       \
  AD_CHECK_GRADIENT(#f, n, x0, __ad_gradient_void(f, x, dx, len), f(w, len))

/* __ad_tape_peak_bytes() of one request (a statement), run after
 * __ad_tape_release() and __ad_tape_reset_peak(). A statement expression
 * (clang). */
#define AD_TAPE_PEAK(request)                                                  \
  ({                                                                           \
    __ad_tape_release();                                                       \
    __ad_tape_reset_peak();                                                    \
    request;                                                                   \
    __ad_tape_peak_bytes();                                                    \
  })

#endif /* ADCHECK_H */
