// An allocation (malloc, calloc, operator new) writes only the block it
// returns and the allocator's own state, so it does not stop f.rev from
// reading a parameter's memory again (pass/unzip/RereadableLoads.h); a
// free of that memory does. With a scratch row allocated per outer
// iteration (its shadow is a calloc'd block), the x[j] read in the inner
// loop is read again rather than taped per (i, j): at -O2 the peak tape
// grows linearly in n. Every gradient is checked against central
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

enum { N = 6 };
static const double X0[N] = {0.7, -1.3, 0.4, 2.1, -0.6, 1.1};

// Must fire: malloc (and the shadows' calloc) after x is read, in every
// outer iteration. Only malloc in the source: the calloc the pass declares
// for the shadows has no attributes.
double scratch_rows(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double *t = malloc(n * sizeof *t);
    double *u = malloc(sizeof *u);
    u[0] = x[i];
    for (int j = 0; j < n; j++)
      t[j] = x[j] * x[j] * (1 + 0.1 * i);
    for (int j = 0; j < n; j++)
      s += 3 * t[j];
    s += u[0] * u[0];
    free(u);
    free(t);
  }
  return s;
}

// Must not fire: f frees the coefficients it was handed (a block the
// caller gave up, without a derivative) after reading them, then
// allocates a block of the same size and fills it, which the allocator
// may place where the coefficients were. f.rev must not read them again.
double consumes(const double *y, double *c, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += c[i] * y[i] * y[i];
  double *t = malloc(n * sizeof *t);
  for (int i = 0; i < n; i++)
    t[i] = 0.5 * c[i];
  for (int i = 0; i < n; i++)
    s += t[i] * y[i] * c[i];
  free(c);
  double *junk = malloc(n * sizeof *junk);
  for (int i = 0; i < n; i++)
    junk[i] = 1e3;
  s += 0 * junk[n - 1];
  free(junk);
  free(t);
  return s;
}
static const double C0[N] = {1.5, -0.5, 2.0, 0.25, -1.0, 3.0};
static double *owned_coefficients(void) {
  double *c = malloc(N * sizeof *c);
  memcpy(c, C0, sizeof C0);
  return c;
}
static double consumes_on(const double *w) {
  return consumes(w, owned_coefficients(), N);
}
static void consumes_grad(double *x, double *dx) {
  __ad_gradient(consumes, x, dx, AD_CONST, owned_coefficients(), N);
}

#ifdef __OPTIMIZE__
static size_t peak_of_scratch_rows(int n) {
  double *x = malloc(n * sizeof *x), *dx = malloc(n * sizeof *dx);
  for (int i = 0; i < n; i++) {
    x[i] = 0.25 + 0.01 * i;
    dx[i] = 0;
  }
  size_t peak = AD_TAPE_PEAK(__ad_gradient(scratch_rows, x, dx, n));
  free(x);
  free(dx);
  return peak;
}
#endif

int main(void) {
  AD_CHECK_GRADIENT("scratch_rows", N, X0,
                    __ad_gradient(scratch_rows, x, dx, N), scratch_rows(w, N));
  AD_CHECK_GRADIENT("consumes", N, X0, consumes_grad(x, dx), consumes_on(w));
#ifdef __OPTIMIZE__
  {
    // Linear: what is kept per outer iteration (the scratch's shadow, the
    // inner loops' arrays), nothing per (i, j). Taping x[j] would make the
    // ratio about 10.
    size_t small = peak_of_scratch_rows(32), large = peak_of_scratch_rows(128);
    printf("scratch_rows: peak %zu bytes at n = 32, %zu at n = 128\n", small,
           large);
    ad_check("scratch_rows tape grows linearly",
             large < 5 * small ? 1.0 : 0.0, 1.0, 0, 0);
  }
#endif
  return ad_finish();
}
