// Several active arguments: the marker returns a struct with one field per
// active argument, in order. The struct shapes cover the x86-64 return
// conventions: {double,double} in xmm0/xmm1; 3, 4 and 5 doubles via sret;
// {float,float} as <2 x float>; {float,float,float} as {<2 x float>, float};
// 4 floats as {<2 x float>, <2 x float>}; 5 floats via sret; mixed
// {double, float} and {float, double}; 10 doubles (some marker arguments
// on the stack); an int argument in the middle (not a field); a float
// result with double arguments; an active argument the result ignores.
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O2 -ffast-math %s -o %t.fm %adlibs && %t.fm

#include "ad.h"
#include "adcheck.h"
#include <math.h>

typedef struct { double dx, dy; } g2d;
typedef struct { double dx, dy, dz; } g3d;
typedef struct { double da, db, dc, dd; } g4d;
typedef struct { double da, db, dc, dd, de; } g5d;
typedef struct { float dx, dy; } g2f;
typedef struct { float dx, dy, dz; } g3f;
typedef struct { float da, db, dc, dd; } g4f;
typedef struct { float da, db, dc, dd, de; } g5f;
typedef struct { double dx; float dy; } gdf;
typedef struct { float dx; double dy; } gfd;
typedef struct { double d[10]; } g10d; /* 10 actives: the variadic marker
                                          call passes some on the stack */

g2d __ad_gradient_g2d(void *fn, ...) AD_MARKER;
g3d __ad_gradient_g3d(void *fn, ...) AD_MARKER;
g4d __ad_gradient_g4d(void *fn, ...) AD_MARKER;
g5d __ad_gradient_g5d(void *fn, ...) AD_MARKER;
g2f __ad_gradient_g2f(void *fn, ...) AD_MARKER;
g3f __ad_gradient_g3f(void *fn, ...) AD_MARKER;
g4f __ad_gradient_g4f(void *fn, ...) AD_MARKER;
g5f __ad_gradient_g5f(void *fn, ...) AD_MARKER;
gdf __ad_gradient_gdf(void *fn, ...) AD_MARKER;
gfd __ad_gradient_gfd(void *fn, ...) AD_MARKER;
g10d __ad_gradient_g10d(void *fn, ...) AD_MARKER;

double f2(double x, double y) { return x * y * y + sin(x); }
double f3(double x, double y, double z) { return x * y * z + x / z; }
double f4(double a, double b, double c, double d) {
  return a * b - c * d + a * d * d;
}
double f5(double a, double b, double c, double d, double e) {
  return a * b + c * d * e - a * e + b * b * c;
}
double f_int_mid(double x, int n, double y) { return x * n + y * y * n; }
float f_float_ret(double x, double y) { return (float)(x * y) + 1.0f; }

float ff2(float x, float y) { return x * x * y - y; }
float ff3(float x, float y, float z) { return x * y + y * z * z - x / z; }
float ff4(float a, float b, float c, float d) { return a * b * c * d + a - d; }
float ff5(float a, float b, float c, float d, float e) {
  return a * e + b * d + c * c;
}
double f_unused(double x, double y) {
  (void)y;
  return x * x;
}
double f10(double a, double b, double c, double d, double e, double f, double g,
           double h, double i, double j) {
  return a * b + c * d + e * f + g * h + i * j + a * j;
}
double mixed_df(double x, float y) { return x * y + y * y; }
double mixed_fd(float x, double y) { return sin(y) * x; }

static volatile double in[][5] = {{1.3, -0.7, 2.1, 0.4, -1.6},
                                  {-2.2, 1.9, -0.8, 3.1, 0.6},
                                  {0.45, 0.9, -1.4, -2.5, 1.2}};

// The finite difference (which perturbs a variable and restores it) is
// evaluated before the formula, in sequence.
#define CHK(what, got, an, fd, tol)                                            \
  do {                                                                         \
    double fd_ = (fd);                                                         \
    double an_ = (an);                                                         \
    ad_deriv(what, got, an_, fd_, tol);                                        \
  } while (0)
