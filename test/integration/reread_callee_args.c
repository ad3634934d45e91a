// A function called from differentiated code reads again, in the reverse
// pass, what it loaded through a pointer argument when its call site
// proves that nothing writes that memory from the call until the reverse
// pass: the argument points into the caller's own stable memory (an input
// of the requested function, or such an argument of a caller in turn),
// nothing the caller runs after the call (later iterations too, the call
// itself included) may write it, and the callee's other written arguments
// cannot point into it. Each function below either reads again or must
// keep what it loads, checked against central differences; the remarks
// show how large each callee's tape is.
// clang-format off
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O2 -g -c %s -o %t.o -Rpass=adpass -Rpass-missed=adpass 2>&1 | FileCheck %s
// clang-format on
#include "ad.h"
#include "adcheck.h"
#include <string.h>

enum { N = 5 };

/* Reads p[0] and p[1], writes nothing: what it keeps is what it loads. */
__attribute__((noinline)) static double prod(const double *p) {
  return p[0] * p[1];
}

/* Reads p[0..m), writes nothing. */
__attribute__((noinline)) static double cubes(const double *p, int m) {
  double s = 0;
  for (int j = 0; j < m; j++)
    s += p[j] * p[j] * p[j];
  return s;
}

// Nothing writes x: the calls of prod and cubes keep no value of x.
// CHECK: 'stable_input': each call of 'prod' at line [[@LINE+5]]
// CHECK-SAME: pushes its tape of 16 bytes
double stable_input(const double *x, int n) {
  double s = 0;
  for (int i = 0; i + 1 < n; i++)
    s += x[i] * prod(x + i) + cubes(x + i, 2);
  return s;
}

/* Calls cubes on its own argument: two levels of stable arguments. */
__attribute__((noinline)) static double middle(const double *x) {
  return prod(x) * prod(x + 1);
}

// CHECK: 'stable_two_levels': each call of 'middle' at line [[@LINE+5]]
// CHECK-SAME: pushes its tape of 48 bytes
double stable_two_levels(const double *x, int n) {
  double s = 0;
  for (int i = 0; i + 2 < n; i++)
    s += middle(x + i);
  return s;
}

// The caller writes x after the call: the callee keeps what it read.
// CHECK: 'written_after': each call of 'prod' at line [[@LINE+5]]
// CHECK-SAME: pushes its tape of 24 bytes
double written_after(double *x, int n) {
  double s = 0;
  for (int i = 0; i + 1 < n; i++) {
    s += prod(x + i) + cubes(x + i, 2);
    x[i + 1] *= 1.5;
  }
  return s;
}

/* Reads p[0] and p[1]. */
__attribute__((noinline)) static double pair(const double *p) {
  return p[0] * p[0] * p[1];
}

// The next iteration writes x[i + 1], which this iteration's call read.
// CHECK: 'written_next_iteration': each call of 'pair' at line [[@LINE+6]]
// CHECK-SAME: pushes its tape of 32 bytes
double written_next_iteration(double *x, int n) {
  double s = 0;
  for (int i = 0; i + 1 < n; i++) {
    x[i] = 0.5 * x[i] + x[i] * x[i];
    s += pair(x + i);
  }
  return s;
}

// The caller of middle writes x after middle returns: two levels.
// CHECK: 'written_by_callers_caller': each call of 'middle' at line [[@LINE+5]]
// CHECK-SAME: pushes its tape of 64 bytes
double written_by_callers_caller(double *x, int n) {
  double s = 0;
  for (int i = 0; i + 2 < n; i++) {
    s += middle(x + i);
    x[i + 1] = x[i + 1] * x[i + 1] + 0.25;
  }
  return s;
}

/* Reads p[0] and q[1]. */
__attribute__((noinline)) static double mixed(const double *p,
                                              const double *q) {
  return p[0] * p[0] * q[1];
}

/* Passes both of its arguments on. */
__attribute__((noinline)) static double two_prods(const double *a,
                                                  const double *b) {
  return mixed(a, b) + prod(a) * prod(b);
}

double weights[2] = {0.5, 2.0};

// x is stable, weights are not: two_prods may let mixed and prod read a
// again, not b. (x is restrict: otherwise the writes of weights may write x
// too.)
double one_stable_argument(const double *restrict x, int n) {
  double s = 0;
  for (int i = 0; i + 1 < n; i++) {
    s += two_prods(x + i, weights) * x[i];
    weights[1] += 0.5;
  }
  return s;
}

/* Reads a[0] and a[1], then writes b[0]. */
__attribute__((noinline)) static double read_then_write(const double *a,
                                                        double *b) {
  double v = a[0] * a[0] * a[1];
  b[0] = 0.5 * b[0] + v;
  return v;
}

// The two arguments point into the same array: b[0] is a[1].
// CHECK: 'aliased_arguments': each call of 'read_then_write' at
// CHECK-SAME: line [[@LINE+4]] pushes its tape of 40 bytes
double aliased_arguments(double *x, int n) {
  double s = 0;
  for (int i = 0; i + 2 < n; i++)
    s += read_then_write(x + i, x + i + 1) * x[i + 2];
  return s;
}

