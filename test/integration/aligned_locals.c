// Locals aligned beyond 16 bytes (_Alignas(32), _Alignas(64): buffers for
// AVX code) in reverse mode. Their shadows live in the tape, whose records
// are 16-byte aligned; the field has room to round the address up, which
// f.fwd does (llvm.ptrmask) and f.rev reads back. Before, "cannot
// differentiate through a local variable aligned to more than 16 bytes"
// at -O0 and -O1. With -mavx the shadows are accessed with 32-byte aligned
// vector moves, which fault on a misaligned address.
// clang-format off
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcc -O1 -mavx %s -o %t.avx %adlibs && %t.avx
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O0 -S -emit-llvm %s -o - | FileCheck %s
// CHECK-LABEL: define internal double @weighted.fwd(
// CHECK-DAG: call ptr @llvm.ptrmask.p0.i64(ptr %{{.*}}, i64 -32)
// CHECK-DAG: call ptr @llvm.ptrmask.p0.i64(ptr %{{.*}}, i64 -64)
// clang-format on
#include "ad.h"
#include "adcheck.h"

// sum_i (i + 1) x_i^2 + sum_i x_i x_{i+4}, through two aligned buffers.
double weighted(const double *x) {
  _Alignas(32) double t[4];
  _Alignas(64) double u[8];
  for (int i = 0; i < 4; i++)
    t[i] = x[i] * x[i];
  for (int i = 0; i < 8; i++)
    u[i] = x[i];
  double s = 0;
  for (int i = 0; i < 4; i++)
    s += t[i] * (i + 1) + u[i] * u[i + 4];
  return s;
}

// The same buffer in each activation of a recursion: its tape is pushed
// on the run-time tape, 16-byte aligned.
double chain(const double *x, int n) {
  _Alignas(32) double t[4];
  for (int i = 0; i < 4; i++)
    t[i] = x[i] * (n + 1);
  double s = t[0] * t[1] + t[2] * t[3];
  return n == 0 ? s : s + chain(x, n - 1);
}

int main(void) {
  double x[8] = {0.5, -1.0, 1.5, 2.0, -0.25, 0.75, 1.25, -1.5};
  double dx[8] = {0};
  __ad_gradient_void(weighted, x, dx);
  for (int i = 0; i < 8; i++) {
    double want = i < 4 ? 2 * x[i] * (i + 1) + x[i + 4] : x[i - 4];
    ad_deriv(ad_fmt("weighted d/dx%d", i), dx[i], want,
             AD_FD(x[i], weighted(x)), AD_TOL_D);
  }
  double dc[8] = {0};
  __ad_gradient_void(chain, x, dc, 3);
  // sum over n = 0..3 of (n + 1)^2 (x0 x1 + x2 x3): 30 (x0 x1 + x2 x3).
  double want_c[4] = {30 * x[1], 30 * x[0], 30 * x[3], 30 * x[2]};
  for (int i = 0; i < 4; i++)
    ad_deriv(ad_fmt("chain d/dx%d", i), dc[i], want_c[i],
             AD_FD(x[i], chain(x, 3)), AD_TOL_D);
  return ad_finish();
}
