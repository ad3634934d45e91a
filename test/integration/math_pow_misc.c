// pow (both arguments active; constant, AD_CONST and integer exponents with
// negative bases; constant base; x^2 at 0), __builtin_powi / llvm.powi
// (constant and runtime exponents, including negative and zero), hypot
// (also at the origin), ldexp (also at 0), scalbn, remainder, remquo, fdim, fabs, fmin, fmax, fma (3-field results), copysign and erf; double and
// float variants. Points avoid kinks (fabs at 0, fmin/fmax ties, copysign
// sign changes).
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O0 -ffast-math %s -o %t.fm0 %adlibs && %t.fm0
// RUN: %adcc -O2 -ffast-math %s -o %t.fm %adlibs && %t.fm
// RUN: %adcc -O2 -fno-math-errno %s -o %t.ne %adlibs && %t.ne

#include "ad.h"
#include "adcheck.h"
#include <math.h>

typedef struct {
  double dx, dy;
} grad2;
typedef struct {
  double dx, dy, dz;
} grad3; /* returned through sret */
typedef struct {
  float dx, dy;
} grad2f;
typedef struct {
  float dx, dy, dz;
} grad3f; /* returned as { <2 x float>, float } */
grad2 __ad_gradient_2(void *fn, ...) AD_MARKER;
grad3 __ad_gradient_3(void *fn, ...) AD_MARKER;
grad2f __ad_gradient_2f(void *fn, ...) AD_MARKER;
grad3f __ad_gradient_3f(void *fn, ...) AD_MARKER;

double m_pow(double x, double y) { return pow(x, y); }
double m_pow3(double x) { return pow(x, 3.0); }
double m_pow_neg(double x) { return pow(x, -2.0); }
double m_pow_half(double x) { return pow(x, 0.5); }
double m_pow_base(double x) { return pow(2.5, x); }
double m_pow_sq(double x) { return pow(x, 2.0); }
double m_pow_int(double x, int n) { return pow(x, (double)n); }
double m_powi(double x, int n) { return __builtin_powi(x, n); }
double m_powi4(double x) { return __builtin_powi(x, 4); }
double m_powi_neg(double x) { return __builtin_powi(x, -3); }
double m_hypot(double x, double y) { return hypot(x, y); }
double m_ldexp(double x, int n) { return ldexp(x, n); }
double m_scalbn(double x, int n) { return scalbn(x, n); }
double m_remainder(double x, double y) { return remainder(x, y); }
double m_fdim(double x, double y) { return fdim(x, y); }
float mf_remainder(float x, float y) { return remainderf(x, y); }
// remquo: remainder's value, and low bits of n through the pointer.
double m_remquo(double x, double y) {
  int q;
  double r = remquo(x, y, &q);
  return r + 0.125 * q * x;
}
float mf_remquo(float x, float y) {
  int q;
  float r = remquof(x, y, &q);
  return r + 0.125f * q * x;
}
float mf_fdim(float x, float y) { return fdimf(x, y); }
double m_fabs(double x) { return fabs(x); }
double m_fabs_mul(double x) { return fabs(x) * x; }
double m_fabs_expr(double x) { return fabs(x * x - 2); }
double m_fmin(double x, double y) { return fmin(x, y); }
double m_fmax(double x, double y) { return fmax(x, y); }
double m_fminmax1(double x) { return fmin(x * x, 1.0) + fmax(x, -0.5); }
double m_fma(double x, double y, double z) { return fma(x, y, z); }
double m_fma1(double x) { return fma(x, x, x); }
double m_copysign(double x, double y) { return copysign(x, y); }
double m_copysign1(double x) { return copysign(x * x + 1, x - 0.5); }
double m_erf(double x) { return erf(x); }
double m_erf_comp(double x) { return erf(x / sqrt(2.0)) * x; }

float mf_pow(float x, float y) { return powf(x, y); }
float mf_pow3(float x) { return powf(x, 3.0f); }
float mf_powi(float x, int n) { return __builtin_powif(x, n); }
float mf_hypot(float x, float y) { return hypotf(x, y); }
float mf_ldexp(float x, int n) { return ldexpf(x, n); }
float mf_fabs_mul(float x) { return fabsf(x) * x; }
float mf_fmin(float x, float y) { return fminf(x, y); }
float mf_fmax(float x, float y) { return fmaxf(x, y); }
float mf_fma(float x, float y, float z) { return fmaf(x, y, z); }
float mf_copysign1(float x) { return copysignf(x * x + 1, x - 0.5f); }
float mf_erf(float x) { return erff(x); }

