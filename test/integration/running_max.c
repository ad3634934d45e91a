// A loop keeping the largest (or smallest) element so far ends with one
// loaded value: the last one it chose. When the loop writes no memory,
// the derivative reads that value again from its address after the loop,
// and the loop keeps nothing per iteration (before: the comparison of
// every iteration). Checked against central differences and analytic
// values, with ties (the element the loop ends with gets the derivative),
// a running max that starts from a computed value and may never be
// replaced, two in one loop, one per row, an early exit, values computed
// from one element (|x[i]|), a loop that also writes memory of its own;
// and where the rewrite must not fire: the loop writes the input (also
// through a second pointer that is the input), writes through a call,
// chooses values that depend on the counter or two kinds of computed
// values.
// clang-format off
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O2 -ffast-math %s -o %t.fast %adlibs && %t.fast
// RUN: %adcc -O2 -c %s -o %t.o -Rpass=adpass 2>&1 | FileCheck %s
// clang-format on
#include "ad.h"
#include "adcheck.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { N = 6 };

double lse(const double *x, int n) {
  double m = x[0];
  // CHECK-DAG: gradient of 'lse': the loop at line [[@LINE+1]] keeps 0 bytes per iteration
  for (int i = 1; i < n; ++i)
    if (x[i] > m)
      m = x[i];
  double s = 0;
  // CHECK-DAG: gradient of 'lse': the loop at line [[@LINE+1]] keeps 0 bytes per iteration
  for (int i = 0; i < n; ++i)
    s += exp(x[i] - m);
  return m + log(s);
}

// The start is computed (not a load): if no element beats it, its
// derivative is the one that counts.
double max_from_twice(const double *x, int n) {
  double m = 2 * x[0];
  // CHECK-DAG: gradient of 'max_from_twice': the loop at line [[@LINE+1]] keeps 0 bytes per iteration
  for (int i = 1; i < n; ++i)
    if (x[i] > m)
      m = x[i];
  return m * m + x[0];
}

double first_max(const double *x, int n) {
  double m = x[0];
  for (int i = 1; i < n; ++i)
    if (x[i] > m)
      m = x[i];
  return m;
}

double last_max(const double *x, int n) {
  double m = x[0];
  for (int i = 1; i < n; ++i)
    if (x[i] >= m)
      m = x[i];
  return m;
}

float last_min_f(const float *x, int n) {
  float m = x[0];
  for (int i = 1; i < n; ++i)
    m = x[i] <= m ? x[i] : m;
  return m;
}

// fmax and fmin: a NaN element is skipped.
double fmax_of(const double *x, int n) {
  double m = -INFINITY;
  // CHECK-DAG: gradient of 'fmax_of': the loop at line [[@LINE+1]] keeps 0 bytes per iteration
  for (int i = 0; i < n; ++i)
    m = fmax(m, x[i]);
  return m;
}

float fmin_of_f(const float *x, int n) {
  float m = x[0];
  for (int i = 1; i < n; ++i)
    m = fminf(x[i], m);
  return m * m;
}

// Chosen values computed from one load each (an infinity norm, a widened
// float): the value is computed again from the element after the loop.
double inf_norm(const double *x, int n) {
  double m = 0;
  // CHECK-DAG: gradient of 'inf_norm': the loop at line [[@LINE+1]] keeps 0 bytes per iteration
  for (int i = 0; i < n; ++i)
    m = fmax(m, fabs(x[i]));
  return m * x[0];
}

double max_exp_scaled(const double *x, int n) {
  double m = -1, scale = x[0] * x[0];
  // CHECK-DAG: gradient of 'max_exp_scaled': the loop at line [[@LINE+1]] keeps 0 bytes per iteration
  for (int i = 0; i < n; ++i) {
    double t = exp(scale * x[i]);
    if (t > m)
      m = t;
  }
  return m;
}

// Must not fire: the chosen value depends on the counter.
double max_weighted_by_index(const double *x, int n) {
  double m = 0;
  for (int i = 0; i < n; ++i)
    if ((i + 1) * x[i] > m)
      m = (i + 1) * x[i];
  return m * m;
}

// Must not fire: two computed values chosen (which one won is unknown).
double max_of_two_kinds(const double *x, int n) {
  double m = 0;
  for (int i = 0; i + 1 < n; ++i) {
    m = fmax(m, fabs(x[i]));
    m = fmax(m, 2 * x[i + 1]);
  }
  return m;
}

double range(const double *x, int n) {
  double lo = x[0], hi = x[0];
  // CHECK-DAG: gradient of 'range': the loop at line [[@LINE+1]] keeps 0 bytes per iteration
  for (int i = 1; i < n; ++i) {
    if (x[i] > hi)
      hi = x[i];
    if (x[i] < lo)
      lo = x[i];
  }
  return hi * hi - lo * sin(hi);
}

