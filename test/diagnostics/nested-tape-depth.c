// Reverse mode over code that computes a gradient through a loop: at -O0
// the inner derivative keeps a record per iteration on the runtime tape,
// and the outer derivative's own records would land between its pushes and
// pops on that one LIFO stack. This gave twice the second derivative,
// garbage or a hang; it is an error naming the way that works (forward
// over reverse: integration/second_derivatives.c).
// From -O1 the loop is counted and nothing goes on the runtime tape: the
// same function is differentiated (integration/nested_loops.c, which also
// checks the -O0 errors of inner derivatives that keep values with
// derivatives on the runtime tape).
// RUN: not %adcc -O0 -g -c %s -o /dev/null 2>&1 | FileCheck %s
#include <ad.h>
#include <math.h>

double h(double x) {
  double s = 0;
  for (int i = 1; i <= 5; i++)
    s += x * x;
  return s;
}
double dh(double x) { return __ad_gradient(h, x); }

double d2h(double x) {
  // CHECK: nested-reverse-loop.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate in reverse mode code that itself computes a gradient through a loop (a nested __ad_gradient whose function loops): not supported yet; take the outer derivative in forward mode (__ad_derivative of the function that calls __ad_gradient)
  return __ad_gradient(dh, x);
}
