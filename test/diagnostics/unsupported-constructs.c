// Constructs outside what ADPass differentiates today are clear errors at
// their line (with -g), never a crash or a wrong derivative.
// RUN: not %adcc -O0 -g -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %adcc -O2 -g -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=O2
#include <ad.h>

double rec(double x, int n) {
  // CHECK: unsupported-constructs.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate the recursive call of 'rec': recursion is not supported yet
  return n == 0 ? x : x * rec(x, n - 1);
}

double (*volatile fp)(double);
double indirect(double x) {
  // CHECK: unsupported-constructs.c:[[@LINE+2]]:{{[0-9]+}}: error: cannot differentiate a memory access (pointers, arrays, structs in memory, mutable globals): not supported yet
  // O2: unsupported-constructs.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate a memory access
  return fp(x);
}

double use(double x) {
  return __ad_gradient(rec, x, 3) + __ad_gradient(indirect, x);
}
