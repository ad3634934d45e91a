// Heap temporaries allocated and freed through function pointers kept in a
// global allocator table (struct { alloc; release; } A = {malloc, free}),
// as libraries that let the user plug in an allocator do. The calls go
// through the dispatcher, which calls malloc and free directly (they are
// allocators there, with shadows) or the table's other possible targets:
// here a zeroing allocator and a release function defined in this file,
// swapped in at run time. Gradients and forward-mode derivatives against
// central finite differences, with each table, and no heap memory left
// behind by repeated gradients.
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O3 %s -o %t.O3 %adlibs && %t.O3

#include "ad.h"
#include "adkernel.h"
#include <malloc.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define N 7

struct allocator {
  void *(*alloc)(size_t);
  void (*release)(void *);
};

struct allocator A = {malloc, free};

static void *zeroed(size_t bytes) { return calloc(1, bytes); }
static int released;
static void counted_free(void *p) {
  ++released;
  free(p);
}

// t_i = sin(x_i) x_i; u accumulates t in place; returns sum t_i u_{n-1-i}.
double table_temporaries(const double *x, int n) {
  double *t = A.alloc(n * sizeof *t);
  double *u = A.alloc(n * sizeof *u);
  for (int i = 0; i < n; i++) {
    t[i] = sin(x[i]) * x[i];
    u[i] = i ? u[i - 1] + t[i] : t[i];
  }
  double s = 0;
  for (int i = 0; i < n; i++)
    s += t[i] * u[n - 1 - i];
  A.release(t);
  A.release(u);
  return s;
}

AD_KERNEL_REQUESTS(table_temporaries)

static void check(const char *name) {
  static const double x0[N] = {0.7, -1.3, 1.1, 0.45, -0.6, 1.15, -0.85};
  ad_check_kernel(name, N, x0, table_temporaries, grad_table_temporaries,
                  deriv_table_temporaries);
}

int main(void) {
  check("malloc/free");
  A.alloc = zeroed;
  A.release = counted_free;
  released = 0;
  check("zeroed/counted_free");
  // The derivatives free what the function frees, through the table.
  ad_check("releases seen", released > 0, 1, 0, 0);
  return ad_finish();
}
