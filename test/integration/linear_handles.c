// Linearize once, apply many times: __ad_linearize keeps f's linear map at
// a point; __ad_jvp gives Jacobian columns equal to __ad_derivative's and
// __ad_vjp rows equal to __ad_gradient's, any number of times, interleaved,
// with other shadows each time. Functions with counted and data-dependent
// loops, recursion, heap memory they allocate and free, a callee; several
// handles alive and freed out of order; a handle applied on another thread;
// f's primal side effects (a counter, an output array) happen once, in
// __ad_linearize. Calls through pointers: linear_handles_fnptr.c
// (pthread_create takes a function's address, which makes every function with
// that signature a possible target).
//
// RUN: %adcc -O0 -pthread %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O1 -pthread %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcc -O2 -pthread %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O3 -pthread %s -o %t.O3 %adlibs && %t.O3

#include "ad.h"
#include "adcheck.h"
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { N = 5 };
static int primal_runs;

// Counted loops, a callee, heap memory f allocates and frees.
static double smooth(double a, double b) { return a * tanh(b) + exp(-a * a); }
void mix(const double *x, double *y, int n) {
  ++primal_runs;
  double *t = malloc(n * sizeof(double));
  for (int i = 0; i < n; ++i)
    t[i] = sin(x[i]) * x[(i + 1) % n];
  for (int i = 0; i < n; ++i)
    y[i] = smooth(t[i], x[i]) + t[(i + 2) % n] * t[i];
  free(t);
}

// A loop whose trip count depends on the data, recursion.
static double walk(const double *x, int k) {
  return k == 0 ? x[0] : cos(x[k]) * walk(x, k - 1) + x[k] * x[k - 1];
}
double until(const double *x, int n) {
  ++primal_runs;
  double s = 0;
  int i = 0;
  while (s < 2.5 && i < n) {
    s += exp(0.3 * x[i]) * x[i] * x[i];
    ++i;
  }
  return s + walk(x, n - 1);
}

// Recursion called in a loop, with a loop in each activation; a local
// array whose shadow the handle keeps (cleared before each application).
static int descend(const double *x, int k, double *acc) {
  if (k < 0)
    return 0;
  double s = 0;
  for (int i = 0; i <= k; ++i)
    s += sin(x[i]) * x[k];
  *acc += s * s;
  return 1 + descend(x, k - 1, acc);
}
double nested(const double *x, int n) {
  ++primal_runs;
  double total = 0, local[N];
  for (int r = 0; r < 3; ++r) {
    double acc = 0.1 * r;
    descend(x, n - 1 - r, &acc);
    local[r] = sqrt(acc);
  }
  for (int r = 0; r < 3; ++r)
    total += local[r] * local[(r + 1) % 3];
  return total;
}

// Called through markers only: a gradient reads x again in f.rev instead
// of taping it, which a handle must not (x changes after __ad_linearize).
// energy_ref, a copy, is what the finite differences evaluate.
double energy(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += exp(0.5 * x[i]) * x[i] * x[i];
  return s;
}
static double energy_ref(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += exp(0.5 * x[i]) * x[i] * x[i];
  return s;
}

static const double X0[N] = {0.4, -0.3, 0.9, 0.2, -0.6};

/// Column J e_j of mix by the handle and by __ad_derivative, and row e_i^T J
/// by the handle and by __ad_gradient, in an interleaved order.
static void check_mix(ad_linear *L, const double *x) {
  for (int j = 0; j < N; ++j) {
    double dx[N] = {0}, dy[N] = {0}, e[N] = {0}, dy2[N] = {0}, y[N];
    dx[j] = e[j] = 1;
    __ad_jvp_void(mix, L, x, dx, y, dy, N);
    __ad_derivative_void(mix, x, e, y, dy2, N);
    for (int i = 0; i < N; ++i)
      ad_check(ad_fmt("mix column %d [%d]", j, i), dy[i], dy2[i], 1e-13, 1e-13);
    double gx[N] = {0}, gy[N] = {0}, gx2[N] = {0}, gy2[N] = {0};
    gy[j] = gy2[j] = 1;
    __ad_vjp_void(mix, L, x, gx, y, gy, N);
    __ad_gradient_void(mix, x, gx2, y, gy2, N);
    for (int i = 0; i < N; ++i)
      ad_check(ad_fmt("mix row %d [%d]", j, i), gx[i], gx2[i], 1e-13, 1e-13);
  }
}

struct thread_job {
  ad_linear *L;
  double x[N];
  int ok;
};

static void *apply_elsewhere(void *P) {
  struct thread_job *J = P;
  double gx[N] = {0}, gx2[N] = {0};
  __ad_vjp_void(until, J->L, 1.0, J->x, gx, N);
  __ad_gradient_void(until, J->x, gx2, N);
  J->ok = 1;
  for (int i = 0; i < N; ++i)
    J->ok &= fabs(gx[i] - gx2[i]) <= 1e-12 * (1 + fabs(gx2[i]));
  return NULL;
}

