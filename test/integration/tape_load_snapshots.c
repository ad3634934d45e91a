// A table of scratch memory filled before a loop nest, read in it and
// freed before the function returns (exp(q_k) of a Gaussian mixture) is
// copied once before the nest when nothing in the nest writes it and its
// addresses do not depend on every loop of the nest; f.lin and f.rev read
// the copy instead of the tape (pass/unzip/LoadSnapshots.cpp). Where the
// nest writes the table (directly or through a callee), frees and
// allocates it again, or reads a new cell in every iteration, the load is
// taped as before. Every gradient is checked against central differences.
//
// clang-format off
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O2 -c %s -o %t.o -Rpass=adpass -Rpass-missed=adpass -fno-caret-diagnostics 2>&1 | FileCheck %s
// clang-format on

#include "ad.h"
#include "ad_runtime.h"
#include "adcheck.h"
#include <math.h>
#include <stdlib.h>

enum { K = 3, D = 4, NP = 5, NX = K * D + NP * D };
static double X0[NX];

// Must fire: q[k*d + j] does not depend on the point i.
double table(const double *icf, const double *x, int k_, int d, int n) {
  double *q = malloc((size_t)k_ * d * sizeof *q);
  for (int t = 0; t < k_ * d; t++)
    q[t] = exp(icf[t]);
  double s = 0;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < k_; k++)
      for (int j = 0; j < d; j++)
        s += sin(q[k * d + j] * x[i * d + j]);
  free(q);
  return s;
}

// Must fire: a local table.
double local_table(const double *icf, const double *x, int k_, int d, int n) {
  double q[K * D];
  for (int t = 0; t < k_ * d; t++)
    q[t] = exp(icf[t]);
  double s = 0;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < k_; k++)
      for (int j = 0; j < d; j++)
        s += q[k * d + j] * q[k * d + j] * x[i * d + j];
  return s;
}

// Must not fire: the nest writes the table.
double written(const double *icf, const double *x, int k_, int d, int n) {
  double *q = malloc((size_t)k_ * d * sizeof *q);
  for (int t = 0; t < k_ * d; t++)
    q[t] = exp(icf[t]);
  double s = 0;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < k_; k++)
      for (int j = 0; j < d; j++) {
        s += sin(q[k * d + j] * x[i * d + j]);
        q[k * d + j] = q[k * d + j] * 1.01 + 0.01 * x[i * d + j];
      }
  free(q);
  return s;
}

__attribute__((noinline)) static void scale_cell(double *q, double f) {
  *q = *q * f;
}

// Must not fire: a callee writes the table.
double written_by_call(const double *icf, const double *x, int k_, int d,
                       int n) {
  double *q = malloc((size_t)k_ * d * sizeof *q);
  for (int t = 0; t < k_ * d; t++)
    q[t] = exp(icf[t]);
  double s = 0;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < k_; k++)
      for (int j = 0; j < d; j++) {
        s += sin(q[k * d + j] * x[i * d + j]);
        scale_cell(&q[k * d + j], 1.0 + 0.1 * x[i * d + j]);
      }
  free(q);
  return s;
}

// Must not fire: the table is freed and allocated again in the nest.
double reallocated(const double *icf, const double *x, int k_, int d, int n) {
  double *q = malloc((size_t)k_ * d * sizeof *q);
  for (int t = 0; t < k_ * d; t++)
    q[t] = exp(icf[t]);
  double s = 0;
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < k_; k++)
      for (int j = 0; j < d; j++)
        s += sin(q[k * d + j] * x[i * d + j]);
    free(q);
    q = malloc((size_t)k_ * d * sizeof *q);
    for (int t = 0; t < k_ * d; t++)
      q[t] = exp(icf[t] * x[i * d + t % d]);
  }
  free(q);
  return s;
}