// Two loads chosen in one iteration: the first and the second half.
double max_of_halves(const double *x, int n) {
  double m = x[0];
  // CHECK-DAG: gradient of 'max_of_halves': the loop at line [[@LINE+1]] keeps 0 bytes per iteration
  for (int i = 0; i < n / 2; ++i) {
    if (x[i] > m)
      m = x[i];
    if (x[i + n / 2] > m)
      m = x[i + n / 2];
  }
  return exp(m);
}

// One running max per row of a 2 x 3 matrix, inside the row loop.
double row_lse(const double *x, int n) {
  int cols = n / 2;
  double total = 0;
  for (int r = 0; r < 2; ++r) {
    const double *row = x + r * cols;
    double m = row[0];
    // CHECK-DAG: gradient of 'row_lse': the loop at line [[@LINE+1]] keeps 0 bytes per iteration
    for (int j = 1; j < cols; ++j)
      if (row[j] > m)
        m = row[j];
    double s = 0;
    for (int j = 0; j < cols; ++j)
      s += exp(row[j] - m);
    total += (r + 1) * (m + log(s));
  }
  return total;
}

// Leaves at the first element above a limit.
double max_until(const double *x, int n) {
  double m = x[0];
  for (int i = 1; i < n; ++i) {
    if (x[i] > 1.0)
      break;
    if (x[i] > m)
      m = x[i];
  }
  return m * x[n - 1];
}

// The input is changed after the loop: the value is read before.
double shift_by_max(double *x, int n) {
  double m = x[0];
  for (int i = 1; i < n; ++i)
    if (x[i] > m)
      m = x[i];
  double s = 0;
  for (int i = 0; i < n; ++i) {
    x[i] -= m;
    s += x[i] * x[i];
  }
  return s;
}

// Must not fire: the loop halves each element after comparing it, so the
// maximum is no longer in memory when the loop ends.
double halved_in_loop(double *x, int n) {
  double m = x[0];
  // CHECK-DAG: gradient of 'halved_in_loop': the loop at line [[@LINE+1]] keeps 1 bytes per iteration
  for (int i = 0; i < n; ++i) {
    if (x[i] > m)
      m = x[i];
    x[i] *= 0.5;
  }
  return m * m + x[1];
}

// The loop writes other memory, which alias analysis tells apart from the
// input (a block this function allocates): the maximum is still read again.
double max_and_scaled_copy(const double *x, int n) {
  double *copy = malloc(n * sizeof(double));
  double m = x[0];
  // CHECK-DAG: gradient of 'max_and_scaled_copy': the loop at line [[@LINE+1]] keeps 0 bytes per iteration
  for (int i = 0; i < n; ++i) {
    copy[i] = 2 * x[i];
    if (x[i] > m)
      m = x[i];
  }
  double s = m * m;
  for (int i = 0; i < n; ++i)
    s += copy[i] * x[i];
  free(copy);
  return s;
}

// Must not fire: y may be x (it is, below), and the loop halves y[i].
double max_and_halved_other(double *x, double *y, int n) {
  double m = x[0];
  for (int i = 0; i < n; ++i) {
    if (x[i] > m)
      m = x[i];
    y[i] *= 0.5;
  }
  return m * m + x[1];
}
static double halved_other_on_itself(double *x, int n) {
  return max_and_halved_other(x, x, n);
}

double g_scale = 1;
__attribute__((noinline)) void halve_at(double *p) {
  *p *= 0.5;
  g_scale += 1;
}

// Must not fire: a call in the loop writes the element.
double halved_by_call(double *x, int n) {
  double m = x[0];
  for (int i = 1; i < n; ++i) {
    if (x[i] > m)
      m = x[i];
    halve_at(&x[i]);
  }
  return m * m;
}

// Left as written: the running max is used for more than comparisons (an
// online log-sum-exp rescales the sum by it), so its tangent is needed in
// every iteration anyway.
double online_lse(const double *x, int n) {
  double m = x[0], s = 1;
  for (int i = 1; i < n; ++i) {
    if (x[i] > m) {
      s = s * exp(m - x[i]) + 1;
      m = x[i];
    } else {
      s += exp(x[i] - m);
    }
  }
  return m + log(s);
}

// Must not fire: the loop chooses computed values, not loaded ones.
double max_doubled(const double *x, int n) {
  double m = 0;
  for (int i = 0; i < n; ++i)
    if (2 * x[i] + 1 > m)
      m = 2 * x[i] + 1;
  return m * m;
}

static double eval_mut(double (*f)(double *, int), const double *w) {
  double c[N];
  memcpy(c, w, sizeof c);
  return f(c, N);
}

static void check_winner(const char *name, const double *dx, int winner) {
  for (int j = 0; j < N; ++j)
    ad_check(ad_fmt("%s d/dx[%d]", name, j), dx[j], j == winner ? 1 : 0, 0,
             0);
}

