// Derivatives nest through loops up to four levels deep: the records that
// inner derived code keeps on the runtime tape get one shadow per outer
// level and mode, and the runtime has regions for three outer levels. A
// fifth level over such code is an error at the loop, naming the limit.
// (Reverse over reverse through a loop was an error before each level had
// its own tape; integration/nested_tape.c checks it now.)
// RUN: not %adcc -O0 -g -c %s -o /dev/null 2>&1 | FileCheck %s
// From -O2 the prepared copies of the inner derived code move some values
// as integers, and that is what the error names first.
// RUN: not %adcc -O2 -g -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=ANY
// ANY: error: cannot differentiate
#include <ad.h>

double h(double x, int n) {
  double s = 0, t = 0;
  // CHECK: nested-reverse-loop.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate this use of the ADPass runtime's tape: derivatives nest more than four levels deep through loops, or the code calls the runtime itself
  while (t < n) {
    s += x * x * t;
    t += 1;
  }
  return s;
}
double d1(double x, int n) { return __ad_gradient(h, x, n); }
double d2(double x, int n) { return __ad_gradient(d1, x, n); }
double d3(double x, int n) { return __ad_gradient(d2, x, n); }
double d4(double x, int n) { return __ad_gradient(d3, x, n); }
double d5(double x, int n) {
  // CHECK: nested-reverse-loop.c:[[@LINE+1]]:{{[0-9]+}}: note: derivative requested here
  return __ad_derivative(d4, x, 1.0, n);
}
