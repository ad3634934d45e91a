// -Rpass=adpass: what each gradient keeps on its tape, at the request's
// line; -Rpass-missed=adpass: the loads it keeps although memory holds
// them, and why. -fsave-optimization-record writes the same remarks.
// clang-format off
// RUN: %adcc -O2 -c %s -o %t.o -Rpass=adpass 2>&1 | FileCheck %s --check-prefix=KEEPS
// RUN: %adcc -O2 -c %s -o %t.o -Rpass-missed=adpass 2>&1 | FileCheck %s --check-prefix=MISSED --implicit-check-not="gradient of 'sum_squares'"
// RUN: %adcc -O2 -g -c %s -o %t.o -Rpass-missed=adpass 2>&1 | FileCheck %s --check-prefix=NAMED --implicit-check-not="gradient of 'sum_squares'"
// RUN: %adcc -O0 -c %s -o %t.o -Rpass-missed=adpass 2>&1 | FileCheck %s --check-prefix=MISSED
// RUN: %adcc -O2 -c %s -o %t.o -fsave-optimization-record -foptimization-record-file=%t.yaml
// RUN: FileCheck %s --check-prefix=YAML < %t.yaml
// Without -Rpass nothing is printed.
// RUN: %adcc -O2 -c %s -o %t.o 2>&1 | count 0
// clang-format on
#include "ad.h"

// x is const and nothing writes it: f.rev reads x[i] again.
double sum_squares(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += x[i] * x[i];
  return s;
}

// y may alias x: the store to y[i] may overwrite x[i + 1], so x[i] is kept.
double running_sums(double *x, double *y, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) {
    s += x[i] * x[i];
    y[i] = s;
  }
  return s;
}

void grad_sum_squares(const double *x, double *dx, int n) {
  __ad_gradient(sum_squares, x, dx, n);
}

void grad_running_sums(double *x, double *dx, double *y, double *dy, int n) {
  __ad_gradient(running_sums, x, dx, y, dy, n);
}

static inline __attribute__((always_inline)) void
grad_inlined(const double *x, double *dx, int n) {
  __ad_gradient(sum_squares, x, dx, n);
}

void grad_twice(const double *x, double *dx, int n) {
  grad_inlined(x, dx, n);
  grad_inlined(x + 1, dx + 1, n - 1);
}

// KEEPS: remarks.c:35:3: remark: gradient of 'sum_squares' keeps {{[0-9]+}} bytes per call on its tape
// KEEPS: remarks.c:35:3: remark: gradient of 'sum_squares': the loop at line 19 keeps 0 bytes per iteration [-Rpass=adpass]
// KEEPS: remarks.c:39:3: remark: gradient of 'running_sums' keeps {{[0-9]+}} bytes per call on its tape
// KEEPS: remarks.c:39:3: remark: gradient of 'running_sums': the loop at line 27 keeps 8 bytes per iteration (an array of one record per iteration

// A request inlined into two places is one request in the source: its
// remarks are printed once.
// clang-format off
// RUN: %adcc -O2 -c %s -o %t.o -Rpass=adpass 2>&1 | grep -c "remarks.c:44:3: remark: gradient of 'sum_squares' keeps" | FileCheck %s --check-prefix=ONCE
// clang-format on
// ONCE: {{^}}1{{$}}

// MISSED: remarks.c:39:3: remark: gradient of 'running_sums': the value loaded from parameter 1 at line 28 is kept per iteration of the loop at line 27: the store at line 29 may overwrite parameter 1 [-Rpass-missed=adpass]
// NAMED: remarks.c:39:3: remark: gradient of 'running_sums': the value loaded from 'x' at line 28 is kept per iteration of the loop at line 27: the store at line 29 may overwrite 'x' [-Rpass-missed=adpass]

// YAML:      Pass: adpass
// YAML-NEXT: Name: TapePerCall
// YAML-NEXT: DebugLoc: { File: '{{.*}}remarks.c', Line: 35,
// YAML:      Column: 3 }
// YAML-NEXT: Function: grad_sum_squares
// YAML:      BytesPerCall:
// YAML:      Name: TapePerIteration
// YAML:      LoopLine: '19'
// YAML:      BytesPerIteration: '0'
// YAML:      --- !Missed
// YAML-NEXT: Pass: adpass
// YAML-NEXT: Name: LoadKept
// YAML-NEXT: DebugLoc: { File: '{{.*}}remarks.c', Line: 39,
// YAML:      Column: 3 }
// YAML-NEXT: Function: grad_running_sums
// YAML:      Reason: the store at line 29 may overwrite parameter 1
