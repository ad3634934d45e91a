// Straight-line code that reads and writes the same memory cells many times.
// f.rev keeps the cotangents of shadow cells in registers within a block and
// writes each cell back once (pass/transpose/ShadowCotangents.h); these cases check
// that deferring those writes never changes a derivative:
//   - chain: 48 statements v[k] = v[i] + v[j] * v[l] on 8 cells (the shape
//     of the compile-time benchmark), cells read after being overwritten;
//   - overlap(a, b): two pointers to the same array (b == a + 1, so the
//     shadows overlap the same way) and to disjoint arrays: a cell reached
//     through one base must be written back before the other base is used;
//   - pairs: a struct of two doubles copied whole (one 16-byte access at -O2)
//     and updated field by field, so cells of different widths overlap;
//   - widths: 16-byte vector loads and stores overlapping scalar ones at
//     the same and at shifted offsets;
//   - a call of a helper that updates the array in place, between accesses
//     (the helper's f.rev reads and writes the same shadow cells).
// Every component of every gradient is compared with central differences,
// also when the blocks of the derived code (and of main, which the gradients
// are inlined into) are cut into runs of 7 instructions, the middle runs
// outlined (pass/codegen/OutlineLongBlocks.h; by default only blocks of over 8000).
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O2 -mllvm -ad-outline-block-threshold=20 \
// RUN:   -mllvm -ad-outline-run-length=7 %s -o %t.runs %adlibs && %t.runs

#include "ad.h"
#include "adcheck.h"
#include <string.h>

#define M 8

double chain(double *v) {
  v[3] = v[1] + v[2] * v[5];
  v[0] = v[3] + v[4] * v[7];
  v[6] = v[0] + v[3] * v[3];
  v[2] = v[6] + v[0] * v[1];
  v[5] = v[2] + v[2] * v[4];
  v[1] = v[5] + v[7] * v[6];
  v[7] = v[1] + v[0] * v[2];
  v[4] = v[7] + v[5] * v[3];
  v[3] = v[4] + v[1] * v[6];
  v[0] = v[2] + v[3] * v[7];
  v[6] = v[5] + v[4] * v[0];
  v[2] = v[1] + v[6] * v[3];
  v[5] = v[0] + v[7] * v[7];
  v[1] = v[3] + v[2] * v[4];
  v[7] = v[6] + v[5] * v[1];
  v[4] = v[2] + v[0] * v[5];
  v[3] = v[7] + v[1] * v[2];
  v[0] = v[4] + v[6] * v[6];
  v[6] = v[3] + v[0] * v[5];
  v[2] = v[7] + v[4] * v[1];
  v[5] = v[6] + v[3] * v[0];
  v[1] = v[2] + v[5] * v[7];
  v[7] = v[0] + v[1] * v[4];
  v[4] = v[5] + v[2] * v[6];
  v[3] = v[1] + v[7] * v[2];
  v[0] = v[6] + v[4] * v[3];
  v[6] = v[4] + v[1] * v[5];
  v[2] = v[3] + v[6] * v[0];
  v[5] = v[7] + v[2] * v[2];
  v[1] = v[0] + v[5] * v[6];
  v[7] = v[2] + v[3] * v[1];
  v[4] = v[6] + v[7] * v[0];
  v[3] = v[5] + v[4] * v[2];
  v[0] = v[1] + v[3] * v[7];
  v[6] = v[2] + v[0] * v[4];
  v[2] = v[4] + v[6] * v[5];
  v[5] = v[3] + v[1] * v[0];
  v[1] = v[7] + v[2] * v[6];
  v[7] = v[5] + v[4] * v[3];
  v[4] = v[0] + v[7] * v[1];
  v[3] = v[6] + v[5] * v[2];
  v[0] = v[2] + v[1] * v[4];
  v[6] = v[1] + v[3] * v[7];
  v[2] = v[5] + v[0] * v[6];
  v[5] = v[4] + v[2] * v[3];
  v[1] = v[6] + v[7] * v[5];
  v[7] = v[3] + v[1] * v[0];
  v[4] = v[7] + v[6] * v[2];
  return v[0] + 0.5 * v[4] - v[7];
}

// Called with b == a + 1 and with disjoint arrays.
double overlap(double *a, double *b) {
  a[0] = a[0] * b[0] + a[1];
  b[1] = a[0] * a[2] - b[0];
  a[1] = b[1] * b[1] + a[0];
  b[0] = a[1] * a[2];
  a[2] = b[0] * a[0] - b[2];
  return a[0] + a[1] * b[0] + b[1] * a[2] + b[2];
}

typedef struct {
  double x, y;
} pair;

double pairs(pair *p) {
  pair t = p[0];
  p[0] = p[1];
  p[1] = t;
  p[0].x *= p[1].y;
  p[2] = p[0];
  p[1].y += p[2].x * p[0].y;
  p[0].y = p[1].x - p[2].y;
  return p[0].x * p[0].y + p[1].x * p[1].y + 3 * p[2].x + p[2].y * p[2].y;
}

typedef double v2d __attribute__((vector_size(16), aligned(8)));

double widths(double *v) {
  v2d a = *(v2d *)v;
  v[1] = v[0] * v[2];
  v2d b = *(v2d *)(v + 1);
  *(v2d *)(v + 2) = a * b;
  v[0] = v[3] * v[2] + v[1];
  *(v2d *)v = *(v2d *)v * b;
  return v[0] + v[1] * v[2] + v[3];
}

__attribute__((noinline)) void twist(double *v) {
  v[1] = v[1] * v[2] + v[0];
  v[2] = v[1] - v[2] * v[2];
}

double with_call(double *v) {
  v[0] = v[0] * v[1];
  v[1] = v[0] + v[2];
  twist(v);
  v[2] = v[2] * v[0] + v[1];
  twist(v + 1);
  v[0] = v[3] * v[1] - v[2];
  return v[0] * v[1] + v[2] * v[3];
}

int main(void) {
  double v0[M];
  for (int i = 0; i < M; i++)
    v0[i] = 0.05 * (i + 1) - 0.2 + 0.01 * i * i;
  AD_CHECK_GRADIENT("chain", M, v0, __ad_gradient(chain, x, dx), chain(w));
  AD_CHECK_GRADIENT("overlap (b = a + 1)", 4, v0,
                    __ad_gradient(overlap, x, dx, x + 1, dx + 1),
                    overlap(w, w + 1));
  AD_CHECK_GRADIENT("overlap (disjoint)", 6, v0,
                    __ad_gradient(overlap, x, dx, x + 3, dx + 3),
                    overlap(w, w + 3));
  AD_CHECK_GRADIENT("pairs", 6, v0, __ad_gradient(pairs, (pair *)x, (pair *)dx),
                    pairs((pair *)w));
  AD_CHECK_GRADIENT("widths", 4, v0, __ad_gradient(widths, x, dx), widths(w));
  AD_CHECK_GRADIENT("with_call", 4, v0, __ad_gradient(with_call, x, dx),
                    with_call(w));
  return ad_finish();
}
