// A pointer argument that points into a global the function also uses by
// name: the global gets its own shadow in the derived code, separate from
// the caller's, so the derivative would be wrong (it was: 9 instead of
// 13.5 for f(G) = g^4, found by probing). Such a request aborts at run time
// with a message; the same request with a copy of the global is right.
// The pointer may also reach f inside a struct (Box b = {G}; f(&b)): the
// pointers f reads on entry from an argument's memory are checked too (a
// silently wrong gradient before, found by a probe).
// A global the function only reads by name is constant data for the
// derived code: passed in as the input (a regulariser reading theta[i] in
// loss(theta)), its reads by name lost their derivative in both modes
// (-1 instead of -0.5). Such a request aborts too (READ); the same request
// with a copy of the global, and the global passed AD_CONST, are right.
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && not --crash %t.O0 2>&1 | FileCheck %s
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && not --crash %t.O2 2>&1 | FileCheck %s
// RUN: %adcc -O0 -DNESTED %s -o %t.N0 %adlibs && not --crash %t.N0 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: %adcc -O2 -DNESTED %s -o %t.N2 %adlibs && not --crash %t.N2 2>&1 | FileCheck %s --check-prefix=NESTED
// CHECK: copy: d/dx = 13.5
// CHECK: ADPass runtime: a pointer argument of a derivative request (or a pointer the function reads from the memory it points to) points into the global variable 'G', which the differentiated code also uses by name
// CHECK-NOT: aliased:
// RUN: %adcc -O0 -DREAD %s -o %t.R0 %adlibs && not --crash %t.R0 2>&1 | FileCheck %s --check-prefix=READ
// RUN: %adcc -O1 -DREAD %s -o %t.R1 %adlibs && not --crash %t.R1 2>&1 | FileCheck %s --check-prefix=READ
// RUN: %adcc -O2 -DREAD %s -o %t.R2 %adlibs && not --crash %t.R2 2>&1 | FileCheck %s --check-prefix=READ
// RUN: %adcc -O0 -DREAD -DFORWARD %s -o %t.F0 %adlibs && not --crash %t.F0 2>&1 | FileCheck %s --check-prefix=READ
// RUN: %adcc -O2 -DREAD -DFORWARD %s -o %t.F2 %adlibs && not --crash %t.F2 2>&1 | FileCheck %s --check-prefix=READ
// NESTED: boxed copy: d/dc = 0 -1.4
// NESTED: ADPass runtime: a pointer argument of a derivative request (or a pointer the function reads from the memory it points to) points into the global variable 'G', which the differentiated code also uses by name
// NESTED-NOT: boxed aliased:
// READ: {{^}}18 checks passed
// READ: ADPass runtime: a pointer argument of a derivative request (or a pointer the function reads from the memory it points to) points into the global variable 'theta', which the differentiated code also uses by name
// READ-NOT: aliased:
#include "ad.h"
#include "adcheck.h"
#include <stdio.h>

double G[2];

#if defined(READ)
double theta[3];

// sum (t_i - 1)^2 + 0.5 theta_i^2, with t == theta: d/dt_i = 2 (t_i - 1) + t_i
double loss(double *t) {
  double s = 0;
  for (int i = 0; i < 3; ++i)
    s += (t[i] - 1) * (t[i] - 1) + 0.5 * theta[i] * theta[i];
  return s;
}

// theta as AD_CONST weights: no shadow, so nothing to tell apart
double weighted(double *t, const double *w) {
  double s = 0;
  for (int i = 0; i < 3; ++i)
    s += w[i] * t[i] * t[i] + theta[i] * t[i];
  return s;
}

int main(void) {
  theta[0] = 0.5;
  theta[1] = -1;
  theta[2] = 2;
  double c[3] = {theta[0], theta[1], theta[2]}, dc[3] = {0};
  __ad_gradient(loss, c, dc); // theta is constant here: 2 (c_i - 1)
  for (int i = 0; i < 3; ++i) {
    double fd = AD_FD(c[i], loss(c));
    ad_deriv(ad_fmt("copy d/dc%d", i), dc[i], 2 * (c[i] - 1), fd, AD_TOL_D);
  }
  double u[3] = {0.3, -0.2, 1.1}, du[3] = {0};
  __ad_gradient(weighted, u, du, AD_CONST, theta);
  for (int i = 0; i < 3; ++i) {
    double fd = AD_FD(u[i], weighted(u, theta));
    ad_deriv(ad_fmt("const d/du%d", i), du[i], 2 * theta[i] * u[i] + theta[i],
             fd, AD_TOL_D);
  }
  ad_finish();
  fflush(stdout);
  double aliased;
#ifdef FORWARD
  double t[3] = {1, 0, 0};
  aliased = __ad_derivative(loss, theta, t); // 2 (0.5 - 1) + 0.5
#else
  double dtheta[3] = {0};
  __ad_gradient(loss, theta, dtheta);
  aliased = dtheta[0];
#endif
  printf("aliased: %g\n", aliased);
  return 0;
}
#elif !defined(NESTED)
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