int main(void) {
  volatile int vn = N;
  int n = vn;
  const double x0[N] = {0.3, -1.2, 0.9, 0.2, 0.7, -0.4};
  const double low_start[N] = {0.9, -1.2, 0.4, 1.3, 0.7, 1.6};
  const double high_start[N] = {0.9, -1.2, 0.4, 1.3, 0.7, 1.1};
  const double early[N] = {0.3, 0.8, -0.5, 1.4, 0.95, 0.6};

  AD_CHECK_ARRAY_FN(lse, N, x0, n);
  {
    // Forward mode along v, against a central difference along v.
    double x[N], v[N] = {1, -2, 0.5, 3, -1, 2}, xp[N], xm[N], h = 1e-6;
    memcpy(x, x0, sizeof x);
    double got = __ad_derivative(lse, x, v, n);
    for (int k = 0; k < N; ++k) {
      xp[k] = x0[k] + h * v[k];
      xm[k] = x0[k] - h * v[k];
    }
    ad_check("lse forward", got, (lse(xp, N) - lse(xm, N)) / (2 * h), 1e-6,
             1e-8);
  }
  AD_CHECK_GRADIENT("max_from_twice (start kept)", N, low_start,
                    __ad_gradient_void(max_from_twice, x, dx, n),
                    max_from_twice(w, n));
  AD_CHECK_GRADIENT("max_from_twice (start beaten)", N, high_start,
                    __ad_gradient_void(max_from_twice, x, dx, n),
                    max_from_twice(w, n));
  AD_CHECK_ARRAY_FN(range, N, x0, n);
  AD_CHECK_ARRAY_FN(inf_norm, N, x0, n);
  AD_CHECK_ARRAY_FN(max_exp_scaled, N, x0, n);
  AD_CHECK_ARRAY_FN(max_weighted_by_index, N, x0, n);
  AD_CHECK_ARRAY_FN(max_of_two_kinds, N, x0, n);
  AD_CHECK_ARRAY_FN(max_of_halves, N, x0, n);
  AD_CHECK_ARRAY_FN(row_lse, N, x0, n);
  AD_CHECK_ARRAY_FN(max_until, N, early, n);
  AD_CHECK_GRADIENT("shift_by_max", N, x0,
                    __ad_gradient_void(shift_by_max, x, dx, n),
                    eval_mut(shift_by_max, w));
  AD_CHECK_GRADIENT("halved_in_loop", N, x0,
                    __ad_gradient_void(halved_in_loop, x, dx, n),
                    eval_mut(halved_in_loop, w));
  AD_CHECK_ARRAY_FN(max_and_scaled_copy, N, x0, n);
  AD_CHECK_GRADIENT("max_and_halved_other (y is x)", N, x0,
                    __ad_gradient_void(max_and_halved_other, x, dx, x, dx, n),
                    eval_mut(halved_other_on_itself, w));
  AD_CHECK_GRADIENT("halved_by_call", N, x0,
                    __ad_gradient_void(halved_by_call, x, dx, n),
                    eval_mut(halved_by_call, w));
  AD_CHECK_ARRAY_FN(max_doubled, N, x0, n);
  AD_CHECK_ARRAY_FN(online_lse, N, x0, n);

  // Ties: the element the loop ends with gets the derivative, the first
  // of equal maxima for '>', the last for '>='.
  const double ties[N] = {0.5, 2.0, -1.0, 2.0, 2.0, 1.0};
  {
    double x[N], dx[N] = {0};
    memcpy(x, ties, sizeof x);
    __ad_gradient_void(first_max, x, dx, n);
    check_winner("first_max", dx, 1);
    memset(dx, 0, sizeof dx);
    __ad_gradient_void(last_max, x, dx, n);
    check_winner("last_max", dx, 4);
    // A maximum at the start, never replaced.
    double y[N] = {3.0, 2.0, -1.0, 2.0, 2.0, 1.0}, dy[N] = {0};
    __ad_gradient_void(first_max, y, dy, n);
    check_winner("first_max at start", dy, 0);
  }
  {
    double x[N] = {0.5, 2.0, -1.0, 2.5, 2.0, 1.0}, dx[N] = {0};
    __ad_gradient_void(fmax_of, x, dx, n);
    check_winner("fmax_of", dx, 3);
#ifndef __FAST_MATH__
    x[3] = NAN;
    memset(dx, 0, sizeof dx);
    __ad_gradient_void(fmax_of, x, dx, n);
    check_winner("fmax_of with a NaN", dx, 1);
#endif
    float y[N] = {0.5f, -2.0f, 1.0f, -2.5f, 3.0f, -1.0f}, dy[N] = {0};
    __ad_gradient_void(fmin_of_f, y, dy, n);
    for (int j = 0; j < N; ++j)
      ad_check(ad_fmt("fmin_of_f d/dx[%d]", j), dy[j], j == 3 ? -5.0 : 0, 0,
               0);
  }
  {
    float x[N] = {0.5f, -2.0f, 1.0f, -2.0f, 3.0f, -1.0f}, dx[N] = {0};
    __ad_gradient_void(last_min_f, x, dx, n);
    for (int j = 0; j < N; ++j)
      ad_check(ad_fmt("last_min_f d/dx[%d]", j), dx[j], j == 3 ? 1 : 0, 0, 0);
  }
  return ad_finish();
}
