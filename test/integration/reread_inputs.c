// Loaded values that f.rev reads again instead of taping them
// (pass/unzip/RereadableLoads.h): where nothing may overwrite the memory
// before f.rev runs, the gradient keeps nothing for them (checked at -O2
// with __ad_tape_peak_bytes); wherever something may, the value is taped
// and the gradient stays exact. Every gradient is checked against central
// differences, on functions that only requests call.
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2

#include "ad.h"
#include "ad_runtime.h"
#include "adcheck.h"
#include <string.h>

enum { N = 6 };
static const double X0[N] = {0.7, -1.3, 0.4, 2.1, -0.6, 1.1};

// Must fire: an input nothing writes, and a constant table.
double sumsq(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return s;
}
static double Weights[N] = {1, 2, 3, 4, 5, 6}; // not const, never written
double weighted(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += Weights[i] * x[i] * x[i] * x[i];
  return s;
}

// Must not fire: the same array passed twice, written after it is read.
double twice(const double *x, double *y, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    s += x[i] * x[i];
    y[i] = 0.5 * y[i];
  }
  for (int i = 0; i < n; i++)
    s += x[i] * x[i] * x[i];
  return s;
}
static double twice_on(double *w) { return twice(w, w, N); }

// Overlapping slices: y = x + 1.
double shifted(const double *x, double *y, int n) {
  double s = 0;
  for (int i = 0; i < n - 1; i++) {
    s += x[i] * x[i];
    y[i] = x[i] * y[i];
  }
  return s + x[n - 1] * x[0];
}
static double shifted_on(double *w) { return shifted(w, w + 1, N); }

// A callee writes the input after f read it.
__attribute__((noinline)) void halve(double *p, int n) {
  for (int i = 0; i < n; i++)
    p[i] *= 0.5;
}
double callee_writes(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  halve(x, n);
  for (int i = 0; i < n; i++)
    s += x[i] * x[i] * x[0];
  return s;
}
static double callee_writes_on(double *w) { return callee_writes(w, N); }

// Through a pointer loaded from memory: box->p is x.
struct Box {
  double *p;
};
double through_box(const double *x, struct Box *box, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    s += x[i] * x[i];
    box->p[i] = 2 * x[i];
  }
  return s + x[1] * x[2];
}
static double through_box_on(double *w) {
  struct Box b = {w};
  return through_box(w, &b, N);
}

// memcpy and memset over the input after it was read.
double copies_over(double *x, int n) {
  double s = x[0] * x[1];
  memcpy(x, x + 3, 3 * sizeof *x);
  s += x[0] * x[2] * x[4];
  memset(x + 4, 0, sizeof *x);
  return s + x[4] * x[5] + x[1] * x[1];
}
static double copies_over_on(double *w) { return copies_over(w, N); }

// Two buffers swapped each step: reads of one are writes of the other.
double stencil(double *u, double *v, int n, int steps) {
  for (int t = 0; t < steps; t++) {
    for (int i = 1; i < n - 1; i++)
      v[i] = u[i] + 0.2 * (u[i - 1] - 2 * u[i] + u[i + 1]) * u[i];
    v[0] = u[0];
    v[n - 1] = u[n - 1];
    double *tmp = u;
    u = v;
    v = tmp;
  }
  double s = 0;
  for (int i = 0; i < n; i++)
    s += u[i] * u[i];
  return s;
}
static double stencil_on(double *w) {
  double v[N] = {0};
  return stencil(w, v, N, 3);
}

// A global f reads and later overwrites.
static double G[N];
double global_rewritten(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    G[i] = x[i];
  for (int i = 0; i < n; i++)
    s += G[i] * G[i];
  for (int i = 0; i < n; i++)
    G[i] = 3 * x[i];
  for (int i = 0; i < n; i++)
    s += G[i] * x[i];
  return s;
}
static double global_rewritten_on(double *w) {
  return global_rewritten(w, N);
}

// A store in a later iteration overwrites a cell read in an earlier one.
double later_iteration(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    s += x[i] * x[i] * x[i];
    if (i > 0)
      x[i - 1] = 0.25 * x[i];
  }
  return s + x[0] * x[1];
}
static double later_iteration_on(double *w) { return later_iteration(w, N); }

int main(void) {
  AD_CHECK_GRADIENT("sumsq", N, X0, __ad_gradient(sumsq, x, dx, N),
                    sumsq(w, N));
  AD_CHECK_GRADIENT("weighted", N, X0, __ad_gradient(weighted, x, dx, N),
                    weighted(w, N));
#ifdef __OPTIMIZE__
  {
    // Nothing but the array's address needs keeping.
    double x[N], dx[N] = {0};
    memcpy(x, X0, sizeof x);
    __ad_tape_reset_peak();
    __ad_gradient(sumsq, x, dx, N);
    ad_check("sumsq keeps nothing on the runtime tape",
             (double)__ad_tape_peak_bytes(), 0, 0, 0);
    __ad_tape_reset_peak();
    __ad_gradient(weighted, x, dx, N);
    ad_check("weighted keeps nothing on the runtime tape",
             (double)__ad_tape_peak_bytes(), 0, 0, 0);
  }
#endif
  AD_CHECK_GRADIENT("twice", N, X0, __ad_gradient(twice, x, dx, x, dx, N),
                    twice_on(w));
  AD_CHECK_GRADIENT("shifted", N, X0,
                    __ad_gradient(shifted, x, dx, x + 1, dx + 1, N),
                    shifted_on(w));
  AD_CHECK_GRADIENT("callee_writes", N, X0,
                    __ad_gradient(callee_writes, x, dx, N),
                    callee_writes_on(w));
  {
    struct Box b0 = {0}, db0 = {0};
    AD_CHECK_GRADIENT(
        "through_box", N, X0,
        (b0.p = x, db0.p = dx, __ad_gradient(through_box, x, dx, &b0, &db0, N)),
        through_box_on(w));
  }
  AD_CHECK_GRADIENT("copies_over", N, X0,
                    __ad_gradient(copies_over, x, dx, N), copies_over_on(w));
  {
    double v[N], dv[N];
    AD_CHECK_GRADIENT("stencil", N, X0,
                      (memset(v, 0, sizeof v), memset(dv, 0, sizeof dv),
                       __ad_gradient(stencil, x, dx, v, dv, N, 3)),
                      stencil_on(w));
  }
  AD_CHECK_GRADIENT("global_rewritten", N, X0,
                    __ad_gradient(global_rewritten, x, dx, N),
                    global_rewritten_on(w));
  AD_CHECK_GRADIENT("later_iteration", N, X0,
                    __ad_gradient(later_iteration, x, dx, N),
                    later_iteration_on(w));
  return ad_finish();
}
