// Fitting the four parameters of the Lotka-Volterra predator-prey model
//
//   prey' = a prey - b prey pred,   pred' = d prey pred - c pred
//
// to observations by gradient descent. The model is integrated with 400
// classical Runge-Kutta (RK4) steps; the loss is the sum of squared
// differences to the observed populations. __ad_gradient differentiates
// the whole simulation (the loop of RK4 steps included) in one call, which
// costs a small multiple of one simulation whatever the number of
// parameters. At the starting point the gradient is printed next to
// central finite differences.
//
//   clang -O2 -fpass-plugin=build/pass/libADPass.so -Iinclude \
//         examples/ode_fit.c build/runtime/libADRuntime.a -lm
#include <ad.h>
#include <math.h>
#include <stdio.h>

enum { STEPS = 400, EVERY = 20, OBS = STEPS / EVERY, PARAMS = 4 };
static const double DT = 0.05;

static void rates(const double *p, const double *s, double *ds) {
  ds[0] = p[0] * s[0] - p[1] * s[0] * s[1];
  ds[1] = p[3] * s[0] * s[1] - p[2] * s[1];
}

// One RK4 step of length DT, in place.
static void rk4_step(const double *p, double *s) {
  double k1[2], k2[2], k3[2], k4[2], t[2];
  rates(p, s, k1);
  for (int i = 0; i < 2; ++i)
    t[i] = s[i] + 0.5 * DT * k1[i];
  rates(p, t, k2);
  for (int i = 0; i < 2; ++i)
    t[i] = s[i] + 0.5 * DT * k2[i];
  rates(p, t, k3);
  for (int i = 0; i < 2; ++i)
    t[i] = s[i] + DT * k3[i];
  rates(p, t, k4);
  for (int i = 0; i < 2; ++i)
    s[i] += DT / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
}

// Simulates from (prey, pred) = (1, 0.5) and writes the state every EVERY
// steps into out[2 * OBS].
static void simulate(const double *p, double *out) {
  double s[2] = {1.0, 0.5};
  for (int k = 0; k < STEPS; ++k) {
    rk4_step(p, s);
    if ((k + 1) % EVERY == 0) {
      out[2 * ((k + 1) / EVERY - 1)] = s[0];
      out[2 * ((k + 1) / EVERY - 1) + 1] = s[1];
    }
  }
}

// The function differentiated: the parameters p carry derivatives (their
// shadow receives the gradient), the observations are AD_CONST.
double loss(const double *p, const double *observed) {
  double predicted[2 * OBS];
  simulate(p, predicted);
  double sum = 0;
  for (int i = 0; i < 2 * OBS; ++i)
    sum += (predicted[i] - observed[i]) * (predicted[i] - observed[i]);
  return sum;
}

// Only the shadow receives derivatives: declare a void variant.
void __ad_gradient_void(void *fn, ...) AD_MARKER;

static void gradient(const double *p, const double *observed, double *g) {
  for (int i = 0; i < PARAMS; ++i)
    g[i] = 0; // the gradient is added to what the shadow holds
  __ad_gradient_void(loss, p, g, AD_CONST, observed);
}

// Compares the gradient at p with central differences; 1 if they agree.
static int check_gradient(const double *p, const double *observed) {
  const char *name[PARAMS] = {"a (prey growth)", "b (predation)",
                              "c (predator death)", "d (predator growth)"};
  double g[PARAMS];
  gradient(p, observed, g);
  printf("%-22s %18s %18s %10s\n", "d loss / d", "ADPass", "finite diff.",
         "rel. diff");
  int ok = 1;
  for (int i = 0; i < PARAMS; ++i) {
    double up[PARAMS], down[PARAMS], h = 1e-6;
    for (int j = 0; j < PARAMS; ++j)
      up[j] = down[j] = p[j];
    up[i] += h;
    down[i] -= h;
    double fd = (loss(up, observed) - loss(down, observed)) / (2 * h);
    double rel = fabs(g[i] - fd) / fmax(fabs(fd), 1e-12);
    ok &= rel < 1e-6;
    printf("%-22s %18.10f %18.10f %10.1e\n", name[i], g[i], fd, rel);
  }
  return ok;
}

int main(void) {
  const double truth[PARAMS] = {1.1, 0.4, 0.4, 0.1};
  double observed[2 * OBS];
  simulate(truth, observed);
  // Synthetic noise, deterministic: +-1%.
  for (int i = 0; i < 2 * OBS; ++i)
    observed[i] *= 1 + 0.01 * sin(12.9898 * i);

  double p[PARAMS] = {1.0, 0.5, 0.5, 0.12};
  int ok = check_gradient(p, observed);

  // Gradient descent with a backtracking line search: halve the step until
  // the loss decreases enough (Armijo), then try a larger one next time.
  double f = loss(p, observed), f0 = f, step = 1e-3;
  printf("\n%6s %14s %10s\n", "iter", "loss", "step");
  for (int it = 0; it <= 300; ++it) {
    double g[PARAMS], trial[PARAMS], gg = 0;
    gradient(p, observed, g);
    for (int i = 0; i < PARAMS; ++i)
      gg += g[i] * g[i];
    for (;;) {
      for (int i = 0; i < PARAMS; ++i)
        trial[i] = p[i] - step * g[i];
      double ft = loss(trial, observed);
      if (ft <= f - 0.5 * step * gg || step < 1e-12) {
        for (int i = 0; i < PARAMS; ++i)
          p[i] = trial[i];
        f = ft;
        break;
      }
      step *= 0.5;
    }
    step *= 2;
    if (it % 30 == 0)
      printf("%6d %14.8f %10.2e\n", it, f, step);
  }
  printf("\nfitted a b c d: %.4f %.4f %.4f %.4f (true %.2f %.2f %.2f %.2f)\n",
         p[0], p[1], p[2], p[3], truth[0], truth[1], truth[2], truth[3]);
  ok &= f < 0.01 * f0;
  printf("%s\n", ok ? "gradient matches finite differences; loss decreased"
                    : "FAILED: gradient and finite differences disagree, or "
                      "the loss did not decrease");
  return ok ? 0 : 1;
}
