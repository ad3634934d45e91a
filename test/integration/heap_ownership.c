// Heap memory that outlives the request, and memory the function frees.
// The shadow of a heap block mirrors the block: it lives as long as the
// block does. Reverse mode freed the shadow of every block the function
// allocated, when the reverse pass reached the allocation, also of a block
// the function stored where its caller finds it: the caller's shadow
// object then pointed to freed memory (garbage, then "double free" when
// the caller freed it; found by a probe with std::vector push_back on a
// vector passed by reference). Now f.rev frees only the shadows of blocks
// f freed. A block f freed that its caller passed in takes the derivative
// with respect to its contents with it: a run-time error (REPLACE).
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O0 -DREPLACE %s -o %t.R0 %adlibs
// RUN: not --crash %t.R0 2>&1 | FileCheck %s
// RUN: %adcc -O2 -DREPLACE %s -o %t.R2 %adlibs
// RUN: not --crash %t.R2 2>&1 | FileCheck %s
// clang-format off
// CHECK: ADPass runtime: the function differentiated in reverse mode freed heap memory that its caller passed in with a shadow
// clang-format on
#include "ad.h"
#include "adcheck.h"
#include <stdlib.h>

typedef struct {
  double *p;
  int n;
} buf;

// Fills b with a fresh block of scaled copies of x: the block, and its
// shadow, belong to the caller afterwards.
double fill(buf *b, const double *x, int n, double a) {
  b->p = malloc(n * sizeof(double));
  b->n = n;
  double s = 0;
  for (int i = 0; i < n; i++) {
    b->p[i] = a * x[i];
    s += b->p[i] * x[i];
  }
  return s;
}

// Temporaries allocated and freed in each iteration, as before.
double smooth(const double *x, int n) {
  double s = 0;
  for (int k = 1; k <= 3; k++) {
    double *t = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++)
      t[i] = x[i] * k;
    for (int i = 0; i < n; i++)
      s += t[i] * t[i];
    free(t);
  }
  return s;
}

// Replaces the caller's block by a rescaled copy, as a growing std::vector
// does.
double rescale(buf *b, double a) {
  double *q = malloc(b->n * sizeof(double));
  for (int i = 0; i < b->n; i++)
    q[i] = b->p[i] * a;
  free(b->p);
  b->p = q;
  double s = 0;
  for (int i = 0; i < b->n; i++)
    s += q[i] * q[i];
  return s;
}

int main(void) {
  double x[3] = {0.5, -0.3, 0.8}, dx[3] = {0, 0, 0};
  buf b = {0, 0}, db = {0, 0};
  double da = __ad_gradient(fill, &b, &db, AD_CONST, x, 3, 0.7);
  ad_check("fill d/da", da, 0.25 + 0.09 + 0.64, 1e-15, 0);
  // The shadow block is the caller's now: readable (zero, its cotangent
  // taken) and freed by the caller like the block.
  for (int i = 0; i < 3; i++)
    ad_check(ad_fmt("fill shadow[%d]", i), db.p[i], 0, 0, 0);
  free(db.p);
  free(b.p);

  __ad_gradient(smooth, x, dx, 3);
  for (int i = 0; i < 3; i++)
    ad_check(ad_fmt("smooth d/dx%d", i), dx[i], 2 * 14 * x[i], 1e-14, 0);

#ifdef REPLACE
  buf c = {malloc(3 * sizeof(double)), 3}, dc = {calloc(3, sizeof(double)), 3};
  for (int i = 0; i < 3; i++)
    c.p[i] = x[i];
  __ad_gradient(rescale, &c, &dc, 0.7);
  printf("not reached\n");
#endif
  return ad_finish();
}