#define D(what, got, an, fd) CHK(what, got, an, fd, AD_TOL_D)
#define F(what, got, an, fd) CHK(what, got, an, fd, AD_TOL_F)

int main(void) {
  for (unsigned i = 0; i < sizeof in / sizeof in[0]; i++) {
    double a = in[i][0], b = in[i][1], c = in[i][2], d = in[i][3], e = in[i][4];
    char at[128];
    snprintf(at, sizeof at, "(%g,%g,%g,%g,%g)", a, b, c, d, e);

    g2d r2 = __ad_gradient_g2d(f2, a, b);
    D(ad_fmt("f2.dx %s", at), r2.dx, b * b + cos(a), AD_FD(a, f2(a, b)));
    D(ad_fmt("f2.dy %s", at), r2.dy, 2 * a * b, AD_FD(b, f2(a, b)));

    g3d r3 = __ad_gradient_g3d(f3, a, b, c);
    D(ad_fmt("f3.dx %s", at), r3.dx, b * c + 1 / c, AD_FD(a, f3(a, b, c)));
    D(ad_fmt("f3.dy %s", at), r3.dy, a * c, AD_FD(b, f3(a, b, c)));
    D(ad_fmt("f3.dz %s", at), r3.dz, a * b - a / (c * c), AD_FD(c, f3(a, b, c)));

    g4d r4 = __ad_gradient_g4d(f4, a, b, c, d);
    D(ad_fmt("f4.da %s", at), r4.da, b + d * d, AD_FD(a, f4(a, b, c, d)));
    D(ad_fmt("f4.db %s", at), r4.db, a, AD_FD(b, f4(a, b, c, d)));
    D(ad_fmt("f4.dc %s", at), r4.dc, -d, AD_FD(c, f4(a, b, c, d)));
    D(ad_fmt("f4.dd %s", at), r4.dd, -c + 2 * a * d, AD_FD(d, f4(a, b, c, d)));

    g5d r5 = __ad_gradient_g5d(f5, a, b, c, d, e);
    D(ad_fmt("f5.da %s", at), r5.da, b - e, AD_FD(a, f5(a, b, c, d, e)));
    D(ad_fmt("f5.db %s", at), r5.db, a + 2 * b * c, AD_FD(b, f5(a, b, c, d, e)));
    D(ad_fmt("f5.dc %s", at), r5.dc, d * e + b * b, AD_FD(c, f5(a, b, c, d, e)));
    D(ad_fmt("f5.dd %s", at), r5.dd, c * e, AD_FD(d, f5(a, b, c, d, e)));
    D(ad_fmt("f5.de %s", at), r5.de, c * d - a, AD_FD(e, f5(a, b, c, d, e)));

    int n = (int)(c * 3); /* inactive, runtime */
    g2d ri = __ad_gradient_g2d(f_int_mid, a, n, b);
    D(ad_fmt("f_int_mid.dx %s n=%d", at, n), ri.dx, (double)n, AD_FD(a, f_int_mid(a, n, b)));
    D(ad_fmt("f_int_mid.dy %s n=%d", at, n), ri.dy, 2.0 * b * n, AD_FD(b, f_int_mid(a, n, b)));

    g2d rr = __ad_gradient_g2d(f_float_ret, a, b);
    ad_tol tq = {1e-6, 1e-9, 1e-3, 1e-4}; /* result rounded to float */
    CHK(ad_fmt("f_float_ret.dx %s", at), rr.dx, b, AD_FD(a, f_float_ret(a, b)), tq);
    CHK(ad_fmt("f_float_ret.dy %s", at), rr.dy, a, AD_FD(b, f_float_ret(a, b)), tq);

    /* float versions, formulas in double at the float points */
    float af = (float)a, bf = (float)b, cf = (float)c, df = (float)d, ef = (float)e;
    double A = af, B = bf, C = cf, Dd = df, E = ef;

    g2f s2 = __ad_gradient_g2f(ff2, af, bf);
    F(ad_fmt("ff2.dx %s", at), s2.dx, 2 * A * B, AD_FD(af, ff2(af, bf)));
    F(ad_fmt("ff2.dy %s", at), s2.dy, A * A - 1, AD_FD(bf, ff2(af, bf)));

    g3f s3 = __ad_gradient_g3f(ff3, af, bf, cf);
    F(ad_fmt("ff3.dx %s", at), s3.dx, B - 1 / C, AD_FD(af, ff3(af, bf, cf)));
    F(ad_fmt("ff3.dy %s", at), s3.dy, A + C * C, AD_FD(bf, ff3(af, bf, cf)));
    F(ad_fmt("ff3.dz %s", at), s3.dz, 2 * B * C + A / (C * C), AD_FD(cf, ff3(af, bf, cf)));

    g4f s4 = __ad_gradient_g4f(ff4, af, bf, cf, df);
    F(ad_fmt("ff4.da %s", at), s4.da, B * C * Dd + 1, AD_FD(af, ff4(af, bf, cf, df)));
    F(ad_fmt("ff4.db %s", at), s4.db, A * C * Dd, AD_FD(bf, ff4(af, bf, cf, df)));
    F(ad_fmt("ff4.dc %s", at), s4.dc, A * B * Dd, AD_FD(cf, ff4(af, bf, cf, df)));
    F(ad_fmt("ff4.dd %s", at), s4.dd, A * B * C - 1, AD_FD(df, ff4(af, bf, cf, df)));

    g5f s5 = __ad_gradient_g5f(ff5, af, bf, cf, df, ef);
    F(ad_fmt("ff5.da %s", at), s5.da, E, AD_FD(af, ff5(af, bf, cf, df, ef)));
    F(ad_fmt("ff5.db %s", at), s5.db, Dd, AD_FD(bf, ff5(af, bf, cf, df, ef)));
    F(ad_fmt("ff5.dc %s", at), s5.dc, 2 * C, AD_FD(cf, ff5(af, bf, cf, df, ef)));
    F(ad_fmt("ff5.dd %s", at), s5.dd, B, AD_FD(df, ff5(af, bf, cf, df, ef)));
    F(ad_fmt("ff5.de %s", at), s5.de, A, AD_FD(ef, ff5(af, bf, cf, df, ef)));

    /* mixed: the field types follow the argument types */
    gdf m1 = __ad_gradient_gdf(mixed_df, a, bf);
    D(ad_fmt("mixed_df.dx %s", at), m1.dx, B, AD_FD(a, mixed_df(a, bf)));
    F(ad_fmt("mixed_df.dy %s", at), m1.dy, a + 2 * B, AD_FD(bf, mixed_df(a, bf)));
    gfd m2 = __ad_gradient_gfd(mixed_fd, af, b);
    F(ad_fmt("mixed_fd.dx %s", at), m2.dx, sin(b), AD_FD(af, mixed_fd(af, b)));
    D(ad_fmt("mixed_fd.dy %s", at), m2.dy, A * cos(b), AD_FD(b, mixed_fd(af, b)));

    /* an active argument that does not influence the result */
    r2 = __ad_gradient_g2d(f_unused, a, b);
    D(ad_fmt("f_unused.dx %s", at), r2.dx, 2 * a, AD_FD(a, f_unused(a, b)));
    D(ad_fmt("f_unused.dy %s", at), r2.dy, 0.0, AD_FD(b, f_unused(a, b)));

    /* ten active arguments */
    double v[10] = {a, b, c, d, e, a - b, c * 0.5, d + e, 1.5 - a, b * c};
    double want[10] = {v[1] + v[9], v[0], v[3], v[2], v[5],
                       v[4], v[7], v[6], v[9], v[8] + v[0]};
    g10d r10 = __ad_gradient_g10d(f10, v[0], v[1], v[2], v[3], v[4], v[5], v[6],
                                  v[7], v[8], v[9]);
    for (int k = 0; k < 10; k++) {
      double fd = AD_FD(v[k], f10(v[0], v[1], v[2], v[3], v[4], v[5], v[6],
                                  v[7], v[8], v[9]));
      D(ad_fmt("f10.d[%d] %s", k, at), r10.d[k], want[k], fd);
    }
  }
  return ad_finish();
}
