// Heap temporaries from the aligned allocators, which are allocators like
// malloc: posix_memalign (the block comes back through a void ** out-
// parameter: into a local, into a field of a local struct, in a function
// that returns it), aligned_alloc and memalign, each freed with free(). An
// alignment that posix_memalign refuses (EINVAL) leaves the pointer as it
// was, and the function falls back to malloc. Gradients and forward-mode
// derivatives against central finite differences, and no heap memory left
// behind by repeated gradients (the shadows are freed).
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O3 -march=native %s -o %t.O3 %adlibs && %t.O3

#include "ad.h"
#include "adkernel.h"
#include <malloc.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define N 7

static volatile size_t alignment = 64;
static volatile size_t bad_alignment = 24; // not a power of two: EINVAL

// t_i = sin(x_i) x_i in an aligned block; returns sum t_i t_{n-1-i} + t_0.
static double fill_and_reduce(double *t, const double *x, int n) {
  for (int i = 0; i < n; i++)
    t[i] = sin(x[i]) * x[i];
  double s = t[0];
  for (int i = 0; i < n; i++)
    s += t[i] * t[n - 1 - i];
  return s;
}

double via_posix_memalign(const double *x, int n) {
  double *t;
  if (posix_memalign((void **)&t, alignment, n * sizeof *t))
    abort();
  if ((uintptr_t)t % alignment)
    abort();
  double s = fill_and_reduce(t, x, n);
  free(t);
  return s;
}

// The refused alignment leaves t NULL; malloc then supplies the block.
double with_fallback(const double *x, int n) {
  double *t = NULL;
  if (posix_memalign((void **)&t, bad_alignment, n * sizeof *t) != 0)
    t = malloc(n * sizeof *t);
  double s = fill_and_reduce(t, x, n);
  free(t);
  return s;
}

struct workspace {
  int n;
  double *buf;
};

double into_struct_field(const double *x, int n) {
  struct workspace w = {n, NULL};
  if (posix_memalign((void **)&w.buf, 32, w.n * sizeof *w.buf))
    abort();
  double s = fill_and_reduce(w.buf, x, w.n);
  free(w.buf);
  return s;
}

static double *make_buffer(int n) {
  void *p;
  if (posix_memalign(&p, alignment, n * sizeof(double)))
    abort();
  return p;
}

double returned_block(const double *x, int n) {
  double *t = make_buffer(n);
  double s = fill_and_reduce(t, x, n);
  free(t);
  return s;
}

double via_aligned_alloc(const double *x, int n) {
  size_t bytes = (n * sizeof(double) + 63) / 64 * 64;
  double *t = __builtin_assume_aligned(aligned_alloc(64, bytes), 64);
  double s = fill_and_reduce(t, x, n);
  free(t);
  return s;
}

double via_memalign(const double *x, int n) {
  double *t = __builtin_assume_aligned(memalign(32, n * sizeof *t), 32);
  double s = fill_and_reduce(t, x, n);
  free(t);
  return s;
}

static const double X0[N] = {0.7, -1.3, 1.1, 0.45, -0.6, 1.15, -0.85};
#define CHECK(f) ad_check_kernel(#f, N, X0, f, grad_##f, deriv_##f)

AD_KERNEL_REQUESTS(via_posix_memalign)
AD_KERNEL_REQUESTS(with_fallback)
AD_KERNEL_REQUESTS(into_struct_field)
AD_KERNEL_REQUESTS(returned_block)
AD_KERNEL_REQUESTS(via_aligned_alloc)
AD_KERNEL_REQUESTS(via_memalign)

int main(void) {
  CHECK(via_posix_memalign);
  CHECK(with_fallback);
  CHECK(into_struct_field);
  CHECK(returned_block);
  CHECK(via_aligned_alloc);
  CHECK(via_memalign);
  return ad_finish();
}
