// The function to differentiate must have a body in this translation unit.
// RUN: not %adcc -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %adcc -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <ad.h>

extern double elsewhere(double);
double (*volatile chosen)(double);

double use(double x) {
  double r = 0;
  // CHECK: not-a-visible-function.c:[[@LINE+1]]:8: error: __ad_gradient: cannot differentiate 'elsewhere': its body is not visible in this translation unit (define it in this file)
  r += __ad_gradient(elsewhere, x);
  // CHECK: not-a-visible-function.c:[[@LINE+1]]:8: error: __ad_gradient: the first argument must name a function (not a variable or function pointer computed at run time)
  r += __ad_gradient((void *)chosen, x);
  return r;
}
