// Forward mode, __ad_derivative(fn, x, dx, y, dy, ...): every active
// float/double argument is followed by its tangent, the result is the
// directional derivative. Covers tangents 1, non-unit, negative and 0; one,
// two, five and ten active arguments; AD_CONST on either argument; an int
// argument between active ones; branches, helper calls and math; float
// functions (__ad_derivative_f) and mixed float/double signatures (float
// tangents travel as double through "...").
// The reference is the gradient formula dotted with the tangents and a
// finite difference along the tangent direction.
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O2 -ffast-math %s -o %t.fm %adlibs && %t.fm

#include "ad.h"
#include "adcheck.h"
#include <math.h>

static double helper(double v) { return v * v - 3 * v; }

// A struct of three doubles is returned in memory (sret): its tangent is
// the marker's result, a struct too. This was an error ("the pointer for
// parameter 1 of 'orbit' must be a pointer").
typedef struct { double x, y, z; } vec3;
vec3 orbit(double t, double w) {
  vec3 p = {cos(w * t), sin(w * t), 0.5 * t * t};
  return p;
}
vec3 __ad_derivative_vec3(void *fn, ...) AD_MARKER;

double g1(double x) { return x * x * sin(x); }
double g2(double x, double y) { return x * exp(y) + y / x; }
double gint(double x, int n, double y) { return x * n - y * y * n; }
double gbranch(double x) {
  if (x < 0.5)
    return helper(x) * x;
  return sqrt(x) + helper(2 * x);
}
double g5(double a, double b, double c, double d, double e) {
  return a * b + c * d * e - a * e + b * b * c;
}
double g10(double a, double b, double c, double d, double e, double f,
           double g, double h, double i, double j) {
  return a * b + c * d * e + f / g + h * i * j + a * j;
}
float gf(float x) { return sinf(x) * x + 1.5f; }
float gf2(float x, float y) { return x * y * y - y / x; }
double gmix(double x, float y) { return x * y + cos(y); }
float gret_float(double x) { return (float)(x * x * x); }

static volatile double xs[] = {-1.9, -0.6, 0.35, 1.4, 2.8};
static volatile double tans[] = {1.0, 2.5, -0.75, 0.0};

