// A loop that loads its input and calls a function: the load is read again
// in the reverse pass, not kept, when the call writes nothing the load
// reads. A call of a function that calls sin writes errno, which alias
// analysis takes for any memory, so such loads were kept. What the callee
// writes is now found from its body: its own locals and the memory its
// pointer arguments lead to. Each function below has a call that must
// keep the load (it writes the input through an argument, writes a global
// the loop reads, writes through a pointer kept in memory, or the loop
// itself writes the input after the call), checked against central
// differences; the remarks show which loads are kept and why.
// clang-format off
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O2 -g -c %s -o %t.o -Rpass-missed=adpass 2>&1 | FileCheck %s
// clang-format on
#include "ad.h"
#include "adcheck.h"
#include <string.h>

enum { N = 4 };

/* Writes out[0..1] only (and errno, in sin and cos). */
__attribute__((noinline)) static void rotate(const double *p, double *out) {
  out[0] = cos(p[0]) * p[1];
  out[1] = sin(p[0]) * p[1];
}

// Nothing written but the local t: x[i] and x[i + 1] are read again.
// CHECK-NOT: gradient of 'reread'
double reread(const double *x, int n) {
  double s = 0;
  for (int i = 0; i + 1 < n; i++) {
    double t[2];
    rotate(x + i, t);
    s += x[i] * x[i + 1] * (t[0] + 2 * t[1]);
  }
  return s;
}

/* Doubles p[0] through its argument. */
__attribute__((noinline)) static void twice(double *p) { p[0] *= 2 * cos(0.1); }

// The call writes the input: x[i] must be kept.
// CHECK: gradient of 'written_by_callee': the value loaded from 'x' at line
// [[@LINE+6]] is kept per iteration of the loop at line [[@LINE+4]]: the call
// of 'twice' at line [[@LINE+7]] may overwrite 'x'
double written_by_callee(double *x, int n) {
  double s = 0;
  for (int i = 0; i + 1 < n; i++) {
    double t[2];
    double xi = x[i];
    rotate(x + i, t);
    twice(x + i);
    s += xi * xi * t[0];
  }
  return s;
}

double weight = 1.5;
/* Changes the global weight. */
__attribute__((noinline)) static void bump(const double *p) {
  weight += 0.25 * sin(p[0]);
}

// The call writes the global the loop reads: weight must be kept.
// CHECK: gradient of 'global_written': the value loaded from 'weight' at line
// [[@LINE+5]] is kept per iteration of the loop at line [[@LINE+3]]: the call
// of 'bump' at line [[@LINE+6]] may overwrite 'weight'
double global_written(const double *x, int n) {
  double s = 0;
  for (int i = 0; i + 1 < n; i++) {
    double w = weight;
    s += w * x[i] * x[i];
    bump(x + i);
  }
  return s;
}

struct view {
  double *data;
};
/* Writes through a pointer it loads from memory. */
__attribute__((noinline)) static void scale_view(const struct view *v, int i) {
  v->data[i] *= 1 + 0.5 * sin(0.2);
}

// The callee writes x through a pointer kept in a struct.
// CHECK: gradient of 'written_through_field': the value loaded from 'x' at line
// [[@LINE+6]] is kept per iteration of the loop at line [[@LINE+4]]: the call
// of 'scale_view' at line [[@LINE+8]] may overwrite 'x'
double written_through_field(double *x, int n) {
  struct view v = {x};
  double s = 0;
  for (int i = 0; i + 1 < n; i++) {
    double xi = x[i];
    double t[2];
    rotate(x + i, t);
    scale_view(&v, i);
    s += xi * xi * t[1];
  }
  return s;
}

// The loop itself writes the input after the call.
// CHECK: gradient of 'written_after_call': the value loaded from 'x' at line
// [[@LINE+6]] is kept per iteration of the loop at line [[@LINE+4]]: the store
// at line [[@LINE+8]] may overwrite 'x'
double written_after_call(double *x, int n) {
  double s = 0;
  for (int i = 0; i + 1 < n; i++) {
    double t[2];
    double xi = x[i];
    rotate(x + i, t);
    s += xi * xi * (t[0] + t[1]);
    x[i] = xi * t[0];
  }
  return s;
}

static double eval(double (*f)(double *, int), const double *w) {
  double c[N];
  memcpy(c, w, sizeof c);
  return f(c, N);
}

static double eval_global(const double *w) {
  weight = 1.5;
  return global_written(w, N);
}

int main(void) {
  volatile int vn = N;
  int n = vn;
  double x0[N] = {0.7, -1.3, 0.45, 1.1};
  AD_CHECK_GRADIENT("reread", N, x0, __ad_gradient_void(reread, x, dx, n),
                    reread(w, n));
  AD_CHECK_GRADIENT("written_by_callee", N, x0,
                    __ad_gradient_void(written_by_callee, x, dx, n),
                    eval(written_by_callee, w));
  AD_CHECK_GRADIENT(
      "global_written", N, x0,
      (weight = 1.5, __ad_gradient_void(global_written, x, dx, n)),
      eval_global(w));
  AD_CHECK_GRADIENT("written_through_field", N, x0,
                    __ad_gradient_void(written_through_field, x, dx, n),
                    eval(written_through_field, w));
  AD_CHECK_GRADIENT("written_after_call", N, x0,
                    __ad_gradient_void(written_after_call, x, dx, n),
                    eval(written_after_call, w));
  return ad_finish();
}
