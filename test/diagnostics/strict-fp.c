// Strict floating-point code (constrained intrinsics) is an error that
// names the cause. It was "no derivative rule ... its body is not visible
// in this translation unit", for a multiplication (found by a probe).
// RUN: not %adcc -O0 -ffp-model=strict -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %adcc -O2 -frounding-math -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %adcc -O2 -DPRAGMA -c %s -o /dev/null 2>&1 | FileCheck %s
// clang-format off
// CHECK: error: cannot differentiate strict floating-point code (constrained operations, from -ffp-model=strict, -frounding-math or #pragma STDC FENV_ACCESS ON): not supported; compile the function without them
// clang-format on
#include <ad.h>

double cube(double x) {
#ifdef PRAGMA
#pragma STDC FENV_ACCESS ON
#endif
  return x * x * x;
}

double tangent(double x) { return __ad_derivative(cube, x, 1.0); }
