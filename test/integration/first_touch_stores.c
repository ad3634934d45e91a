// The usual call zeroes the shadow, then asks for the gradient. With f.rev
// inlined after the memset, its loop's first accumulation into each zeroed
// cell becomes a store and the memset runs only where the loop does not
// (FirstTouchStores.h). Checked against analytic values and central
// differences where it fires, and where it must not: a cell written between
// the memset and the request, a memset shorter than the range the loop
// touches (statically, and only for some n at run time), cells two
// iterations add into, a loop run backwards, two shadows that are one
// array or overlap, and a loop not run at all.
// clang-format off
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O2 -ffast-math %s -o %t.fast %adlibs && %t.fast
// RUN: %adcc -O2 -S -emit-llvm -fno-discard-value-names %s -o - | FileCheck %s
// clang-format on
#include "ad.h"
#include "adcheck.h"
#include <string.h>

enum { N = 9, SENTINEL = 1000 };

double squares(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += x[i] * x[i];
  return s;
}

// Extended Rosenbrock: pairs (x[i], x[i+1]) for even i < n. With n odd it
// reads x[n], so the loop touches one cell more than a memset of n cells.
double pairs(const double *x, int n) {
  double f = 0;
  for (int i = 0; i < n; i += 2) {
    double a = 1 - x[i], b = x[i + 1] - x[i] * x[i];
    f += a * a + 100 * b * b;
  }
  return f;
}

// Neighbours: cell i receives from iterations i - 1 and i.
double neighbours(const double *x, int n) {
  double s = 0;
  for (int i = 0; i + 1 < n; ++i)
    s += x[i] * x[i + 1];
  return s;
}

// A carried product: f.rev runs this loop backwards.
double product(const double *x, int n) {
  double p = 1;
  for (int i = 0; i < n; ++i)
    p *= 1 + x[i] * x[i] / 4;
  return p;
}

double inner(const double *x, const double *y, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += x[i] * y[i];
  return s;
}

// grad_f(x, dx, n): zeroes dx[0..n), then the gradient of f.
#define GRADIENT_AFTER_MEMSET(f)                                               \
  __attribute__((noinline)) void grad_##f(const double *x, double *dx,         \
                                          int n) {                             \
    memset(dx, 0, n * sizeof(double));                                         \
    __ad_gradient_void(f, x, dx, n);                                           \
  }

// Fires: the memset only where the loop does not run, no load of dx.
// CHECK-LABEL: define {{.*}} @grad_squares(
// CHECK-NEXT: entry:
// CHECK-NOT: @llvm.memset
// CHECK: br i1
// CHECK-NOT: load {{.*}} !alias.scope
// CHECK: ret void
GRADIENT_AFTER_MEMSET(squares)

// Fires behind a run-time check of the range.
// CHECK-LABEL: define {{.*}} @grad_pairs(
// CHECK: %ad.first.touch.within
// CHECK: ret void
GRADIENT_AFTER_MEMSET(pairs)

// Must not fire: dx[0] is written after the memset.
// CHECK-LABEL: define {{.*}} @grad_preset(
// CHECK: load {{.*}} !alias.scope
// CHECK: ret void
__attribute__((noinline)) void grad_preset(const double *x, double *dx,
                                           int n) {
  memset(dx, 0, n * sizeof(double));
  dx[0] = 5;
  __ad_gradient_void(squares, x, dx, n);
}

__attribute__((noinline)) void grad_short(const double *x, double *dx, int n,
                                          int zeroed) {
  memset(dx, 0, zeroed * sizeof(double));
  __ad_gradient_void(squares, x, dx, n);
}

// Must not fire: cells receive from two iterations.
// CHECK-LABEL: define {{.*}} @grad_neighbours(
// CHECK: load {{.*}} !alias.scope
// CHECK: ret void
GRADIENT_AFTER_MEMSET(neighbours)

GRADIENT_AFTER_MEMSET(product)

// Fires for each shadow, behind run-time checks that the other shadow's
// cells lie apart (f.rev does not tell two shadows apart).
// CHECK-LABEL: define {{.*}} @grad_inner(
// CHECK: %ad.first.touch.apart
// CHECK: %ad.first.touch.apart
// CHECK: ret void
__attribute__((noinline)) void grad_inner(const double *x, double *dx,
                                          const double *y, double *dy, int n) {
  memset(dx, 0, n * sizeof(double));
  memset(dy, 0, n * sizeof(double));
  __ad_gradient_void(inner, x, dx, y, dy, n);
}

static const double x0[N + 1] = {0.3,  -1.2, 0.7, 1.9, -0.4,
                                 0.25, 1.1,  -0.8, 0.6, 1.4};

