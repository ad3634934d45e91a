// A pointer argument that points into a global the function also uses by
// name: the global gets its own shadow in the derived code, separate from
// the caller's, so the derivative would be wrong (it was: 9 instead of
// 13.5 for f(G) = g^4, found by probing). Such a request aborts at run time
// with a message; the same request with a copy of the global is right.
// The pointer may also reach f inside a struct (Box b = {G}; f(&b)): the
// pointers f reads on entry from an argument's memory are checked too (a
// silently wrong gradient before, found by a probe).
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && not --crash %t.O0 2>&1 | FileCheck %s
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && not --crash %t.O2 2>&1 | FileCheck %s
// RUN: %adcc -O0 -DNESTED %s -o %t.N0 %adlibs && not --crash %t.N0 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: %adcc -O2 -DNESTED %s -o %t.N2 %adlibs && not --crash %t.N2 2>&1 | FileCheck %s --check-prefix=NESTED
// CHECK: copy: d/dx = 13.5
// CHECK: ADPass runtime: a pointer argument of a derivative request (or a pointer the function reads from the memory it points to) points into the global variable 'G', which the differentiated code also uses by name
// CHECK-NOT: aliased:
// NESTED: boxed copy: d/dc = 0 -1.4
// NESTED: ADPass runtime: a pointer argument of a derivative request (or a pointer the function reads from the memory it points to) points into the global variable 'G', which the differentiated code also uses by name
// NESTED-NOT: boxed aliased:
#include "ad.h"
#include <stdio.h>

double G[2];

#ifndef NESTED
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
#else
typedef struct {
  double *p;
} Box;
// with b->p = c, a copy: f = c1^2 (G[0] is only written); d/dc = (0, 2 c1)
double f(Box *b) {
  G[0] = b->p[1];
  return b->p[0] * b->p[1] + (b->p[1] - b->p[0]) * b->p[1];
}

int main(void) {
  double c[2] = {0.3, -0.7}, dc[2] = {0};
  Box b = {c}, db = {dc};
  __ad_gradient(f, &b, &db);
  printf("boxed copy: d/dc = %g %g\n", dc[0], dc[1]);
  fflush(stdout);
  G[0] = 0.3;
  G[1] = -0.7;
  double dG[2] = {0};
  Box a = {G}, da = {dG};
  __ad_gradient(f, &a, &da); // b->p == G: G[0] is overwritten
  printf("boxed aliased: %g %g\n", dG[0], dG[1]);
  return 0;
}
#endif