int main(void) {
  for (unsigned i = 0; i < sizeof xs / sizeof xs[0]; i++) {
    for (unsigned j = 0; j < sizeof tans / sizeof tans[0]; j++) {
      double x = xs[i], dx = tans[j], t = 0, got, fd, y, dy;
      char at[64];
      snprintf(at, sizeof at, "x=%g dx=%g", x, dx);

      got = __ad_derivative(g1, x, dx);
      fd = AD_FD(t, g1(x + t * dx));
      ad_deriv(ad_fmt("g1 %s", at), got, (2 * x * sin(x) + x * x * cos(x)) * dx, fd,
               AD_TOL_D);

      got = __ad_derivative(gbranch, x, dx);
      fd = AD_FD(t, gbranch(x + t * dx));
      ad_deriv(ad_fmt("gbranch %s", at), got,
               (x < 0.5 ? (2 * x - 3) * x + (x * x - 3 * x)
                        : 0.5 / sqrt(x) + 2 * (4 * x - 3)) *
                   dx,
               fd, AD_TOL_D);

      y = 0.3 - x * 0.5;
      dy = 1.25 - dx;
      snprintf(at, sizeof at, "x=%g dx=%g y=%g dy=%g", x, dx, y, dy);
      double fx = exp(y) - y / (x * x), fy = x * exp(y) + 1 / x;
      got = __ad_derivative(g2, x, dx, y, dy);
      fd = AD_FD(t, g2(x + t * dx, y + t * dy));
      ad_deriv(ad_fmt("g2 %s", at), got, fx * dx + fy * dy, fd, AD_TOL_D);
      got = __ad_derivative(g2, x, dx, AD_CONST, y);
      fd = AD_FD(t, g2(x + t * dx, y));
      ad_deriv(ad_fmt("g2 y const %s", at), got, fx * dx, fd, AD_TOL_D);
      got = __ad_derivative(g2, AD_CONST, x, y, dy);
      fd = AD_FD(t, g2(x, y + t * dy));
      ad_deriv(ad_fmt("g2 x const %s", at), got, fy * dy, fd, AD_TOL_D);

      int n = (int)(x * 2) - 1;
      got = __ad_derivative(gint, x, dx, n, y, dy);
      fd = AD_FD(t, gint(x + t * dx, n, y + t * dy));
      ad_deriv(ad_fmt("gint n=%d %s", n, at), got, n * dx - 2 * y * n * dy, fd, AD_TOL_D);

      {
        double a = x, b = y, c = 1.1 - x * y, d = 0.5 * x + 1, e = -0.8 + y;
        double da = dx, db = dy, dc = 0.3, dd = -dx, de = 2.0;
        got = __ad_derivative(g5, a, da, b, db, c, dc, d, dd, e, de);
        fd = AD_FD(t, g5(a + t * da, b + t * db, c + t * dc, d + t * dd, e + t * de));
        double want = (b - e) * da + (a + 2 * b * c) * db + (d * e + b * b) * dc +
                      c * e * dd + (c * d - a) * de;
        ad_deriv(ad_fmt("g5 %s", at), got, want, fd, AD_TOL_D);
      }

      {
        /* ten active arguments: 20 values after fn */
        double v[10] = {x, y, 0.5 * x, 1.2, -y, x * y, 1.7 + x * x, 0.3, -1.1, x - y};
        double dv[10] = {dx, dy, 0.5, -1.0, 0.25, dx * dy, 1.5, 0.0, -dx, 2.0};
        got = __ad_derivative(g10, v[0], dv[0], v[1], dv[1], v[2], dv[2], v[3], dv[3],
                              v[4], dv[4], v[5], dv[5], v[6], dv[6], v[7], dv[7],
                              v[8], dv[8], v[9], dv[9]);
        fd = AD_FD(t, g10(v[0] + t * dv[0], v[1] + t * dv[1], v[2] + t * dv[2],
                          v[3] + t * dv[3], v[4] + t * dv[4], v[5] + t * dv[5],
                          v[6] + t * dv[6], v[7] + t * dv[7], v[8] + t * dv[8],
                          v[9] + t * dv[9]));
        double grad[10] = {v[1] + v[9], v[0], v[3] * v[4], v[2] * v[4], v[2] * v[3],
                           1 / v[6], -v[5] / (v[6] * v[6]), v[8] * v[9], v[7] * v[9],
                           v[7] * v[8] + v[0]};
        double want = 0;
        for (int k = 0; k < 10; k++)
          want += grad[k] * dv[k];
        ad_deriv(ad_fmt("g10 %s", at), got, want, fd, AD_TOL_D);
      }

      // float
      float xf = (float)x, dxf = (float)dx, yf = (float)y, dyf = (float)dy, tf = 0;
      double X = xf, DX = dxf, Y = yf, DY = dyf;
      float gotf = __ad_derivative_f(gf, xf, dxf);
      fd = AD_FD(tf, gf(xf + tf * dxf));
      ad_deriv(ad_fmt("gf %s", at), gotf, (cos(X) * X + sin(X)) * DX, fd, AD_TOL_F);
      gotf = __ad_derivative_f(gf2, xf, dxf, yf, dyf);
      fd = AD_FD(tf, gf2(xf + tf * dxf, yf + tf * dyf));
      ad_deriv(ad_fmt("gf2 %s", at), gotf,
               (Y * Y + Y / (X * X)) * DX + (2 * X * Y - 1 / X) * DY, fd, AD_TOL_F);
      got = __ad_derivative(gmix, x, dx, yf, dyf);
      fd = AD_FD(tf, gmix(x + tf * dx, yf + tf * dyf)); /* float-sized step */
      ad_deriv(ad_fmt("gmix %s", at), got, Y * dx + (x - sin(Y)) * DY, fd,
               (ad_tol){1e-6, 1e-7, 1e-3, 1e-4});
      gotf = __ad_derivative_f(gret_float, x, dx);
      fd = AD_FD(tf, gret_float(x + tf * dx)); /* float-sized step */
      ad_deriv(ad_fmt("gret_float %s", at), gotf, 3 * x * x * dx, fd, AD_TOL_F);
    }
  }
  for (int k = 0; k < 3; k++) {
    double t = 0.4 + 0.7 * k, w = 1.3, dt = 0.6, dw = -0.2;
    vec3 d = __ad_derivative_vec3(orbit, t, dt, w, dw);
    double dphase = w * dt + t * dw;
    ad_check(ad_fmt("orbit dx %d", k), d.x, -sin(w * t) * dphase, 1e-15, 0);
    ad_check(ad_fmt("orbit dy %d", k), d.y, cos(w * t) * dphase, 1e-15, 0);
    ad_check(ad_fmt("orbit dz %d", k), d.z, t * dt, 1e-15, 0);
  }
  return ad_finish();
}
