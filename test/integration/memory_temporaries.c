// Temporaries inside the differentiated function (plain C, no C++): a local
// array (double t[8]) written and read back, a local array reused in every
// iteration of an outer loop, a local float array, a malloc'd temporary
// (freed before returning), a calloc'd accumulator, memcpy from an input
// into a local and into a heap temporary (then updated in place), memmove
// within a temporary (overlapping), memset of an accumulator, and a void
// kernel that builds its result in a local and memcpy's it to the output
// (VJP: the output shadow ends zero). The inputs' shadows must only see +=.
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O3 %s -o %t.O3 %adlibs && %t.O3

#include "ad.h"
#include "adcheck.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define N 8

// t[i] = x[i] x[i+1 mod n]; returns sum t[i] t[i+3 mod n]. Needs n <= 8.
double local_tmp(const double *x, int n) {
  double t[8];
  for (int i = 0; i < n; i++)
    t[i] = x[i] * x[(i + 1) % n];
  double s = 0;
  for (int i = 0; i < n; i++)
    s += t[i] * t[(i + 3) % n];
  return s;
}

// For each i: t = {x_i, x_i^2, sin x_i}; s += t0 t1 + t2 t0. (One local, reused.)
double local_reused(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double t[3];
    t[0] = x[i];
    t[1] = t[0] * t[0];
    t[2] = sin(t[0]);
    s += t[0] * t[1] + t[2] * t[0];
  }
  return s;
}

// float temporaries: sum over i of (float)(x_i) ^ 2 * 3, in float.
double local_float(const double *x, int n) {
  float t[8];
  for (int i = 0; i < n; i++)
    t[i] = (float)x[i];
  float s = 0;
  for (int i = 0; i < n; i++)
    s += 3.0f * t[i] * t[i];
  return s;
}

// Heap: t[i] = exp(x[i] / 2); returns sum t[i] t[n-1-i].
double heap_tmp(const double *x, int n) {
  double *t = malloc(n * sizeof *t);
  for (int i = 0; i < n; i++)
    t[i] = exp(x[i] / 2);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += t[i] * t[n - 1 - i];
  free(t);
  return s;
}

// calloc'd bins: acc[i % m] += x_i^2; returns sum (j+1) acc[j]^2.
double calloc_bins(const double *x, int n, int m) {
  double *acc = calloc(m, sizeof *acc);
  for (int i = 0; i < n; i++)
    acc[i % m] += x[i] * x[i];
  double s = 0;
  for (int j = 0; j < m; j++)
    s += (j + 1) * acc[j] * acc[j];
  free(acc);
  return s;
}

// memcpy into a local, squared in place; returns sum w_i t_i (w_i = i + 1).
double memcpy_local(const double *x, int n) {
  double t[8];
  memcpy(t, x, n * sizeof *t);
  for (int i = 0; i < n; i++)
    t[i] = t[i] * t[i];
  double s = 0;
  for (int i = 0; i < n; i++)
    s += (i + 1) * t[i];
  return s;
}

// memcpy into a heap temporary, then memmove it up by one (overlapping):
// t = {x0, x0, x1, ..., x_{n-2}}; returns sum_i t_i^2 c_i with c_i = i - 1.5.
double memmove_heap(const double *x, int n) {
  double *t = malloc(n * sizeof *t);
  memcpy(t, x, n * sizeof *t);
  memmove(t + 1, t, (n - 1) * sizeof *t);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += (i - 1.5) * t[i] * t[i];
  free(t);
  return s;
}

// memset accumulator (4 bins), refilled twice: the second fill sees only
// the last half; returns acc . acc.
double memset_acc(const double *x, int n) {
  double acc[4];
  memset(acc, 0, sizeof acc);
  for (int i = 0; i < n; i++)
    acc[i % 4] += x[i] * x[i] * x[i];
  double s = acc[0] * acc[1];
  memset(acc, 0, sizeof acc);
  for (int i = n / 2; i < n; i++)
    acc[i % 4] += x[i];
  for (int j = 0; j < 4; j++)
    s += acc[j] * acc[j];
  return s;
}

// out = cumulative products of x built in a local, then memcpy'd.
void build_and_copy(const double *x, double *out, int n) {
  double t[8];
  t[0] = x[0];
  for (int i = 1; i < n; i++)
    t[i] = t[i - 1] * x[i];
  memcpy(out, t, n * sizeof *t);
}

static volatile int vn = N;
static volatile double vx[N] = {0.7, -1.3, 1.1, 0.45, -0.6, 1.15, -0.85, 0.9};

static const ad_tol TOL_FL = {1e-5, 1e-6, 1e-3, 1e-4};

#define GRAD_LOOP(name, call, fdexpr, formula, tol)                            \
  do {                                                                         \
    for (int i_ = 0; i_ < N; i_++)                                             \
      dx[i_] = 0.5 * i_; /* += onto this */                                    \
    call;                                                                      \
    for (int i = 0; i < N; i++) {                                              \
      double fd_ = AD_FD(x[i], fdexpr);                                        \
      ad_deriv(ad_fmt("%s d/dx[%d] (+%g)", name, i, 0.5 * i), dx[i],           \
               0.5 * i + (formula), 0.5 * i + fd_, tol);                       \
    }                                                                          \
  } while (0)

