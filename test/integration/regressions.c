// Bugs found by the test suite, each with the program that found it, checked
// against analytic derivatives. Also built with -g: debug info must not
// change the generated code's validity.
//  * a 16-byte-aligned local array whose shadow lives in the tape (crashed
//    with an aligned vector store at -O2);
//  * two such arrays of 24 bytes, reached through an array of pointers: the
//    second shadow sat at a tape offset of 16k + 8 (segfault at -O1, -Os);
//  * the bytes of x[i] read both as a key (memcpy into a uint64_t) and as a
//    double: from -O1 one i64 load and a bitcast, whose derivative was
//    silently 0 (later an error, now read from the shadow's bytes);
//  * doubles in memory from alloca() of a constant size (an i8 array at -O0,
//    which got no shadow: "a local variable that holds no floating-point
//    data" at -O0 only);
//  * a pointer stored as an integer (uintptr_t) into a table of pointers,
//    which InstCombine also makes of some pointer stores: its shadow was
//    not stored (segfault at -O0 and -O1);
//  * vector shuffles, including the broadcast clang emits for scalar * vector
//    (no transpose rule);
//  * stores with debug-info assignment tracking (-g -O2: invalid IR);
//  * reading a mutable global that the function does not write (inactive);
//  * loops with a constant trip count (plugin crash at -O1 and above);
//  * a pointer walking over AD_CONST memory (wrong "unknown memory" error);
//  * a loop reading a value computed after another, uncounted loop from
//    that loop's counter: the tape planner asked for the counter while
//    iterating over its requests (plugin crash at -O0, from -O1 in
//    std::sort);
//  * a 4.8 MB local array: its shadow lives in the tape, which the request
//    allocated in its caller's frame (a stack overflow before any request
//    ran); large tapes are now on the heap.
//  * strlen, strcmp and memcmp (bcmp from -O1) of heap memory, which has a
//    shadow: "no derivative rule" errors; they are now inactive like
//    printf.
// RUN: %adcc -O0 -g %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O2 -g %s -o %t.O2g %adlibs && %t.O2g
// RUN: %adcc -O3 -g %s -o %t.O3g %adlibs && %t.O3g
// RUN: %adcc -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcc -Os %s -o %t.Os %adlibs && %t.Os
#include "ad.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "adcheck.h"

double aligned_local(const double *x, int n) {
  double t[8];
  for (int i = 0; i < n; i++)
    t[i] = x[i];
  return t[0] * t[0] + t[n - 1] * x[0];
}

double row_pointers(const double *x, int n) {
  double r0[3], r1[3];
  double *rows[2] = {r0, r1};
  for (int j = 0; j < 3; j++) {
    r0[j] = x[j];
    r1[j] = x[j + 3];
  }
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++)
      rows[i][j] *= n;
  return r0[0] * r1[2];
}

static uint64_t last_key;
double keyed_square(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    uint64_t key;
    memcpy(&key, &x[i], 8);
    if (key != last_key)
      s += 1.0;
    s += x[i] * x[i];
  }
  return s;
}

double alloca_buffer(double x) {
  double *t = __builtin_alloca(3 * sizeof(double));
  t[0] = x;
  t[1] = x * x;
  t[2] = t[0] * t[1];
  return t[2];
}

double pointer_as_integer(double x) {
  double *a = malloc(sizeof(double)), *b = malloc(sizeof(double));
  *a = 1.3;
  *b = -0.5 * x;
  double **tab = malloc(2 * sizeof(double *));
  *(uintptr_t *)&tab[0] = (uintptr_t)a;
  tab[1] = b;
  double r = x;
  for (int i = 0; i < 2; i++)
    r *= *tab[i];
  free(tab);
  free(a);
  free(b);
  return r; // -0.65 x^2
}

typedef double v4d __attribute__((vector_size(32)));
double shuffled(const v4d *x, double s) {
  v4d r = __builtin_shufflevector(*x, *x, 3, 2, 1, 1);
  v4d y = r * *x * s; // s broadcast: another shuffle
  return y[0] + y[1] + y[2] + y[3];
}

double stored_locals(const double *x, int n) {
  double t[2];
  t[0] = x[0];
  t[1] = x[1];
  return t[n & 1] * x[1];
}

double scale = 3.0; // mutable, read only
double reads_global(double x) { return scale * x * x; }

double constant_trip(double x) {
  double s = 0;
  for (int i = 0; i < 1000; i++)
    s += s * x * 1e-3 + 1;
  return s;
}

double five_cubes(const double *a) {
  double s = 0;
  for (int i = 0; i < 5; i++)
    s += a[i] * a[i] * a[i];
  return s;
}

double walk_const(double k, const double *x, int n) {
  double s = 0;
  for (const double *p = x; p != x + n; p++)
    s += k * *p;
  return s;
}

double after_search(const double *x, int n) {
  int m = n;
  while (m > 3 && x[m % n] > 0) // not a counted loop
    m = m / 2 + 1;
  double k = m - 1; // rematerialized in the loop below, from m
  double s = 0;
  for (int i = 0; i < n; i++)
    s += (x[i] + k) * x[i];
  return s;
}

#define BIG_LOCAL 600000
double big_local(double x) {
  double w[BIG_LOCAL];
  for (int i = 0; i < BIG_LOCAL; i++)
    w[i] = x * (i % 13);
  double s = 0;
  for (int i = 0; i < BIG_LOCAL; i += 1000)
    s += w[i] * w[i];
  return s;
}