// Must not fire: the address depends on every loop of the nest.
double every_loop(const double *icf, const double *x, int k_, int d, int n) {
  double *q = malloc((size_t)n * d * sizeof *q);
  for (int t = 0; t < n * d; t++)
    q[t] = exp(icf[t % (k_ * d)] * x[t]);
  double s = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < d; j++)
      s += sin(q[i * d + j] * x[i * d + j]);
  free(q);
  return s;
}

#define CHECK(f)                                                               \
  AD_CHECK_GRADIENT(#f, NX, X0,                                                \
                    __ad_gradient(f, x, dx, x + K * D, dx + K * D, K, D, NP),  \
                    f(w, w + K * D, K, D, NP))

#ifdef __OPTIMIZE__
static size_t peak_of_table(int n) {
  double *x = malloc((K * D + n * D) * sizeof *x);
  double *dx = calloc(K * D + n * D, sizeof *dx);
  for (int t = 0; t < K * D + n * D; t++)
    x[t] = 0.1 + 0.01 * (t % 17);
  size_t peak = AD_TAPE_PEAK(__ad_gradient(table, x, dx, x + K * D, dx + K * D, K, D, n));
  free(x);
  free(dx);
  return peak;
}
#endif

int main(void) {
  for (int t = 0; t < NX; t++)
    X0[t] = 0.3 * sin(1.7 * t + 0.4);
  CHECK(table);
  // clang-format off
  // CHECK: tape_load_snapshots.c:[[@LINE-2]]:3: remark: gradient of 'table' keeps {{[0-9]+}} bytes per call
  // CHECK-NEXT: gradient of 'table': the loop at line 28 keeps 0 bytes per iteration
  // CHECK-NEXT: gradient of 'table': the loop at line 31 keeps 0 bytes per iteration
  // CHECK-NEXT: gradient of 'table': the loop at line 32 keeps 0 bytes per iteration
  // CHECK-NEXT: gradient of 'table': the loop at line 33 keeps 0 bytes per iteration
  // CHECK-NOT: gradient of 'table': the value loaded
  // clang-format on
  // No component is read: the bounds of the inner loops are no addresses
  // then, and the copy is of nothing.
  AD_CHECK_GRADIENT(
      "table with d = 0", NX, X0,
      __ad_gradient(table, x, dx, x + K * D, dx + K * D, K, 0, NP),
      table(w, w + K * D, K, 0, NP));
  CHECK(local_table);
  // clang-format off
  // CHECK: gradient of 'local_table': the loop at line 45 keeps 0 bytes per iteration
  // CHECK-NEXT: gradient of 'local_table': the loop at line 46 keeps 0 bytes per iteration
  // CHECK-NEXT: gradient of 'local_table': the loop at line 47 keeps 0 bytes per iteration
  // CHECK-NOT: gradient of 'local_table': the value loaded
  // clang-format on
  CHECK(written);
  // clang-format off
  // CHECK: gradient of 'written': the value loaded at line 61 is kept per iteration of the loop at line 60
  // clang-format on
  CHECK(written_by_call);
  // clang-format off
  // CHECK: gradient of 'written_by_call': the value loaded at line 82 is kept per iteration of the loop at line 81
  // clang-format on
  CHECK(reallocated);
  // clang-format off
  // CHECK: gradient of 'reallocated': the value loaded at line 98 is kept per iteration of the loop at line 97
  // clang-format on
  CHECK(every_loop);
  // clang-format off
  // CHECK: gradient of 'every_loop': the value loaded at line 116 is kept per iteration of the loop at line 115
  // clang-format on
#ifdef __OPTIMIZE__
  {
    // The copy is K d doubles whatever n; taping q would add K d doubles
    // per point.
    size_t small = peak_of_table(4), large = peak_of_table(64);
    printf("table: peak %zu bytes at n = 4, %zu at n = 64\n", small, large);
    ad_check("table keeps no q per point", (double)large, (double)small, 0, 0);
  }
#endif
  return ad_finish();
}