int main(int argc, char **argv) {
  (void)argv;
  int n = vn + (argc - 1);
  double x[N], dx[N];
  for (int i = 0; i < N; i++)
    x[i] = vx[i];

  for (int len = 3; len <= n; len += n - 3) {
    // local_tmp: d/dx_k of sum_i t_i t_{i+3} with t_i = x_i x_{i+1}.
    double t[N];
    for (int i = 0; i < len; i++)
      t[i] = x[i] * x[(i + 1) % len];
    double g[N] = {0};
    for (int i = 0; i < len; i++) {
      double ct = t[(i + 3) % len] + t[(i - 3 + 3 * len) % len]; // d s / d t_i
      g[i] += ct * x[(i + 1) % len];
      g[(i + 1) % len] += ct * x[i];
    }
    GRAD_LOOP(ad_fmt("local_tmp(n=%d)", len), __ad_gradient(local_tmp, x, dx, len),
              local_tmp(x, len), g[i], AD_TOL_D);
  }

  GRAD_LOOP("local_reused", __ad_gradient(local_reused, x, dx, n),
            local_reused(x, n),
            3 * x[i] * x[i] + sin(x[i]) + x[i] * cos(x[i]), AD_TOL_D);

  // Float code: finite differences with a float-sized step on a float copy
  // of x[i] (the double step would drown in float rounding).
  {
    for (int i = 0; i < N; i++)
      dx[i] = 0.5 * i;
    __ad_gradient(local_float, x, dx, n);
    for (int i = 0; i < N; i++) {
      double keep = x[i];
      float xf = (float)keep;
      double fd = AD_FD(xf, (x[i] = xf, local_float(x, n)));
      x[i] = keep;
      ad_deriv(ad_fmt("local_float d/dx[%d] (+%g)", i, 0.5 * i), dx[i],
               0.5 * i + 6.0 * (float)x[i], 0.5 * i + fd, TOL_FL);
    }
  }

  GRAD_LOOP("heap_tmp", __ad_gradient(heap_tmp, x, dx, n), heap_tmp(x, n),
            exp(x[i] / 2) * exp(x[n - 1 - i] / 2),
            AD_TOL_D);

  for (int m = 1; m <= 3; m++) {
    double acc[3] = {0, 0, 0};
    for (int i = 0; i < n; i++)
      acc[i % m] += x[i] * x[i];
    GRAD_LOOP(ad_fmt("calloc_bins(m=%d)", m),
              __ad_gradient(calloc_bins, x, dx, n, m), calloc_bins(x, n, m),
              2 * (i % m + 1) * acc[i % m] * 2 * x[i], AD_TOL_D);
  }

  GRAD_LOOP("memcpy_local", __ad_gradient(memcpy_local, x, dx, n),
            memcpy_local(x, n), 2 * (i + 1) * x[i], AD_TOL_D);

  // memmove_heap: x0 appears at t0 and t1 (c = -1.5, -0.5), x_i at t_{i+1}
  // for i <= n-2, x_{n-1} nowhere.
  GRAD_LOOP("memmove_heap", __ad_gradient(memmove_heap, x, dx, n),
            memmove_heap(x, n),
            i == 0 ? 2 * x[0] * (-1.5 - 0.5)
                   : (i <= n - 2 ? 2 * (i + 1 - 1.5) * x[i] : 0),
            AD_TOL_D);

  {
    double a3[4] = {0}, a1[4] = {0};
    for (int i = 0; i < n; i++)
      a3[i % 4] += x[i] * x[i] * x[i];
    for (int i = n / 2; i < n; i++)
      a1[i % 4] += x[i];
    GRAD_LOOP("memset_acc", __ad_gradient(memset_acc, x, dx, n),
              memset_acc(x, n),
              3 * x[i] * x[i] *
                      (i % 4 == 0 ? a3[1] : i % 4 == 1 ? a3[0] : 0) +
                  (i >= n / 2 ? 2 * a1[i % 4] : 0),
              AD_TOL_D);
  }

  // VJP through a local + memcpy to the output; out is a pure output, so its
  // shadow ends zero. dx_k = sum_{i>=k} w_i P_i / x_k (P_i = x_0 ... x_i).
  {
    double out[N], dout[N], w[N], P[N];
    for (int i = 0; i < N; i++) {
      w[i] = 1.0 - 0.3 * i;
      dout[i] = w[i];
      dx[i] = -0.25;
      P[i] = x[i] * (i ? P[i - 1] : 1);
    }
    __ad_gradient_void(build_and_copy, x, dx, out, dout, n);
    for (int k = 0; k < N; k++) {
      double want = 0;
      for (int i = k; i < N; i++)
        want += w[i] * P[i] / x[k];
      double o[N];
#define WOUT()                                                                 \
  (build_and_copy(x, o, n), o[0] * w[0] + o[1] * w[1] + o[2] * w[2] +          \
                                o[3] * w[3] + o[4] * w[4] + o[5] * w[5] +      \
                                o[6] * w[6] + o[7] * w[7])
      ad_deriv(ad_fmt("build_and_copy vjp d/dx[%d] (-0.25)", k), dx[k],
               -0.25 + want, -0.25 + AD_FD(x[k], WOUT()), AD_TOL_D);
      ad_check(ad_fmt("build_and_copy primal out[%d]", k), out[k], P[k], 1e-15,
               0);
      ad_check(ad_fmt("build_and_copy dout[%d] ends zero", k), dout[k], 0, 0, 0);
    }
  }

  return ad_finish();
}
