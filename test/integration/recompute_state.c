// Time-stepping loops whose records keep the step's state and recompute the
// rest of the step (its stages) in the reverse pass, against central
// differences in the initial state and the parameters:
//   - Lotka-Volterra integrated with RK4 (the field function inlined, its
//     products fused into fmuladd at -O2): 16 bytes per step, the state;
//   - a step whose state no non-linear operation reads directly, only
//     sums of it (x + 1, x - c): keeping the state (16 bytes) replaces the
//     three sums (24 bytes);
// and shapes where keeping the state must not replace what is kept, or
// where more must be kept:
//   - the state updated in place in memory the step overwrites (the loads
//     are kept, not the state);
//   - a data-dependent branch in the step;
//   - a call with side effects in the step (a counter it increments must
//     count the primal calls only);
//   - a division by a value loaded from memory the loop overwrites;
//   - a step too long to recompute within the per-iteration budget (100
//     chained stages): the record keeps more than the state.
// The bytes kept are checked at -O2 and -O3 (CHECK_BYTES): at -O1 the
// stages stay in local arrays in memory.
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcc -O2 -DCHECK_BYTES %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O3 -DCHECK_BYTES %s -o %t.O3 %adlibs && %t.O3

#include "ad.h"
#include "ad_runtime.h"
#include "adcheck.h"
#include <string.h>

enum { STEPS = 200 };

/*--- Must fire --------------------------------------------------------------*/

static void lotka_volterra(const double *u, const double *p, double *du) {
  du[0] = p[0] * u[0] - p[1] * u[0] * u[1];
  du[1] = p[3] * u[0] * u[1] - p[2] * u[1];
}

