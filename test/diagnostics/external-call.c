// A call of an external function without a derivative rule, with an active
// argument, is an error naming the callee. With -g it points at the call's
// line and notes the request; without -g it points at the request and
// names the function containing the call (at -O2 the static helper has
// been inlined into f).
// RUN: not %adcc -O0 -g -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefixes=CHECK,WITHG
// RUN: not %adcc -O2 -g -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefixes=CHECK,WITHG
// RUN: not %adcc -O0 -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefixes=CHECK,NOG
// RUN: not %adcc -O2 -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefixes=CHECK,NOG
#include <ad.h>
#include <math.h>
#include <stdio.h>

extern double mystery(double);

static double helper(double t) {
  // WITHG: external-call.c:[[@LINE+1]]:10: error: cannot differentiate a call to 'mystery': it has no derivative rule and its body is not visible in this translation unit
  return mystery(sin(t)) * t;
}

double f(double x) {
  printf("inactive: printing an active value is fine %g\n", x);
  return helper(x) + x;
}

double use(double x) {
  // WITHG: external-call.c:[[@LINE+2]]:10: note: derivative requested here
  // NOG: external-call.c:[[@LINE+1]]:10: error: cannot differentiate a call to 'mystery': {{.*}}(in function '{{helper|f}}'; compile with -g to see its line)
  return __ad_gradient(f, x);
}
// CHECK: 1 error generated.
