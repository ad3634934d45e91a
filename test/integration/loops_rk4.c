// Long loops: classical RK4 over 10,000 steps (h = 1e-3, T = 10).
//   - damped oscillator x'' + c x' + k x = 0 (c = 0.3 fixed, k active), the
//     initial state (x0, v0) read through a pointer with a shadow; loss
//     L = x(T) v(T) + x(T). Checked against the derivatives of the exact
//     solution (RK4's global error at this step is ~1e-13) and central
//     finite differences;
//   - the same integration done in place on the state array (a void
//     function; the state's shadow is seeded with the cotangent of the final
//     state and ends as that of the initial state), the active k's
//     derivative returned by the marker;
//   - logistic growth y' = r y (1 - y/K), (y0, K) through a pointer and r
//     active, against the closed form y(T) = K y0 e^{rT} / (K + y0 (e^{rT}-1)).
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O3 %s -o %t.O3 %adlibs && %t.O3

#include "ad.h"
#include "adcheck.h"
#include <math.h>

double __ad_gradient_vjp(void *fn, ...) AD_MARKER; /* void fn, one active scalar */

#define T_END 10.0
#define DAMP 0.3

// One RK4 step of (x, v)' = (v, -DAMP v - k x).
#define RK4_OSC(x, v, k, h)                                                    \
  do {                                                                         \
    double k1x = (v), k1v = -DAMP * (v) - (k) * (x);                           \
    double x2 = (x) + 0.5 * (h) * k1x, v2 = (v) + 0.5 * (h) * k1v;             \
    double k2x = v2, k2v = -DAMP * v2 - (k) * x2;                              \
    double x3 = (x) + 0.5 * (h) * k2x, v3 = (v) + 0.5 * (h) * k2v;             \
    double k3x = v3, k3v = -DAMP * v3 - (k) * x3;                              \
    double x4 = (x) + (h) * k3x, v4 = (v) + (h) * k3v;                         \
    double k4x = v4, k4v = -DAMP * v4 - (k) * x4;                              \
    (x) += (h) / 6 * (k1x + 2 * k2x + 2 * k3x + k4x);                          \
    (v) += (h) / 6 * (k1v + 2 * k2v + 2 * k3v + k4v);                          \
  } while (0)

double osc(const double *s0, double k, int nsteps) {
  double h = T_END / nsteps;
  double x = s0[0], v = s0[1];
  for (int i = 0; i < nsteps; i++)
    RK4_OSC(x, v, k, h);
  return x * v + x;
}

void osc_inplace(double *s, double k, int nsteps) {
  double h = T_END / nsteps;
  for (int i = 0; i < nsteps; i++)
    RK4_OSC(s[0], s[1], k, h);
}

static double logistic_rhs(double y, double r, double K) {
  return r * y * (1 - y / K);
}

double logistic(const double *y0K, double r, int nsteps) {
  double h = T_END / nsteps, y = y0K[0], K = y0K[1];
  for (int i = 0; i < nsteps; i++) {
    double k1 = logistic_rhs(y, r, K);
    double k2 = logistic_rhs(y + 0.5 * h * k1, r, K);
    double k3 = logistic_rhs(y + 0.5 * h * k2, r, K);
    double k4 = logistic_rhs(y + h * k3, r, K);
    y += h / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
  }
  return y;
}

// Exact oscillator solution and its partials w.r.t. (x0, v0, k).
typedef struct {
  double x, v;
  double x_x0, x_v0, x_k, v_x0, v_v0, v_k;
} osc_exact;

static osc_exact exact(double x0, double v0, double k) {
  double T = T_END, a = DAMP / 2, w = sqrt(k - a * a);
  double E = exp(-a * T), C = cos(w * T), S = sin(w * T);
  double B = (v0 + a * x0) / w, B_w = -B / w;
  osc_exact r;
  r.x = E * (x0 * C + B * S);
  r.v = E * (-a * x0 * C - a * B * S - w * x0 * S + w * B * C);
  r.x_x0 = E * (C + a / w * S);
  r.v_x0 = -E * S * k / w;
  r.x_v0 = E * S / w;
  r.v_v0 = E * (C - a * S / w);
  double x_w = E * (-x0 * T * S + B_w * S + B * T * C);
  double v_w = E * (a * x0 * T * S - a * (B_w * S + B * T * C) - x0 * S -
                    w * x0 * T * C + B * C + w * B_w * C - w * B * T * S);
  r.x_k = x_w / (2 * w);
  r.v_k = v_w / (2 * w);
  return r;
}