// Away from 0, +-1, -0.5, 0.5 and +-sqrt(2).
static volatile double pts[] = {-2.3, -1.1, -0.6, 0.45, 1.2, 2.2};
static volatile double pos[] = {0.3, 0.8, 1.6, 3.2};
static volatile double pow_xy[][2] = {
    {1.3, 2.5}, {0.4, -1.7}, {2.2, 0.3}, {3.0, -0.5}, {0.7, 4.2}};
static volatile double hyp_xy[][2] = {
    {3.0, 4.0}, {-1.2, 0.5}, {0.3, -2.2}, {-1.0, -1.5}};
// No ties, no sign changes nearby.
static volatile double mm_xy[][2] = {
    {1.5, -0.5}, {-0.3, 0.8}, {2.0, 2.6}, {-1.7, -2.9}};
static volatile double fma_xyz[][3] = {
    {1.5, -0.5, 0.25}, {-0.3, 0.8, 2.0}, {2.0, 2.6, -1.0}};
static volatile int powi_n[] = {3, -2, 0, 1, 5};

static double sgn(double v) { return v < 0 ? -1.0 : 1.0; }

int main(void) {
  const double two_over_sqrtpi = 1.1283791670955126;
  for (unsigned i = 0; i < sizeof pts / sizeof pts[0]; i++) {
    double x = pts[i];
    AD_CHECK1(m_pow3, 3 * t * t);
    AD_CHECK1(m_pow_neg, -2 / (t * t * t));
    AD_CHECK1(m_pow_base, pow(2.5, t) * log(2.5));
    AD_CHECK1(m_pow_sq, 2 * t);
    AD_CHECK1(m_powi4, 4 * t * t * t);
    AD_CHECK1(m_powi_neg, -3 / (t * t * t * t));
    AD_CHECK1(m_fabs, sgn(t));
    AD_CHECK1(m_fabs_mul, 2 * fabs(t));
    AD_CHECK1(m_fabs_expr, sgn(t * t - 2) * 2 * t);
    AD_CHECK1(m_fminmax1, (t * t < 1 ? 2 * t : 0.0) + (t > -0.5 ? 1.0 : 0.0));
    AD_CHECK1(m_fma1, 2 * t + 1);
    AD_CHECK1(m_copysign1, sgn(t - 0.5) * 2 * t);
    AD_CHECK1(m_erf, two_over_sqrtpi * exp(-t * t));
    AD_CHECK1(m_erf_comp, erf(t / sqrt(2.0)) +
                           t * two_over_sqrtpi * exp(-t * t / 2) / sqrt(2.0));

    AD_CHECK1F(mf_pow3, 3 * t * t);
    AD_CHECK1F(mf_fabs_mul, 2 * fabs(t));
    AD_CHECK1F(mf_copysign1, sgn(t - 0.5) * 2 * t);
    AD_CHECK1F(mf_erf, two_over_sqrtpi * exp(-t * t));

    // Runtime integer exponents (inactive int argument).
    for (unsigned j = 0; j < sizeof powi_n / sizeof powi_n[0]; j++) {
      int n = powi_n[j];
      double t = x;
      double want = n == 0 ? 0.0 : n * pow(t, n - 1);
      double got = __ad_gradient(m_powi, t, n);
      double fd = AD_FD(t, m_powi(t, n));
      ad_deriv(ad_fmt("powi'(%g, n=%d)", t, n), got, want, fd, AD_TOL_D);
      got = __ad_gradient(m_pow_int, t, n);
      fd = AD_FD(t, m_pow_int(t, n));
      ad_deriv(ad_fmt("pow'(%g, (double)%d)", t, n), got, want, fd, AD_TOL_D);

      float tf = (float)x;
      double td = tf;
      float gotf = __ad_gradient_f(mf_powi, tf, n);
      double fdf = AD_FD(tf, mf_powi(tf, n));
      ad_deriv(ad_fmt("powif'(%g, n=%d)", td, n), gotf,
               n == 0 ? 0.0 : n * pow(td, n - 1), fdf, AD_TOL_F);
    }
    // Exponent held constant with AD_CONST: no log of a negative base.
    {
      double t = x, e = 3.0;
      double got = __ad_gradient(m_pow, t, AD_CONST, e);
      double fd = AD_FD(t, m_pow(t, e));
      ad_deriv(ad_fmt("pow'(%g, const 3)", t), got, 3 * t * t, fd, AD_TOL_D);
    }
  }
  {
    // d/dx pow(x, 2) at exactly 0 is 0 (not 2 * pow(0, 2) / 0).
    volatile double zero = 0.0;
    double x = zero;
    AD_CHECK1(m_pow_sq, 2 * t);
    AD_CHECK1(m_powi4, 4 * t * t * t);
  }
  for (unsigned i = 0; i < sizeof pos / sizeof pos[0]; i++) {
    double x = pos[i];
    AD_CHECK1(m_pow_half, 0.5 / sqrt(t));
  }
  for (unsigned i = 0; i < sizeof pow_xy / sizeof pow_xy[0]; i++) {
    double x = pow_xy[i][0], y = pow_xy[i][1];
    grad2 g = __ad_gradient_2(m_pow, x, y);
    double fdx = AD_FD(x, m_pow(x, y)), fdy = AD_FD(y, m_pow(x, y));
    ad_deriv(ad_fmt("d pow/dx (%g,%g)", x, y), g.dx, y * pow(x, y - 1), fdx, AD_TOL_D);
    ad_deriv(ad_fmt("d pow/dy (%g,%g)", x, y), g.dy, pow(x, y) * log(x), fdy, AD_TOL_D);

    float xf = (float)x, yf = (float)y;
    double xd = xf, yd = yf;
    grad2f gf = __ad_gradient_2f(mf_pow, xf, yf);
    fdx = AD_FD(xf, mf_pow(xf, yf));
    fdy = AD_FD(yf, mf_pow(xf, yf));
    ad_deriv(ad_fmt("d powf/dx (%g,%g)", xd, yd), gf.dx, yd * pow(xd, yd - 1), fdx, AD_TOL_F);
    ad_deriv(ad_fmt("d powf/dy (%g,%g)", xd, yd), gf.dy, pow(xd, yd) * log(xd), fdy, AD_TOL_F);
  }
  {
    // Both arguments active at a negative base and an integer exponent:
    // forward mode with a zero exponent tangent is d/da (it was NaN: the
    // exponent's term was 0 * (a^b ln a), ln a NaN). Reverse mode's d/db
    // is a^b ln|a| there (docs/math.md).
    volatile double a = -1.5, b = 2.0;
    ad_check("forward d pow/da at (-1.5, 2)",
             __ad_derivative(m_pow, a, 1.0, b, 0.0), -3.0, 1e-15, 0);
    grad2 g = __ad_gradient_2(m_pow, a, b);
    ad_check("d pow/da at (-1.5, 2)", g.dx, -3.0, 1e-15, 0);
    ad_check("d pow/db at (-1.5, 2)", g.dy, 2.25 * log(1.5), 1e-15, 0);
  }
  for (unsigned i = 0; i < sizeof hyp_xy / sizeof hyp_xy[0]; i++) {
    double x = hyp_xy[i][0], y = hyp_xy[i][1], h = sqrt(x * x + y * y);
    grad2 g = __ad_gradient_2(m_hypot, x, y);
    double fdx = AD_FD(x, m_hypot(x, y)), fdy = AD_FD(y, m_hypot(x, y));
    ad_deriv(ad_fmt("d hypot/dx (%g,%g)", x, y), g.dx, x / h, fdx, AD_TOL_D);
    ad_deriv(ad_fmt("d hypot/dy (%g,%g)", x, y), g.dy, y / h, fdy, AD_TOL_D);

    float xf = (float)x, yf = (float)y;
    double xd = xf, yd = yf, hd = sqrt(xd * xd + yd * yd);
    grad2f gf = __ad_gradient_2f(mf_hypot, xf, yf);
    fdx = AD_FD(xf, mf_hypot(xf, yf));
    fdy = AD_FD(yf, mf_hypot(xf, yf));
    ad_deriv(ad_fmt("d hypotf/dx (%g,%g)", xd, yd), gf.dx, xd / hd, fdx, AD_TOL_F);
    ad_deriv(ad_fmt("d hypotf/dy (%g,%g)", xd, yd), gf.dy, yd / hd, fdy, AD_TOL_F);
  }
  for (unsigned i = 0; i < sizeof mm_xy / sizeof mm_xy[0]; i++) {
    double x = mm_xy[i][0], y = mm_xy[i][1];
    int xl = x < y;
    grad2 g = __ad_gradient_2(m_fmin, x, y);
    double fdx = AD_FD(x, m_fmin(x, y)), fdy = AD_FD(y, m_fmin(x, y));
    ad_deriv(ad_fmt("d fmin/dx (%g,%g)", x, y), g.dx, xl ? 1.0 : 0.0, fdx, AD_TOL_D);
    ad_deriv(ad_fmt("d fmin/dy (%g,%g)", x, y), g.dy, xl ? 0.0 : 1.0, fdy, AD_TOL_D);
    g = __ad_gradient_2(m_fmax, x, y);
    fdx = AD_FD(x, m_fmax(x, y));
    fdy = AD_FD(y, m_fmax(x, y));
    ad_deriv(ad_fmt("d fmax/dx (%g,%g)", x, y), g.dx, xl ? 0.0 : 1.0, fdx, AD_TOL_D);
    ad_deriv(ad_fmt("d fmax/dy (%g,%g)", x, y), g.dy, xl ? 1.0 : 0.0, fdy, AD_TOL_D);
    g = __ad_gradient_2(m_copysign, x, y);
    fdx = AD_FD(x, m_copysign(x, y));
    fdy = AD_FD(y, m_copysign(x, y));
    ad_deriv(ad_fmt("d copysign/dx (%g,%g)", x, y), g.dx, sgn(x) * sgn(y), fdx, AD_TOL_D);
    ad_deriv(ad_fmt("d copysign/dy (%g,%g)", x, y), g.dy, 0.0, fdy, AD_TOL_D);

    float xf = (float)x, yf = (float)y;
    grad2f gf = __ad_gradient_2f(mf_fmin, xf, yf);
    fdx = AD_FD(xf, mf_fmin(xf, yf));
    fdy = AD_FD(yf, mf_fmin(xf, yf));
    ad_deriv(ad_fmt("d fminf/dx (%g,%g)", x, y), gf.dx, xl ? 1.0 : 0.0, fdx, AD_TOL_F);
    ad_deriv(ad_fmt("d fminf/dy (%g,%g)", x, y), gf.dy, xl ? 0.0 : 1.0, fdy, AD_TOL_F);
    gf = __ad_gradient_2f(mf_fmax, xf, yf);
    fdx = AD_FD(xf, mf_fmax(xf, yf));
    fdy = AD_FD(yf, mf_fmax(xf, yf));
    ad_deriv(ad_fmt("d fmaxf/dx (%g,%g)", x, y), gf.dx, xl ? 0.0 : 1.0, fdx, AD_TOL_F);
    ad_deriv(ad_fmt("d fmaxf/dy (%g,%g)", x, y), gf.dy, xl ? 1.0 : 0.0, fdy, AD_TOL_F);
  }
  for (unsigned i = 0; i < sizeof fma_xyz / sizeof fma_xyz[0]; i++) {
    double x = fma_xyz[i][0], y = fma_xyz[i][1], z = fma_xyz[i][2];
    grad3 g = __ad_gradient_3(m_fma, x, y, z);
    double fdx = AD_FD(x, m_fma(x, y, z)), fdy = AD_FD(y, m_fma(x, y, z)),
           fdz = AD_FD(z, m_fma(x, y, z));
    ad_deriv(ad_fmt("d fma/dx (%g,%g,%g)", x, y, z), g.dx, y, fdx, AD_TOL_D);
    ad_deriv(ad_fmt("d fma/dy (%g,%g,%g)", x, y, z), g.dy, x, fdy, AD_TOL_D);
    ad_deriv(ad_fmt("d fma/dz (%g,%g,%g)", x, y, z), g.dz, 1.0, fdz, AD_TOL_D);

    float xf = (float)x, yf = (float)y, zf = (float)z;
    grad3f gf = __ad_gradient_3f(mf_fma, xf, yf, zf);
    fdx = AD_FD(xf, mf_fma(xf, yf, zf));
    fdy = AD_FD(yf, mf_fma(xf, yf, zf));
    fdz = AD_FD(zf, mf_fma(xf, yf, zf));
    ad_deriv(ad_fmt("d fmaf/dx (%g,%g,%g)", x, y, z), gf.dx, (double)yf, fdx, AD_TOL_F);
    ad_deriv(ad_fmt("d fmaf/dy (%g,%g,%g)", x, y, z), gf.dy, (double)xf, fdy, AD_TOL_F);
    ad_deriv(ad_fmt("d fmaf/dz (%g,%g,%g)", x, y, z), gf.dz, 1.0, fdz, AD_TOL_F);
  }
  {
    // ldexp's slope is 2^n everywhere; at x = 0 the old rule's y / x was
    // 0 / 0 (NaN).
    static const double lx[] = {0.0, 1.3, -0.7};
    volatile int vn = 3;
    for (unsigned i = 0; i < sizeof lx / sizeof lx[0]; i++) {
      double x = lx[i];
      int n = vn;
      ad_deriv(ad_fmt("d ldexp(x, %d)/dx (%g)", n, x),
               __ad_gradient(m_ldexp, x, n), 8.0, AD_FD(x, m_ldexp(x, n)),
               AD_TOL_D);
      float xf = (float)x;
      ad_deriv(ad_fmt("d ldexpf(x, %d)/dx (%g)", -n, x),
               __ad_gradient(mf_ldexp, xf, -n), 0.125,
               AD_FD(xf, mf_ldexp(xf, -n)), AD_TOL_F);
    }
    double sx = 0.9;
    int sn = -vn;
    ad_deriv("d scalbn(x, -3)/dx", __ad_gradient(m_scalbn, sx, sn), 0.125,
             AD_FD(sx, m_scalbn(sx, sn)), AD_TOL_D);
  }
  {
    // remainder(a, b) = a - n b, n = a / b rounded to even (3.7 / 1.1 ->
    // 3; -5.2 / 2 -> -3 (-2.6); 7.9 / -2.5 -> -3); fdim(a, b) = a - b where
    // a > b. Away from the jumps.
    static const double rxy[][2] = {{3.7, 1.1}, {-5.2, 2.0}, {7.9, -2.5}};
    for (unsigned i = 0; i < sizeof rxy / sizeof rxy[0]; i++) {
      double x = rxy[i][0], y = rxy[i][1], n = nearbyint(x / y);
      grad2 g = __ad_gradient_2(m_remainder, x, y);
      ad_deriv(ad_fmt("d remainder/dx (%g,%g)", x, y), g.dx, 1.0,
               AD_FD(x, m_remainder(x, y)), AD_TOL_D);
      ad_deriv(ad_fmt("d remainder/dy (%g,%g)", x, y), g.dy, -n,
               AD_FD(y, m_remainder(x, y)), AD_TOL_D);
      float xf = (float)x, yf = (float)y;
      grad2f gf = __ad_gradient_2f(mf_remainder, xf, yf);
      ad_deriv(ad_fmt("d remainderf/dy (%g,%g)", x, y), gf.dy, -n,
               AD_FD(yf, mf_remainder(xf, yf)), AD_TOL_F);
      int q;
      remquo(x, y, &q);
      g = __ad_gradient_2(m_remquo, x, y);
      ad_deriv(ad_fmt("d remquo/dx (%g,%g)", x, y), g.dx, 1.0 + 0.125 * q,
               AD_FD(x, m_remquo(x, y)), AD_TOL_D);
      ad_deriv(ad_fmt("d remquo/dy (%g,%g)", x, y), g.dy, -n,
               AD_FD(y, m_remquo(x, y)), AD_TOL_D);
      ad_deriv(ad_fmt("remquo fwd (%g,%g)", x, y),
               __ad_derivative(m_remquo, x, 1.0, y, 0.0), 1.0 + 0.125 * q,
               AD_FD(x, m_remquo(x, y)), AD_TOL_D);
      gf = __ad_gradient_2f(mf_remquo, xf, yf);
      ad_deriv(ad_fmt("d remquof/dy (%g,%g)", x, y), gf.dy, -n,
               AD_FD(yf, mf_remquo(xf, yf)), AD_TOL_F);
      int above = x > y;
      g = __ad_gradient_2(m_fdim, x, y);
      ad_deriv(ad_fmt("d fdim/dx (%g,%g)", x, y), g.dx, above ? 1.0 : 0.0,
               AD_FD(x, m_fdim(x, y)), AD_TOL_D);
      ad_deriv(ad_fmt("d fdim/dy (%g,%g)", x, y), g.dy, above ? -1.0 : 0.0,
               AD_FD(y, m_fdim(x, y)), AD_TOL_D);
      gf = __ad_gradient_2f(mf_fdim, xf, yf);
      ad_deriv(ad_fmt("d fdimf/dx (%g,%g)", x, y), gf.dx, above ? 1.0 : 0.0,
               AD_FD(xf, mf_fdim(xf, yf)), AD_TOL_F);
    }
  }
  {
    // hypot at the origin: 0, as |x|' at 0 (x / h is 0 / 0 there).
    volatile double vz = 0.0;
    double x = vz, y = vz;
    grad2 g = __ad_gradient_2(m_hypot, x, y);
    ad_deriv("d hypot/dx (0,0)", g.dx, 0.0, AD_FD(x, m_hypot(x, y)),
             AD_TOL_D);
    ad_deriv("d hypot/dy (0,0)", g.dy, 0.0, AD_FD(y, m_hypot(x, y)),
             AD_TOL_D);
    float xf = (float)x, yf = (float)y;
    grad2f gf = __ad_gradient_2f(mf_hypot, xf, yf);
    ad_deriv("d hypotf/dx (0,0)", gf.dx, 0.0, AD_FD(xf, mf_hypot(xf, yf)),
             AD_TOL_F);
  }
  return ad_finish();
}
