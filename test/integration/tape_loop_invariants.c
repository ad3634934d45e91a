// A value an inner loop reads but an enclosing counted loop computes (a
// load LICM hoisted out of the inner loop, a product of the outer
// iteration) is kept once per iteration of that enclosing loop, in its
// record, not once per inner iteration: the triangular product
// out[row] += l[at++] * c[col] keeps c[col] once per column. At -O2 the
// peak tape of such a product grows linearly in n, not as n^2. Also where
// the value varies in the inner loop, where the inner loop writes the
// memory it was loaded from, where it is chosen by a branch of the outer
// loop, where the inner loop is not counted, and three loops deep. The
// inner loops' iteration counts are recomputed where they are affine in
// the counters (the n - col - 1 rows), kept where they are read from
// memory or are not affine: every gradient is checked against central
// differences.
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O3 %s -o %t.O3 %adlibs && %t.O3

#include "ad.h"
#include "ad_runtime.h"
#include "adcheck.h"
#include <stdlib.h>

enum { N = 5, NL = N * (N - 1) / 2, NX = N + NL };
// x[0..N) then the strictly lower triangle, column by column.
static const double X0[NX] = {0.7,  -1.3, 0.4,  1.1,  -0.6, 0.3, -0.2, 0.9,
                              0.15, -0.8, 0.45, -0.35, 0.6, 0.25, -0.5};

// Must fire: c is per-call scratch (never read again by f.rev), c[col] is
// invariant in the row loop.
double triangular(const double *x, const double *l, int n) {
  double *c = malloc(n * sizeof *c), *out = malloc(n * sizeof *out);
  for (int j = 0; j < n; j++) {
    c[j] = sin(x[j]);
    out[j] = c[j];
  }
  int at = 0;
  for (int col = 0; col < n; col++)
    for (int row = col + 1; row < n; row++)
      out[row] += l[at++] * c[col];
  double s = 0;
  for (int j = 0; j < n; j++)
    s += out[j] * out[j];
  free(c);
  free(out);
  return s;
}

// The value varies in the inner loop: c[row], not c[col].
double varies(const double *x, const double *l, int n) {
  double *c = malloc(n * sizeof *c), *out = calloc(n, sizeof *out);
  for (int j = 0; j < n; j++)
    c[j] = cos(x[j]);
  int at = 0;
  for (int col = 0; col < n; col++)
    for (int row = col + 1; row < n; row++)
      out[col] += l[at++] * c[row] * c[col];
  double s = 0;
  for (int j = 0; j < n; j++)
    s += out[j] * out[j];
  free(c);
  free(out);
  return s;
}

// The inner loop writes the cell it reads: c[col] changes inside it.
double written_inside(const double *x, const double *l, int n) {
  double *c = malloc(n * sizeof *c);
  for (int j = 0; j < n; j++)
    c[j] = x[j];
  double s = 0;
  int at = 0;
  for (int col = 0; col < n; col++)
    for (int row = col + 1; row < n; row++) {
      s += l[at] * c[col] * c[col];
      c[col] = c[col] * (1 + 0.5 * l[at++]);
    }
  for (int j = 0; j < n; j++)
    s += c[j] * c[j];
  free(c);
  return s;
}

// Chosen by a branch of the outer loop, read by every inner iteration.
double branch_chosen(const double *x, const double *l, int n) {
  double s = 0;
  int at = 0;
  for (int col = 0; col < n; col++) {
    double v = x[col] > 0 ? exp(x[col]) : x[col] * x[col];
    for (int row = col + 1; row < n; row++)
      s += sin(l[at++] * v);
  }
  return s;
}

// The inner loop is not counted (it stops on the data); the value is
// computed in the counted outer loop (a running product: taped, never
// recomputed).
double data_stop(const double *x, const double *l, int n) {
  double s = 0, v = 1;
  for (int col = 0; col < n; col++) {
    v *= 1 + 0.1 * x[col];
    double acc = 0;
    int row = col;
    while (acc < 2.3) { // no partial sum within 0.05 of it
      acc += fabs(l[row % NL]) + 0.25;
      s += sin(l[row % NL] * v);
      row++;
    }
  }
  return s;
}

// Three loops deep: the value of the outermost loop is read in the
// innermost one.
double three_deep(const double *x, const double *l, int n) {
  double s = 0, v = 1;
  for (int a = 0; a < n; a++) {
    v *= 1 + 0.1 * x[a];
    for (int b = 0; b < n; b++)
      for (int k = 0; k < n; k++)
        s += sin(v * l[(a + b + k) % NL]) * x[b];
  }
  return s;
}

// Inner trip counts read from scratch the function overwrites after the
// read: the count of each row is the value read, kept with its row.
double ragged(const double *x, const double *l, int n) {
  int *len = malloc(n * sizeof *len);
  for (int i = 0; i < n; i++)
    len[i] = 1 + (i * 3) % n;
  double s = 0;
  for (int i = 0; i < n; i++) {
    int m = len[i];
    len[i] = 0;
    for (int j = 0; j < m; j++)
      s += sin(x[i] * l[j]);
  }
  free(len);
  return s;
}

// Trip counts that are not affine in the counters ((n - i) / 2 rows):
// kept, not recomputed.
double strided(const double *x, const double *l, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    for (int j = i; j < n; j += 2)
      s += cos(x[i] * l[j] + x[j]);
  return s;
}

#define CHECK(f)                                                               \
  AD_CHECK_GRADIENT(#f, NX, X0, __ad_gradient(f, x, dx, x + N, dx + N, N),     \
                    f(w, w + N, N))

#ifdef __OPTIMIZE__
static size_t peak_of_triangular(int n) {
  double *x = malloc(n * sizeof *x), *dx = calloc(n, sizeof *dx);
  double *l = malloc(n * n * sizeof *l), *dl = calloc(n * n, sizeof *dl);
  for (int i = 0; i < n; i++)
    x[i] = 0.25 + 0.01 * i;
  for (int i = 0; i < n * n; i++)
    l[i] = 0.5 - 0.001 * i;
  size_t peak = AD_TAPE_PEAK(__ad_gradient(triangular, x, dx, l, dl, n));
  free(x);
  free(dx);
  free(l);
  free(dl);
  return peak;
}
#endif

int main(void) {
  CHECK(triangular);
  CHECK(varies);
  CHECK(written_inside);
  CHECK(branch_chosen);
  CHECK(data_stop);
  CHECK(three_deep);
  CHECK(ragged);
  CHECK(strided);
#ifdef __OPTIMIZE__
  {
    // Linear in n: a record per column and per j. One value per (col, row)
    // would make the ratio about 16.
    size_t small = peak_of_triangular(32), large = peak_of_triangular(128);
    printf("triangular: peak %zu bytes at n = 32, %zu at n = 128\n", small,
           large);
    ad_check("triangular tape grows linearly", large < 5 * small ? 1.0 : 0.0,
             1.0, 0, 0);
  }
#endif
  return ad_finish();
}