static void fill(double *dx, int len) {
  for (int i = 0; i < len; ++i)
    dx[i] = SENTINEL + i;
}

int main(void) {
  double dx[N + 1], dy[N + 1];

  // Fires: every cell stored once, in a loop the memset's range covers.
  AD_CHECK_GRADIENT("squares", N, x0, grad_squares(x, dx, N), squares(w, N));
  fill(dx, N + 1);
  grad_squares(x0, dx, N);
  for (int i = 0; i < N; ++i)
    ad_check(ad_fmt("squares dx[%d] analytic", i), dx[i], 2 * x0[i], 1e-15, 0);
  ad_check("squares: the cell after the range", dx[N], SENTINEL + N, 0, 0);

  // n = 0: no loop, nothing zeroed, nothing written.
  fill(dx, N + 1);
  grad_squares(x0, dx, 0);
  ad_check("squares, n = 0: dx[0] untouched", dx[0], SENTINEL, 0, 0);

  // n even: the loop covers the memset's range exactly (checked at run
  // time). n odd: it touches dx[n], which the memset left as it was.
  AD_CHECK_GRADIENT("pairs", N - 1, x0, grad_pairs(x, dx, N - 1),
                    pairs(w, N - 1));
  fill(dx, N + 1);
  grad_pairs(x0, dx, N);
  {
    double b = x0[N] - x0[N - 1] * x0[N - 1];
    ad_check("pairs, n odd: dx[n] adds to what it held", dx[N],
             SENTINEL + N + 200 * b, 1e-12, 0);
    double fd = 0;
    double w[N + 1];
    memcpy(w, x0, sizeof w);
    fd = AD_FD(w[0], pairs(w, N));
    ad_check("pairs, n odd: dx[0] against FD", dx[0], fd, 1e-6, 1e-8);
  }

  // A cell written between the memset and the request keeps its value.
  fill(dx, N + 1);
  grad_preset(x0, dx, N);
  ad_check("preset: dx[0] = 5 + 2 x[0]", dx[0], 5 + 2 * x0[0], 1e-15, 0);
  ad_check("preset: dx[1]", dx[1], 2 * x0[1], 1e-15, 0);

  // The memset zeroes fewer cells than the loop adds into.
  fill(dx, N + 1);
  grad_short(x0, dx, N, N - 2);
  ad_check("short: dx[0]", dx[0], 2 * x0[0], 1e-15, 0);
  ad_check("short: dx[n-2] adds to what it held", dx[N - 2],
           SENTINEL + N - 2 + 2 * x0[N - 2], 1e-15, 0);
  ad_check("short: dx[n-1] adds to what it held", dx[N - 1],
           SENTINEL + N - 1 + 2 * x0[N - 1], 1e-15, 0);

  // Two iterations add into one cell: the second must add.
  AD_CHECK_GRADIENT("neighbours", N, x0, grad_neighbours(x, dx, N),
                    neighbours(w, N));
  fill(dx, N + 1);
  grad_neighbours(x0, dx, N);
  ad_check("neighbours dx[4]", dx[4], x0[3] + x0[5], 1e-15, 0);

  // Backwards.
  AD_CHECK_GRADIENT("product", N, x0, grad_product(x, dx, N), product(w, N));

  // Two shadows, then one array passed as both x and y with one shadow:
  // each cell receives y[i] and then x[i].
  fill(dy, N + 1);
  {
    double x[N], y[N];
    memcpy(x, x0, sizeof x);
    memcpy(y, x0 + 1, sizeof y);
    fill(dx, N + 1);
    grad_inner(x, dx, y, dy, N);
    for (int i = 0; i < N; ++i) {
      ad_check(ad_fmt("inner dx[%d]", i), dx[i], y[i], 1e-15, 0);
      ad_check(ad_fmt("inner dy[%d]", i), dy[i], x[i], 1e-15, 0);
    }
    fill(dx, N + 1);
    grad_inner(x, dx, x, dx, N);
    for (int i = 0; i < N; ++i)
      ad_check(ad_fmt("inner, one array: dx[%d]", i), dx[i], 2 * x[i], 1e-15,
               0);
    // Overlapping by one cell: y = x + 1, dy = dx + 1. Cell i receives
    // x[i + 1] (as dx[i]) and x[i - 1] (as dy[i - 1]).
    double w[N + 1];
    memcpy(w, x0, sizeof w);
    fill(dx, N + 1);
    grad_inner(w, dx, w + 1, dx + 1, N - 1);
    for (int i = 0; i < N; ++i) {
      double want = (i < N - 1 ? w[i + 1] : 0) + (i > 0 ? w[i - 1] : 0);
      ad_check(ad_fmt("inner, overlapping: dx[%d]", i), dx[i], want, 1e-15, 0);
    }
  }
  return ad_finish();
}