int main(void) {
  double x[N], y[N], y_direct[N];
  memcpy(x, X0, sizeof x);

  primal_runs = 0;
  ad_linear *Lmix = __ad_linearize(mix, x, y, N);
  ad_check("mix ran once", primal_runs, 1, 0, 0);
  mix(x, y_direct, N);
  for (int i = 0; i < N; ++i)
    ad_check(ad_fmt("mix output [%d]", i), y[i], y_direct[i], 0, 0);

  double u, en;
  double x_energy[N];
  memcpy(x_energy, x, sizeof x);
  ad_linear *Lenergy = __ad_linearize(energy, &en, x_energy, N);
  ad_check("energy value", en, energy_ref(x, N), 0, 0);
  for (int i = 0; i < N; ++i)
    x_energy[i] = -3.0 * x_energy[i] + 1.0;
  for (int round = 0; round < 2; ++round) {
    double ge[N] = {0};
    __ad_vjp_void(energy, Lenergy, 1.0, x_energy, ge, N);
    for (int i = 0; i < N; ++i) {
      double e[N] = {0};
      e[i] = 1;
      double *xi = &x[i];
      double fd = AD_FD(*xi, energy_ref(x, N));
      ad_check(ad_fmt("energy row [%d] vs fd", i), ge[i], fd, 1e-6, 1e-8);
      double col = __ad_jvp(energy, Lenergy, x_energy, e, N);
      ad_check(ad_fmt("energy column [%d]", i), col, ge[i], 1e-13, 1e-13);
    }
  }
  ad_linear_free(Lenergy);
  double g_energy[N] = {0};
  __ad_gradient_void(energy, x, g_energy, N);
  ad_check("energy gradient", g_energy[0],
           AD_FD(x[0], energy_ref(x, N)), 1e-6, 1e-8);

  ad_linear *Luntil = __ad_linearize(until, &u, x, N);
  ad_check("until value", u, until(x, N), 0, 0);
  // The handles keep the point: x changes afterwards, and the arguments
  // given to __ad_jvp / __ad_vjp are ignored.
  double x_lin[N];
  memcpy(x_lin, x, sizeof x);
  for (int i = 0; i < N; ++i)
    x[i] += 10;
  primal_runs = 0;
  double y_seen[N];
  memcpy(y_seen, y, sizeof y);
  check_mix(Lmix, x_lin);
  for (int i = 0; i < N; ++i) // what check_mix's y arguments got is ignored
    ad_check(ad_fmt("mix output kept [%d]", i), y[i], y_seen[i], 0, 0);
  primal_runs = 0;
  double dxs[N] = {0};
  __ad_jvp_void(mix, Lmix, x, dxs, y, y_seen, N);
  ad_check("jvp runs no primal code", primal_runs, 0, 0, 0);

  // until: rows against __ad_gradient and finite differences, columns
  // against __ad_derivative.
  double gu[N] = {0};
  __ad_vjp_void(until, Luntil, 1.0, x, gu, N);
  double g2[N] = {0};
  __ad_gradient_void(until, x_lin, g2, N);
  for (int i = 0; i < N; ++i) {
    double *xi = &x_lin[i];
    double fd = AD_FD(*xi, until(x_lin, N));
    ad_check(ad_fmt("until vjp [%d]", i), gu[i], g2[i], 1e-13, 1e-13);
    ad_check(ad_fmt("until vjp vs fd [%d]", i), gu[i], fd, 1e-6, 1e-8);
    double e[N] = {0};
    e[i] = 1;
    double col = __ad_jvp(until, Luntil, x, e, N);
    double col2 = __ad_derivative(until, x_lin, e, N);
    ad_check(ad_fmt("until jvp [%d]", i), col, col2, 1e-13, 1e-13);
  }
  // A cotangent other than 1 scales the row; += into the shadow.
  double g3[N] = {0};
  __ad_vjp_void(until, Luntil, -2.0, x, g3, N);
  __ad_vjp_void(until, Luntil, 0.5, x, g3, N);
  for (int i = 0; i < N; ++i)
    ad_check(ad_fmt("until vjp scaled [%d]", i), g3[i], -1.5 * gu[i], 1e-13,
             1e-13);

  // Recursion in a loop: rows and columns in turns, several times.
  ad_linear *Lnested = __ad_linearize(nested, &u, x_lin, N);
  for (int round = 0; round < 2; ++round)
    for (int i = 0; i < N; ++i) {
      double gx[N] = {0}, gx2[N] = {0}, e[N] = {0};
      e[i] = 1;
      double col = __ad_jvp(nested, Lnested, x, e, N);
      __ad_vjp_void(nested, Lnested, 1.0, x, gx, N);
      __ad_gradient_void(nested, x_lin, gx2, N);
      double col2 = __ad_derivative(nested, x_lin, e, N);
      ad_check(ad_fmt("nested column %d", i), col, col2, 1e-13, 1e-13);
      for (int k = 0; k < N; ++k)
        ad_check(ad_fmt("nested row [%d]", k), gx[k], gx2[k], 1e-13, 1e-13);
      double *xi = &x_lin[i];
      double fd = AD_FD(*xi, nested(x_lin, N));
      ad_check(ad_fmt("nested column %d vs fd", i), col, fd, 1e-6, 1e-8);
    }

  // Freed out of order; the others still work.
  check_mix(Lmix, x_lin);
  ad_linear_free(Lmix);
  ad_linear_free(NULL);

  // Another thread applies a handle made here.
  struct thread_job job = {Luntil, {0}, 0};
  memcpy(job.x, x_lin, sizeof x_lin);
  pthread_t th;
  pthread_create(&th, NULL, apply_elsewhere, &job);
  pthread_join(th, NULL);
  ad_check("applied on another thread", job.ok, 1, 0, 0);
  ad_linear_free(Luntil);
  ad_linear_free(Lnested);
  return ad_finish();
}
