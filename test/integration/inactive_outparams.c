// An AD_INACTIVE function that fills out-parameters: a random-number
// generator writing fresh locals declared in a loop body (Monte Carlo with
// the reparameterisation trick). The local's shadow is one for all
// iterations; the derivative of iteration k's `a = mu + sigma * a` used to
// stay in it and flow into iteration k - 1 (dmu 1.2467 instead of 0.8483,
// with no diagnostic). A lifetime's start now zeroes the local's shadow.
// Clang marks lifetimes from -O1; at -O0 the locals are initialised, which
// zeroes their shadows the same way (README).
// RUN: %adcc -O0 -DINITIALISED %s %S/Inputs/inactive_outparams_rng.c -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O1 %s %S/Inputs/inactive_outparams_rng.c -o %t.O1 %adlibs && %t.O1
// RUN: %adcc -O2 %s %S/Inputs/inactive_outparams_rng.c -o %t.O2 %adlibs && %t.O2
#include "ad.h"
#include "adcheck.h"
#include <math.h>

extern unsigned long long rng_state;
void randn2(double *a, double *b);
AD_INACTIVE(randn2)

enum { N = 50 };

double mc(double mu, double sigma) {
  double s = 0;
  for (int it = 0; it < N; it++) {
#ifdef INITIALISED
    double a = 0, b = 0;
#else
    double a, b;
#endif
    randn2(&a, &b);
    a = mu + sigma * a;
    b = mu + sigma * b;
    s += sin(a) + sin(b);
  }
  return s / (2 * N);
}

typedef struct { double dmu, dsigma; } grad2;
grad2 __ad_gradient_mc(void *, ...) AD_MARKER;

int main(void) {
  double mu = 0.3, sigma = 0.5;
  // Reference: the same draws, replayed.
  rng_state = 1;
  double want_mu = 0, want_sigma = 0;
  for (int it = 0; it < N; it++) {
    double a, b;
    randn2(&a, &b);
    want_mu += cos(mu + sigma * a) + cos(mu + sigma * b);
    want_sigma += a * cos(mu + sigma * a) + b * cos(mu + sigma * b);
  }
  want_mu /= 2 * N;
  want_sigma /= 2 * N;

  rng_state = 1;
  grad2 g = __ad_gradient_mc(mc, mu, sigma);
  ad_check("d/dmu", g.dmu, want_mu, 1e-12, 0);
  ad_check("d/dsigma", g.dsigma, want_sigma, 1e-12, 0);
  rng_state = 1;
  ad_check("forward d/dmu", __ad_derivative(mc, mu, 1.0, sigma, 0.0), want_mu,
           1e-12, 0);
  rng_state = 1;
  ad_check("forward d/dsigma", __ad_derivative(mc, mu, 0.0, sigma, 1.0),
           want_sigma, 1e-12, 0);
  return ad_finish();
}