// v = (u0, u1, a, b, c, d).
double lv_rk4(const double *v, int nsteps) {
  const double *p = v + 2, h = 1e-2;
  double u[2] = {v[0], v[1]};
  double k1[2], k2[2], k3[2], k4[2], t[2];
  for (int s = 0; s < nsteps; ++s) {
    lotka_volterra(u, p, k1);
    for (int i = 0; i < 2; ++i)
      t[i] = u[i] + 0.5 * h * k1[i];
    lotka_volterra(t, p, k2);
    for (int i = 0; i < 2; ++i)
      t[i] = u[i] + 0.5 * h * k2[i];
    lotka_volterra(t, p, k3);
    for (int i = 0; i < 2; ++i)
      t[i] = u[i] + h * k3[i];
    lotka_volterra(t, p, k4);
    for (int i = 0; i < 2; ++i)
      u[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
  }
  return u[0] * u[0] + u[1] * u[1];
}
static double lv_rk4_on(double *w) { return lv_rk4(w, STEPS); }

// v = (x0, y0, c): the products read x + 1, x - c and y + c, never x or y.
double sums_only(const double *v, int n) {
  double x = v[0], y = v[1], c = v[2];
  for (int i = 0; i < n; ++i) {
    double a = x + 1, b = x - c, d = y + c;
    x = 0.5 * x + 0.01 * (a * b) + 0.02 * (a * d);
    y = 0.9 * y + 0.01 * (b * d);
  }
  return x + y;
}
static double sums_only_on(double *w) { return sums_only(w, STEPS); }

/*--- Must keep what it keeps ----------------------------------------------*/

// The state lives in the caller's array, overwritten every step through a
// second pointer to it (so that it stays in memory at -O2).
double in_place(const double *v, double *s, int n) {
  for (int i = 0; i < n; ++i) {
    double a = v[0] + 1, b = v[0] - v[2];
    s[0] = 0.5 * v[0] + 0.01 * (a * b);
    s[1] = 0.9 * v[1] + 0.01 * (a * v[1]);
  }
  return v[0] + v[1];
}
static double in_place_on(double *w) { return in_place(w, w, STEPS); }

// Which formula the step takes depends on the state.
double branchy(const double *v, int n) {
  double x = v[0], y = v[1], c = v[2];
  for (int i = 0; i < n; ++i) {
    double a = x + 1, b = y - c;
    if (x * y > 0.3)
      x = 0.5 * x + 0.1 * (a * b);
    else
      x = 0.7 * x - 0.05 * (b * b);
    y = 0.8 * y + 0.02 * (a * a);
  }
  return x + y;
}
static double branchy_on(double *w) { return branchy(w, STEPS); }

static int calls_made;
__attribute__((noinline)) static double counted_scale(double x) {
  ++calls_made;
  return 0.01 * x;
}

// A call with a side effect in the step: the reverse pass must not run it
// again.
double with_call(const double *v, int n) {
  double x = v[0], y = v[1], c = v[2];
  for (int i = 0; i < n; ++i) {
    double a = x + c, b = y - c;
    x = 0.5 * x + counted_scale(a * b);
    y = 0.9 * y + 0.01 * (a * a);
  }
  return x + y;
}
static double with_call_on(double *w) { return with_call(w, STEPS); }

// A division by a value loaded from memory the loop then overwrites.
double divided(const double *v, int n) {
  double x = v[0], y = v[1], c = v[2];
  double den[4] = {1.5, 2.0, 2.5, 3.0};
  for (int i = 0; i < n; ++i) {
    double a = x + 1, b = y + c;
    double q = a / den[i % 4];
    den[i % 4] = 1.25 + 0.5 * (i % 3);
    x = 0.5 * x + 0.01 * (q * b);
    y = 0.9 * y + 0.01 * (a * b);
  }
  return x + y;
}
static double divided_on(double *w) { return divided(w, STEPS); }

// 100 chained cheap stages per step: recomputing them all from the state
// would cost more than the budget per iteration allows.
#define STAGE(t) t = t + 0.001 * (t * c)
#define STAGES4(t) STAGE(t); STAGE(t); STAGE(t); STAGE(t)
#define STAGES20(t) STAGES4(t); STAGES4(t); STAGES4(t); STAGES4(t); STAGES4(t)
double long_step(const double *v, int n) {
  double x = v[0], c = v[1];
  for (int i = 0; i < n; ++i) {
    double t = x + 0.5;
    STAGES20(t);
    STAGES20(t);
    STAGES20(t);
    STAGES20(t);
    STAGES20(t);
    x = 0.5 * x + 0.5 * t - 0.25;
  }
  return x;
}
static double long_step_on(double *w) { return long_step(w, 20); }

static double peak_of_lv(void) {
  double v[6] = {1.0, 1.0, 1.5, 1.0, 3.0, 1.0}, dv[6] = {0};
  __ad_tape_reset_peak();
  __ad_gradient(lv_rk4, v, dv, STEPS);
  return (double)__ad_tape_peak_bytes();
}

static double peak_of_sums(void) {
  double v[3] = {0.3, 0.2, 0.4}, dv[3] = {0};
  __ad_tape_reset_peak();
  __ad_gradient(sums_only, v, dv, STEPS);
  return (double)__ad_tape_peak_bytes();
}

static double peak_of_long_step(void) {
  double v[2] = {0.3, 0.7}, dv[2] = {0};
  __ad_tape_reset_peak();
  __ad_gradient(long_step, v, dv, 20);
  return (double)__ad_tape_peak_bytes();
}

int main(void) {
  static const double LV0[6] = {1.0, 1.0, 1.5, 1.0, 3.0, 1.0};
  static const double S0[3] = {0.3, 0.2, 0.4};
  static const double L0[2] = {0.3, 0.7};
  AD_CHECK_GRADIENT("lv_rk4", 6, LV0, __ad_gradient(lv_rk4, x, dx, STEPS),
                    lv_rk4_on(w));
  AD_CHECK_GRADIENT("sums_only", 3, S0,
                    __ad_gradient(sums_only, x, dx, STEPS), sums_only_on(w));
  AD_CHECK_GRADIENT("in_place", 3, S0, __ad_gradient(in_place, x, dx, x, dx, STEPS),
                    in_place_on(w));
  AD_CHECK_GRADIENT("branchy", 3, S0, __ad_gradient(branchy, x, dx, STEPS),
                    branchy_on(w));
  {
    double x[3], dx[3] = {0};
    memcpy(x, S0, sizeof x);
    calls_made = 0;
    __ad_gradient(with_call, x, dx, STEPS);
    ad_check("with_call runs the call once per primal step", calls_made,
             STEPS, 0, 0);
  }
  AD_CHECK_GRADIENT("with_call", 3, S0,
                    __ad_gradient(with_call, x, dx, STEPS), with_call_on(w));
  AD_CHECK_GRADIENT("divided", 3, S0, __ad_gradient(divided, x, dx, STEPS),
                    divided_on(w));
  AD_CHECK_GRADIENT("long_step", 2, L0, __ad_gradient(long_step, x, dx, 20),
                    long_step_on(w));
#ifdef CHECK_BYTES
  // What a step keeps: its state, 2 doubles.
  ad_check("lv_rk4 keeps the state per step", peak_of_lv(), 16.0 * STEPS, 0,
           0);
  ad_check("sums_only keeps the state per step", peak_of_sums(),
           16.0 * STEPS, 0, 0);
  // Over budget: more than the state (1 double) per step.
  ad_check("long_step keeps more than its state",
           peak_of_long_step() > 8.0 * 20, 1, 0, 0);
#endif
  return ad_finish();
}
