// The reverse pass runs a loop forwards when its transposed iterations
// commute (pass/transpose/IterationOrder.h): they only add into shadow
// memory and carry sums. Here, against central differences and analytic
// values, loops where it fires (neighbouring iterations adding into one
// shadow cell, a scalar whose cotangent sums over all iterations, two sums
// and a difference carried, an inner loop of a nest) and loops where it
// must not: a product or a decaying sum carried, a value of the last
// iteration used after the loop, an early exit, a recurrence through
// memory, stores that a later iteration reads back.
// Squares (x * x, y - x * x, x * -x, fma(x, x, y)) have one tangent term
// 2 (x dx) (pass/linearize/Linearize.cpp): also checked here, in double
// and float.
// clang-format off
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O2 -ffast-math %s -o %t.fast %adlibs && %t.fast
// clang-format on
#include "ad.h"
#include "adcheck.h"
#include <math.h>
#include <string.h>

enum { N = 7 };

// Each shadow cell receives from three iterations.
double stencil(const double *x, int n) {
  double s = 0;
  for (int i = 1; i + 1 < n; ++i)
    s += x[i] * (x[i - 1] - 2 * x[i] + x[i + 1]);
  return s;
}

// c's cotangent sums over every iteration.
double scaled(const double *x, double c, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += c * x[i] * x[i];
  return s;
}

// Two sums and a difference carried by one loop.
double two_sums(const double *x, int n) {
  double s = 0, t = 1;
  for (int i = 0; i < n; ++i) {
    s += x[i];
    s += sin(x[i]);
    t -= 0.5 * x[i] * x[i];
  }
  return s * t;
}

// The inner loops run forwards, the outer backwards.
double nest(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      s += x[i] * cos(x[j]) * (i + 1);
  return s;
}

// Must run backwards: a product is carried.
double product(const double *x, int n) {
  double p = 1;
  for (int i = 0; i < n; ++i)
    p *= x[i];
  return p;
}

// Must run backwards: a decaying sum is carried.
double decay(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s = 0.5 * s + x[i] * x[i];
  return s;
}

// Must run backwards: the last iteration's square is used after the loop.
double last_used(const double *x, int n) {
  double s = 0, t = 0;
  for (int i = 0; i < n; ++i) {
    t = x[i] * x[i];
    s += t;
  }
  return s + 3 * t;
}

// Must run backwards: the loop may leave in the middle of an iteration.
double early_exit(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) {
    if (x[i] > 1.0)
      break;
    s += x[i] * x[i];
  }
  return s;
}

// Must run backwards: each iteration reads what the previous one stored.
double through_memory(const double *x, int n) {
  double y[N];
  y[0] = x[0];
  for (int i = 1; i < n; ++i)
    y[i] = 0.9 * y[i - 1] * x[i] + x[i];
  return y[n - 1];
}

// Must run backwards: a later iteration overwrites what an earlier one
// stored, after a read of it in between.
double overwritten(const double *x, int n) {
  double cell = 0, s = 0;
  double *volatile p = &cell;
  for (int i = 0; i < n; ++i) {
    s += *p * x[i];
    *p = x[i] * x[i];
  }
  return s + *p;
}

double square(double x) { return x * x; }
double minus_square(double x, double y) { return y - x * x; }
double times_negated(double x) { return x * -x; }
double fma_square(double x, double y) { return fma(x, x, y); }
float square_f(float x) { return x * x + 1; }

int main(void) {
  volatile int vn = N;
  int n = vn;
  const double x0[N] = {0.3, -1.2, 0.9, 0.2, 0.7, -0.4, 0.5};
  const double early[N] = {0.3, -0.8, 0.6, 1.4, 0.9, 0.2, 0.5};

  AD_CHECK_ARRAY_FN(stencil, N, x0, n);
  {
    double c = 1.7, dx[N] = {0}, x[N];
    memcpy(x, x0, sizeof x);
    double dc = __ad_gradient(scaled, x, dx, c, n);
    double sq = 0;
    for (int i = 0; i < N; ++i) {
      sq += x0[i] * x0[i];
      ad_check(ad_fmt("scaled d/dx[%d]", i), dx[i], 2 * c * x0[i], 1e-12,
               1e-14);
    }
    ad_deriv("scaled d/dc", dc, sq, AD_FD(c, scaled(x, c, n)), AD_TOL_D);
  }
  AD_CHECK_ARRAY_FN(two_sums, N, x0, n);
  AD_CHECK_ARRAY_FN(nest, N, x0, n);
  AD_CHECK_ARRAY_FN(product, N, x0, n);
  AD_CHECK_ARRAY_FN(decay, N, x0, n);
  AD_CHECK_ARRAY_FN(last_used, N, x0, n);
  AD_CHECK_ARRAY_FN(early_exit, N, early, n);
  AD_CHECK_ARRAY_FN(through_memory, N, x0, n);
  AD_CHECK_ARRAY_FN(overwritten, N, x0, n);

  double x = -0.7, y = 0.4;
  ad_deriv("square", __ad_gradient(square, x), 2 * x, ad_fd1(square, x),
           AD_TOL_D);
  ad_deriv("times_negated", __ad_gradient(times_negated, x), -2 * x,
           ad_fd1(times_negated, x), AD_TOL_D);
  typedef struct {
    double dx, dy;
  } pair;
  pair __ad_gradient_pair(void *, ...);
  pair g = __ad_gradient_pair(fma_square, x, y);
  ad_deriv("fma_square d/dx", g.dx, 2 * x, AD_FD(x, fma_square(x, y)),
           AD_TOL_D);
  ad_check("fma_square d/dy", g.dy, 1, 0, 0);
  ad_check("fma_square forward", __ad_derivative(fma_square, x, 1.0, y, 0.0),
           2 * x, 1e-12, 1e-14);
  g = __ad_gradient_pair(minus_square, x, y);
  ad_deriv("minus_square d/dx", g.dx, -2 * x, AD_FD(x, minus_square(x, y)),
           AD_TOL_D);
  ad_check("minus_square d/dy", g.dy, 1, 0, 0);
  ad_check("minus_square forward",
           __ad_derivative(minus_square, x, 0.5, y, 0.0), -x, 1e-12, 1e-14);
  float xf = -0.7f;
  ad_deriv("square_f", __ad_gradient_f(square_f, xf), 2 * xf,
           ad_fd1f(square_f, xf), AD_TOL_F);
  return ad_finish();
}
