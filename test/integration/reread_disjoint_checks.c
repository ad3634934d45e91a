// A loop nest whose stores may overwrite what its loads read gets a copy
// behind a run-time check that the written and read ranges are disjoint
// (pass/unzip/DisjointAccessChecks.h): the copy reads the loads again in
// f.rev, the original tapes them. Every gradient is checked against central
// differences, with the output vector placed everywhere in one buffer that
// holds the matrix and the vector: disjoint (the check passes, nothing is
// kept per element at -O2) and overlapping the matrix whole, at its start,
// at its end, and the vector (the check fails, the values are taped).
//
// clang-format off
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O2 -c %s -o %t.o -Rpass=adpass -fno-caret-diagnostics 2>&1 | FileCheck %s
// clang-format on

#include "ad.h"
#include "ad_runtime.h"
#include "adcheck.h"
#include <math.h>
#include <string.h>

enum { N = 4, NA = N * N, LEN = NA + 3 * N };

// y = A x, then ||y||.
double matvec_norm(const double *A, const double *x, double *y, int n) {
  for (int i = 0; i < n; ++i) {
    double s = 0;
    for (int j = 0; j < n; ++j)
      s += A[(long)i * n + j] * x[j];
    y[i] = s;
  }
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += y[i] * y[i];
  return sqrt(s);
}

// Passed y = x, each iteration writes the cell the previous one read: the
// ranges [x, x + n) and [x + 1, x + n + 1) overlap, the values are taped.
double squares_next(const double *x, double *y, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) {
    y[i] = x[i + 1] * x[i + 1];
    s += y[i] * x[i + 1];
  }
  return s;
}

// Steps that each write one slice and read the next: within one step the
// ranges are disjoint, but step t + 1 overwrites what step t read. Only
// whole nests outside loops are checked, once for all their accesses.
double shift_down(double *b, int n, int steps) {
  for (int t = 0; t < steps; ++t)
    for (int i = 0; i < n; ++i)
      b[t * n + i] = b[(t + 1) * n + i] * b[(t + 1) * n + i];
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += b[i] * b[n + i];
  return s;
}

// A store after the nest writes what it read: no check can excuse it.
double written_after(double *x, double *y, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) {
    s += x[i] * x[i];
    y[i] = s;
  }
  x[0] = 3 * s;
  return s + x[0] * x[1];
}

static const double *B0;

// matvec_norm on a copy of the buffer w: A at its start, x after A, y at
// offset Y.
static int Y;
static double on_buffer(const double *w) {
  double b[LEN];
  memcpy(b, w, sizeof b);
  return matvec_norm(b, b + NA, b + Y, N);
}
static double squares_next_on(const double *w) {
  double b[LEN];
  memcpy(b, w, sizeof b);
  return squares_next(b, b + Y, N);
}
static double shift_on(const double *w) {
  double b[LEN];
  memcpy(b, w, sizeof b);
  return shift_down(b, N, 2);
}
static double written_after_on(const double *w) {
  double b[LEN];
  memcpy(b, w, sizeof b);
  return written_after(b, b + 2, N);
}

static void check_at(const char *what, int y) {
  Y = y;
  AD_CHECK_GRADIENT(
      what, LEN, B0,
      __ad_gradient_void(matvec_norm, x, dx, x + NA, dx + NA, x + y, dx + y, N),
      on_buffer(w));
}

#ifdef __OPTIMIZE__
// At -O2, what the tape holds: nothing per element of A when y is apart,
// all of A when it overlaps.
static void check_tape(void) {
  enum { M = 64 };
  static double A[M * M], dA[M * M], x[M], dx[M], y[M * M], dy[M * M];
  for (int k = 0; k < M * M; ++k)
    A[k] = sin(0.37 * k);
  for (int k = 0; k < M; ++k)
    x[k] = cos(0.11 * k);
  __ad_tape_reset_peak();
  __ad_gradient_void(matvec_norm, AD_CONST, A, x, dx, y, dy, M);
  // The original nest keeps A[i*n+j] (the loop at line 28), the checked
  // copy nothing.
  // clang-format off
  // CHECK: reread_disjoint_checks.c:[[@LINE-4]]:3: remark: gradient of 'matvec_norm' keeps {{[0-9]+}} bytes per call
  // CHECK-NEXT: gradient of 'matvec_norm': the loop at line 26 keeps 8 bytes per iteration
  // CHECK-NEXT: gradient of 'matvec_norm': the loop at line 28 keeps 8 bytes per iteration
  // CHECK-NEXT: gradient of 'matvec_norm': the loop at line 26, in the copy run when its stores and loads do not overlap, keeps 0 bytes per iteration
  // CHECK-NEXT: gradient of 'matvec_norm': the loop at line 28, in the copy run when its stores and loads do not overlap, keeps 0 bytes per iteration
  // CHECK-NEXT: gradient of 'matvec_norm': the loop at line 33 keeps 0 bytes per iteration
  // clang-format on
  ad_check("y apart from A: nothing kept per element",
           __ad_tape_peak_bytes() < (double)M * M ? 0 : 1, 0, 0, 0);
  memcpy(y, A, sizeof A);
  __ad_tape_reset_peak();
  __ad_gradient_void(matvec_norm, y, dy, x, dx, y + M, dy + M, M);
  ad_check("y inside A: every element kept",
           __ad_tape_peak_bytes() >= 8.0 * M * M ? 0 : 1, 0, 0, 0);
}
#endif

int main(void) {
  double b0[LEN];
  for (int k = 0; k < LEN; ++k)
    b0[k] = 0.3 + 0.7 * sin(1.3 * k + 0.2);
  B0 = b0;
  check_at("y apart", NA + N);
  check_at("y is A", 0);
  check_at("y at the start of A", 2);
  check_at("y over the end of A and x", NA - 2);
  check_at("y over x", NA + 1);
  Y = 0;
  AD_CHECK_GRADIENT("squares_next on itself", LEN, B0,
                    __ad_gradient(squares_next, x, dx, x, dx, N),
                    squares_next_on(w));
  Y = N + 1;
  AD_CHECK_GRADIENT("squares_next apart", LEN, B0,
                    __ad_gradient(squares_next, x, dx, x + Y, dx + Y, N),
                    squares_next_on(w));
  AD_CHECK_GRADIENT("shift_down", LEN, B0,
                    __ad_gradient(shift_down, x, dx, N, 2), shift_on(w));
  AD_CHECK_GRADIENT("written_after", LEN, B0,
                    __ad_gradient(written_after, x, dx, x + 2, dx + 2, N),
                    written_after_on(w));
#ifdef __OPTIMIZE__
  check_tape();
#endif
  return ad_finish();
}
