// Every function of a type whose address is taken is a possible target of
// a call through a pointer of that type. One that cannot be differentiated
// (here __float128 arithmetic) used to fail every gradient that called
// through such a pointer, even when it is never the target. Now the
// compile warns, the derivative through the other targets works, and
// derived code that does call it aborts with a message naming it.
// RUN: %adcc -O0 %s -o %t.O0 %adlibs 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: %t.O0
// RUN: not --crash %t.O0 extended 2>&1 | FileCheck %s --check-prefix=ABORT
// RUN: %adcc -O2 %s -o %t.O2 %adlibs 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: %t.O2
// RUN: not --crash %t.O2 extended 2>&1 | FileCheck %s --check-prefix=ABORT
// WARN: warning: 'extended', reached through a function pointer in the differentiated code, cannot be differentiated: cannot differentiate __float128 arithmetic: not supported; compute in double or long double (in function 'extended'). If derived code calls it, the program aborts with a message
// ABORT: ADPass runtime: a derivative called 'extended', which ADPass could not differentiate (see the warning when this file was compiled)
#include "ad.h"
#include "adcheck.h"

static double square(double x) { return x * x; }
static double extended(double x) {
  __float128 y = x;
  return (double)(y * y * y);
}
double (*table[2])(double) = {square, extended};

double apply(double x, int k) { return 3 * table[k](x); }

int main(int argc, char **argv) {
  (void)argv;
  double x = 1.5;
  int k = argc > 1; // 1: the target without a derivative
  double d = __ad_gradient(apply, x, k);
  ad_check("through square", d, 6 * x, 1e-12, 0);
  return ad_finish();
}
