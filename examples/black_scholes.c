// The price of a European call option (Black-Scholes) and its sensitivities
// ("greeks") in one call of __ad_gradient: delta (spot), vega (volatility),
// rho (rate) and theta's opposite (time to expiry). Each derivative is
// printed next to a central finite difference.
//
//   clang -O2 -fpass-plugin=build/pass/libADPass.so -Iinclude \
//         examples/black_scholes.c build/runtime/libADRuntime.a -lm
#include <ad.h>
#include <math.h>
#include <stdio.h>

static double normal_cdf(double x) { return 0.5 * (1.0 + erf(x / sqrt(2.0))); }

double call_price(double spot, double vol, double rate, double expiry,
                  double strike) {
  double sd = vol * sqrt(expiry);
  double d1 = (log(spot / strike) + (rate + 0.5 * vol * vol) * expiry) / sd;
  double d2 = d1 - sd;
  return spot * normal_cdf(d1) - strike * exp(-rate * expiry) * normal_cdf(d2);
}

// One field per active argument, in order (the strike is AD_CONST).
typedef struct { double spot, vol, rate, expiry; } greeks;
greeks __ad_gradient_greeks(void *fn, ...) AD_MARKER;

int main(void) {
  double spot = 105, vol = 0.25, rate = 0.03, expiry = 0.75, strike = 100;
  greeks g = __ad_gradient_greeks(call_price, spot, vol, rate, expiry,
                                  AD_CONST, strike);

  const double h = 1e-5;
  double fd[4], x[4] = {spot, vol, rate, expiry};
  for (int k = 0; k < 4; ++k) {
    double up[4] = {x[0], x[1], x[2], x[3]}, down[4] = {x[0], x[1], x[2], x[3]};
    double step = h * (fabs(x[k]) > 1 ? fabs(x[k]) : 1);
    up[k] += step;
    down[k] -= step;
    fd[k] = (call_price(up[0], up[1], up[2], up[3], strike) -
             call_price(down[0], down[1], down[2], down[3], strike)) /
            (2 * step);
  }
  double ad[4] = {g.spot, g.vol, g.rate, g.expiry};
  const char *name[4] = {"d/d spot   (delta)", "d/d vol    (vega) ",
                         "d/d rate   (rho)  ", "d/d expiry (-theta)"};
  printf("call price %.10f\n", call_price(spot, vol, rate, expiry, strike));
  printf("%-20s %18s %18s %10s\n", "", "ADPass", "finite diff.", "rel. diff");
  int ok = 1;
  for (int k = 0; k < 4; ++k) {
    double rel = fabs(ad[k] - fd[k]) / fmax(fabs(fd[k]), 1e-12);
    ok &= rel < 1e-6;
    printf("%-20s %18.12f %18.12f %10.1e\n", name[k], ad[k], fd[k], rel);
  }
  printf("%s\n", ok ? "gradient matches finite differences"
                    : "MISMATCH between gradient and finite differences");
  return ok ? 0 : 1;
}
