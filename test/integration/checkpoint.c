// AD_CHECKPOINT: reverse mode keeps each checkpointed call's arguments and
// runs the call again before its reverse pass. The gradients must equal
// those of the same code without checkpointing, and central differences;
// the time-stepping loop, whose steps loop a data-dependent number of
// times, must keep at least 4x less tape at its peak.
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O3 -g %s -o %t.O3 %adlibs && %t.O3

#include "ad.h"
#include "ad_runtime.h"
#include "adcheck.h"
#include <stdlib.h>

typedef struct {
  double du0, dk;
} grad2;
grad2 __ad_gradient_2(void *, ...) AD_MARKER;

// One time step: substeps whose length depends on the state, so the number
// of substeps is known only as they run (records on the runtime tape).
#define STEP_BODY                                                              \
  double t = 0;                                                                \
  while (t < h) {                                                              \
    double du = -k * sin(u) + 0.1 * u * u;                                     \
    u += 0.01 * du;                                                            \
    t += 0.01 * (1 + 0.5 * cos(u) * cos(u));                                   \
  }                                                                            \
  return u;

double step(double u, double k, double h) { STEP_BODY }
double step_taped(double u, double k, double h) { STEP_BODY }
AD_CHECKPOINT(step)

double simulate(double u0, double k, int n) {
  double u = u0;
  for (int i = 0; i < n; i++)
    u = step(u, k, 0.5);
  return u * u;
}
double simulate_taped(double u0, double k, int n) {
  double u = u0;
  for (int i = 0; i < n; i++)
    u = step_taped(u, k, 0.5);
  return u * u;
}

// A step that reads coefficients through a pointer nothing writes later,
// and works in scratch memory of its own (a local array, a heap block).
#define SMOOTH_BODY                                                            \
  double w[4];                                                                 \
  double *acc = malloc(sizeof(double));                                        \
  *acc = 0;                                                                    \
  for (int j = 0; j < 4; j++) {                                                \
    w[j] = c[j] * tanh(u + j);                                                 \
    *acc += w[j] * w[j];                                                       \
  }                                                                            \
  double r = u + 0.1 * sqrt(*acc);                                             \
  free(acc);                                                                   \
  return r;

double smooth(double u, const double *c) { SMOOTH_BODY }
double smooth_taped(double u, const double *c) { SMOOTH_BODY }
AD_CHECKPOINT(smooth)

double relax(double u, const double *c, int n) {
  for (int i = 0; i < n; i++)
    u = smooth(u, c) - 0.05 * u;
  return u;
}
double relax_taped(double u, const double *c, int n) {
  for (int i = 0; i < n; i++)
    u = smooth_taped(u, c) - 0.05 * u;
  return u;
}

// A struct passed by value (large enough to travel through memory).
typedef struct {
  double a, b, c, d;
} quad;
double poly(quad q, double x) {
  double s = 0;
  for (int i = 0; i < 3; i++)
    s = s * x + q.a * sin(q.b * x + i) + q.c * q.d;
  return s;
}
AD_CHECKPOINT(poly)
double poly_sum(double a, double x) {
  quad q = {a, 0.5 * a, 1.5, a * a};
  double s = 0;
  for (int i = 0; i < 5; i++)
    s += poly(q, x + 0.1 * i);
  return s;
}

// Called from differentiated code rather than requested: the checkpointed
// call takes values only, so it may sit anywhere.
double twice(double u0, double k) { return simulate(u0, k, 3) * 0.5; }

int main(void) {
  double u0 = 0.7, k = 1.3;
  int n = 200;
  __ad_tape_reset_peak();
  grad2 g = __ad_gradient_2(simulate, u0, k, n);
  size_t peak_ck = __ad_tape_peak_bytes();
  __ad_tape_reset_peak();
  grad2 t = __ad_gradient_2(simulate_taped, u0, k, n);
  size_t peak_taped = __ad_tape_peak_bytes();
  ad_check("simulate du0 = taped", g.du0, t.du0, 1e-12, 1e-14);
  ad_check("simulate dk = taped", g.dk, t.dk, 1e-12, 1e-14);
  ad_check("simulate du0 vs fd", g.du0, AD_FD(u0, simulate(u0, k, n)), 1e-6,
           1e-9);
  ad_check("simulate dk vs fd", g.dk, AD_FD(k, simulate(u0, k, n)), 1e-6,
           1e-9);
  if (peak_ck * 4 > peak_taped)
    ad_check("peak tape 4x smaller", (double)peak_ck, peak_taped / 4.0, 0, 0);
  // Forward mode is unchanged by the checkpoint.
  double dir = __ad_derivative(simulate, u0, 1.0, k, 0.5, n);
  ad_check("simulate forward", dir, g.du0 + 0.5 * g.dk, 1e-10, 1e-12);

  double c[4] = {0.3, -0.7, 1.1, 0.4}, dc[4] = {0}, dct[4] = {0};
  double du = __ad_gradient(relax, 0.2, c, dc, 12);
  double dut = __ad_gradient(relax_taped, 0.2, c, dct, 12);
  ad_check("relax du = taped", du, dut, 1e-12, 1e-14);
  double u = 0.2;
  ad_check("relax du vs fd", du, AD_FD(u, relax(u, c, 12)), 1e-6, 1e-9);
  for (int j = 0; j < 4; j++) {
    ad_check(ad_fmt("relax dc[%d] = taped", j), dc[j], dct[j], 1e-12, 1e-14);
    ad_check(ad_fmt("relax dc[%d] vs fd", j), dc[j],
             AD_FD(c[j], relax(0.2, c, 12)), 1e-6, 1e-9);
  }

  double a = 0.8, x = 0.3;
  grad2 gp = __ad_gradient_2(poly_sum, a, x);
  ad_check("poly_sum da vs fd", gp.du0, AD_FD(a, poly_sum(a, x)), 1e-6, 1e-9);
  ad_check("poly_sum dx vs fd", gp.dk, AD_FD(x, poly_sum(a, x)), 1e-6, 1e-9);

  grad2 gt = __ad_gradient_2(twice, u0, k);
  ad_check("twice du0 vs fd", gt.du0, AD_FD(u0, twice(u0, k)), 1e-6, 1e-9);
  ad_check("twice dk vs fd", gt.dk, AD_FD(k, twice(u0, k)), 1e-6, 1e-9);
  ad_check("tape empty after", (double)__ad_tape_current_bytes(), 0, 0, 0);
  return ad_finish();
}