// d/dx = 6 * 3x^2 + 2x (the name has six letters and matches).
double labelled(double x) {
  char *name = malloc(8);
  for (int i = 0; i < 6; i++)
    name[i] = 'a' + i;
  name[6] = 0;
  double *w = malloc(2 * sizeof(double));
  w[0] = x;
  w[1] = x * x;
  double s = w[0] * w[1] * (double)strlen(name) +
             (strcmp(name, "abcdef") == 0 ? w[1] : 0) +
             (memcmp(&w[0], &w[1], sizeof(double)) == 0 ? w[0] : 0);
  free(name);
  free(w);
  return s;
}

typedef struct { double dx, ds; } grad_xs;
grad_xs __ad_gradient_xs(void *fn, ...) AD_MARKER;

int main(void) {
  volatile int vn = 3;
  int n = vn;
  double x[8] = {0.5, -1.25, 2.0, 0.75, 1, 1, 1, 1}, dx[8] = {0};

  __ad_gradient(aligned_local, x, dx, n); // 2 x0 + x2 ; x0 for x2
  ad_check("aligned_local d/dx0", dx[0], 2 * x[0] + x[2], 1e-12, 0);
  ad_check("aligned_local d/dx2", dx[2], x[0], 1e-12, 0);
  ad_check("aligned_local d/dx1", dx[1], 0, 0, 0);

  double rx[6] = {1.5, 2, 3, 4, 5, -0.5}, drx[6] = {0};
  __ad_gradient(row_pointers, rx, drx, 2); // 4 x0 x5
  for (int k = 0; k < 6; ++k)
    ad_check(ad_fmt("row_pointers d/dx%d", k), drx[k],
             k == 0 ? 4 * rx[5] : k == 5 ? 4 * rx[0] : 0, 1e-12, 0);

  double kx[3] = {0.5, -1.5, 2.25}, dk[3] = {0};
  __ad_gradient(keyed_square, kx, dk, 3);
  for (int k = 0; k < 3; ++k)
    ad_check(ad_fmt("keyed_square d/dx%d", k), dk[k], 2 * kx[k], 1e-12, 0);

  ad_check("alloca_buffer", __ad_gradient(alloca_buffer, 0.7), 3 * 0.7 * 0.7,
           1e-12, 0);

  ad_check("pointer_as_integer", __ad_gradient(pointer_as_integer, 0.7),
           -1.3 * 0.7, 1e-12, 0);

  v4d v = {0.5, -1.5, 2.0, 3.0}, dv = {0, 0, 0, 0};
  volatile double vs = 1.5;
  double s = vs;
  // f = s (x3 x0 + x2 x1 + x1 x2 + x1 x3)
  double want[4] = {s * v[3], s * (2 * v[2] + v[3]), s * 2 * v[1], s * (v[0] + v[1])};
  double ds = __ad_gradient(shuffled, &v, &dv, s);
  for (int k = 0; k < 4; ++k)
    ad_check(ad_fmt("shuffled d/dx%d", k), dv[k], want[k], 1e-12, 0);
  ad_check("shuffled d/ds", ds, shuffled(&v, s) / s, 1e-12, 0);

  double dy[8] = {0};
  __ad_gradient(stored_locals, x, dy, n); // n odd: t1 * x1 = x1^2
  ad_check("stored_locals d/dx1", dy[1], 2 * x[1], 1e-12, 0);
  ad_check("stored_locals d/dx0", dy[0], 0, 0, 0);

  volatile double vx = 0.7;
  ad_check("reads_global", __ad_gradient(reads_global, vx), 2 * scale * vx, 1e-12, 0);
  volatile double vc = 0.5;
  double xc = vc;
  ad_check("constant trip count", __ad_gradient(constant_trip, xc),
           AD_FD(xc, constant_trip(xc)), 1e-6, 0);
  double a5[5] = {1, 2, 3, 4, 5}, da5[5] = {0};
  __ad_gradient(five_cubes, a5, da5);
  for (int k = 0; k < 5; ++k)
    ad_check(ad_fmt("five_cubes d/da%d", k), da5[k], 3 * a5[k] * a5[k], 1e-12, 0);
  ad_check("walk over AD_CONST memory", __ad_gradient(walk_const, xc, AD_CONST, a5, 3),
           1 + 2 + 3, 1e-12, 0);
  double sx[8] = {1, 2, 3, 4, 5, 6, 7, 8}, dsx[8] = {0};
  __ad_gradient(after_search, sx, dsx, 8); // m: 8 -> 5 -> 3, k = 2
  for (int k = 0; k < 8; ++k)
    ad_check(ad_fmt("after_search d/dx%d", k), dsx[k], 2 * sx[k] + 2, 1e-12, 0);
  double want_big = 0;
  for (int i = 0; i < BIG_LOCAL; i += 1000)
    want_big += 2 * 0.3 * (i % 13) * (i % 13);
  ad_check("big_local", __ad_gradient(big_local, 0.3), want_big, 1e-12, 0);
  ad_check("labelled", __ad_gradient(labelled, 0.7),
           18 * 0.7 * 0.7 + 2 * 0.7, 1e-12, 0);
  return ad_finish();
}