static volatile int vsteps = 10000;
static volatile double vx0 = 0.8, vv0 = -0.35, vk = 2.0;
static volatile double vy0 = 0.1, vK = 2.0, vr = 0.8;

int main(int argc, char **argv) {
  (void)argv;
  int nsteps = vsteps + (argc - 1);

  // Oscillator, state through a pointer.
  {
    double s0[2] = {vx0, vv0}, ds0[2] = {0.5, -0.25}, k = vk;
    double dk = __ad_gradient(osc, s0, ds0, k, nsteps);
    osc_exact e = exact(s0[0], s0[1], k);
    double Lx = e.v + 1, Lv = e.x; // dL/dx(T), dL/dv(T)
    ad_check("osc primal matches the exact solution", osc(s0, k, nsteps),
             e.x * e.v + e.x, 1e-10, 1e-12);
    ad_deriv("osc d/dx0 (+0.5)", ds0[0], 0.5 + Lx * e.x_x0 + Lv * e.v_x0,
             0.5 + AD_FD(s0[0], osc(s0, k, nsteps)), AD_TOL_D);
    ad_deriv("osc d/dv0 (-0.25)", ds0[1], -0.25 + Lx * e.x_v0 + Lv * e.v_v0,
             -0.25 + AD_FD(s0[1], osc(s0, k, nsteps)), AD_TOL_D);
    ad_deriv("osc d/dk", dk, Lx * e.x_k + Lv * e.v_k,
             AD_FD(k, osc(s0, k, nsteps)), AD_TOL_D);
  }

  // In place, as a VJP with seeds (wx, wv) on the final state.
  {
    double wx = 1.25, wv = -0.6, k = vk;
    double s[2] = {vx0, vv0}, ds[2] = {wx, wv};
    double dk = __ad_gradient_vjp(osc_inplace, s, ds, k, nsteps);
    osc_exact e = exact(vx0, vv0, k);
    ad_check("osc_inplace primal x(T)", s[0], e.x, 1e-10, 1e-12);
    ad_check("osc_inplace primal v(T)", s[1], e.v, 1e-10, 1e-12);
    double t[2], a0 = vx0, b0 = vv0;
#define OSC_IP() (t[0] = a0, t[1] = b0, osc_inplace(t, k, nsteps), wx * t[0] + wv * t[1])
    ad_deriv("osc_inplace vjp d/dx0", ds[0], wx * e.x_x0 + wv * e.v_x0,
             AD_FD(a0, OSC_IP()), AD_TOL_D);
    ad_deriv("osc_inplace vjp d/dv0", ds[1], wx * e.x_v0 + wv * e.v_v0,
             AD_FD(b0, OSC_IP()), AD_TOL_D);
    ad_deriv("osc_inplace vjp d/dk", dk, wx * e.x_k + wv * e.v_k,
             AD_FD(k, OSC_IP()), AD_TOL_D);
  }

  // Logistic growth.
  {
    double p[2] = {vy0, vK}, dp[2] = {0, 0}, r = vr;
    double dr = __ad_gradient(logistic, p, dp, r, nsteps);
    double y0 = p[0], K = p[1], T = T_END, E = exp(r * T);
    double D = K + y0 * (E - 1);
    ad_check("logistic primal matches the closed form", logistic(p, r, nsteps),
             K * y0 * E / D, 1e-10, 1e-12);
    ad_deriv("logistic d/dy0", dp[0], K * K * E / (D * D),
             AD_FD(p[0], logistic(p, r, nsteps)), AD_TOL_D);
    ad_deriv("logistic d/dK", dp[1], y0 * y0 * E * (E - 1) / (D * D),
             AD_FD(p[1], logistic(p, r, nsteps)), AD_TOL_D);
    ad_deriv("logistic d/dr", dr, T * E * K * y0 * (K - y0) / (D * D),
             AD_FD(r, logistic(p, r, nsteps)), AD_TOL_D);
  }

  return ad_finish();
}
