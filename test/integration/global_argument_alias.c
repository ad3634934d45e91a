// A pointer argument that points into a global the function also uses by
// name: the global gets its own shadow in the derived code, separate from
// the caller's, so the derivative would be wrong (it was: 9 instead of
// 13.5 for f(G) = g^4, found by probing). Such a request aborts at run time
// with a message; the same request with a copy of the global is right.
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && not --crash %t.O0 2>&1 | FileCheck %s
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && not --crash %t.O2 2>&1 | FileCheck %s
// CHECK: copy: d/dx = 13.5
// CHECK: ADPass runtime: a pointer argument of a derivative request points into the global variable 'G', which the differentiated code also uses by name
// CHECK-NOT: aliased:
#include "ad.h"
#include <stdio.h>

double G[1];
double f(double *x) {
  G[0] = x[0] * x[0];
  return G[0] * x[0];
}

int main(void) {
  double x[1] = {1.5}, dx[1] = {0};
  __ad_gradient(f, x, dx); // x^3: 3 x^2 = 6.75
  G[0] = 1.5;
  double c[1] = {G[0]}, dc[1] = {0};
  __ad_gradient(f, c, dc);
  printf("copy: d/dx = %g\n", dc[0] + dx[0]);
  fflush(stdout);
  double dG[1] = {0};
  __ad_gradient(f, G, dG); // x == G: f = g^4
  printf("aliased: d/dG = %g\n", dG[0]);
  return 0;
}