// The same without a loop: b[0] is a[1] when the callee reads it.
double aliased_once(double *x, int n) {
  return read_then_write(x, x + 1) * x[2] + x[n - 1];
}

/* Writes p[0], then reads p[1]. */
__attribute__((noinline)) static double shift_read(double *p) {
  p[0] = 0.5 * p[0];
  return p[1] * p[1];
}

// The call itself, run again, writes what the previous call read.
double written_by_next_call(double *x, int n) {
  double s = 0;
  for (int i = 0; i + 1 < n; i++)
    s += shift_read(x + i);
  return s;
}

// The written argument is a local of the caller: the callee reads a again,
// and computes a[0] * a[0] again from it (32 bytes when it kept it).
// CHECK: 'disjoint_arguments': each call of 'read_then_write' at
// CHECK-SAME: line [[@LINE+5]] pushes its tape of 24 bytes
double disjoint_arguments(const double *x, int n) {
  double s = 0;
  for (int i = 0; i + 2 < n; i++) {
    double t = x[i + 2];
    s += read_then_write(x + i, &t) * t;
  }
  return s;
}

/* x is restrict, so alias analysis tells writes of scale from those of x,
   and only the rule for globals keeps the callee from reading it again. */
double scale = 1.5;
/* Reads the global scale and p[0]. */
__attribute__((noinline)) static double scaled(const double *p) {
  return p[0] * p[0] * scale;
}

// The caller changes the global that the callee reads: its value is kept
// (p[0] is read again, and p[0] * p[0] computed again).
// CHECK: 'global_changed': each call of 'scaled' at line [[@LINE+5]]
// CHECK-SAME: pushes its tape of 24 bytes
double global_changed(const double *restrict x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    s += scaled(x + i);
    scale += 0.25;
  }
  return s;
}

// memcpy overwrites what the calls read.
// CHECK: 'copied_over': each call of 'prod' at line [[@LINE+5]]
// CHECK-SAME: pushes its tape of 24 bytes
double copied_over(double *x, int n) {
  double s = 0, y[N];
  for (int i = 0; i + 1 < n; i++) {
    s += prod(x + i);
    y[i] = x[i] * 0.5 + 1;
  }
  y[n - 1] = 2;
  memcpy(x, y, sizeof(double) * n);
  return s;
}

/* The value of F at a copy of w; F's address is not taken (a function
   whose address is taken is not called by requests alone). */
#define EVAL(F, w)                                                             \
  __extension__({                                                              \
    double c_[N];                                                              \
    memcpy(c_, w, sizeof c_);                                                  \
    F(c_, N);                                                                  \
  })

static double eval_weights(const double *w) {
  weights[1] = 2.0;
  return one_stable_argument(w, N);
}

static double eval_global(const double *w) {
  scale = 1.5;
  return global_changed(w, N);
}

int main(void) {
  volatile int vn = N;
  int n = vn;
  double x0[N] = {0.7, -1.3, 0.45, 1.1, -0.6};
  AD_CHECK_GRADIENT("stable_input", N, x0,
                    __ad_gradient_void(stable_input, x, dx, n),
                    stable_input(w, n));
  AD_CHECK_GRADIENT("stable_two_levels", N, x0,
                    __ad_gradient_void(stable_two_levels, x, dx, n),
                    stable_two_levels(w, n));
  AD_CHECK_GRADIENT("written_after", N, x0,
                    __ad_gradient_void(written_after, x, dx, n),
                    EVAL(written_after, w));
  AD_CHECK_GRADIENT("written_next_iteration", N, x0,
                    __ad_gradient_void(written_next_iteration, x, dx, n),
                    EVAL(written_next_iteration, w));
  AD_CHECK_GRADIENT("written_by_callers_caller", N, x0,
                    __ad_gradient_void(written_by_callers_caller, x, dx, n),
                    EVAL(written_by_callers_caller, w));
  AD_CHECK_GRADIENT(
      "one_stable_argument", N, x0,
      (weights[1] = 2.0, __ad_gradient_void(one_stable_argument, x, dx, n)),
      eval_weights(w));
  AD_CHECK_GRADIENT("aliased_arguments", N, x0,
                    __ad_gradient_void(aliased_arguments, x, dx, n),
                    EVAL(aliased_arguments, w));
  AD_CHECK_GRADIENT("aliased_once", N, x0,
                    __ad_gradient_void(aliased_once, x, dx, n),
                    EVAL(aliased_once, w));
  AD_CHECK_GRADIENT("written_by_next_call", N, x0,
                    __ad_gradient_void(written_by_next_call, x, dx, n),
                    EVAL(written_by_next_call, w));
  AD_CHECK_GRADIENT("disjoint_arguments", N, x0,
                    __ad_gradient_void(disjoint_arguments, x, dx, n),
                    disjoint_arguments(w, n));
  AD_CHECK_GRADIENT("global_changed", N, x0,
                    (scale = 1.5, __ad_gradient_void(global_changed, x, dx, n)),
                    eval_global(w));
  AD_CHECK_GRADIENT("copied_over", N, x0,
                    __ad_gradient_void(copied_over, x, dx, n),
                    EVAL(copied_over, w));
  return ad_finish();
}
