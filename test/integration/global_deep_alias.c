// A pointer the derived code loads from memory (not an argument, not read
// from one on entry) that leads into a global the function also uses by
// name: a list whose third node holds &G, with dG as its shadow, while f
// writes G by name. The memory then had two derivatives, the caller's dG
// and G's shadow global, and the gradient was silently wrong (da = 20
// instead of 38, dG[0] = 6 instead of 0). The derived code checks each
// pointer it loads from memory with a shadow, and the request stops with a
// message, in both modes (and with -DREAD, where f only reads W by name, as
// constant data).
// It must not stop when the derived code stored the address itself (-DOWN,
// &G kept in a local node, its shadow G's own) or when the list does not
// reach G (the copy runs first in every case), nor when the request that
// passes the global in through memory is not the one that uses it by name
// (-DSHARED: both call the same function, which loads the pointer).
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && not --crash %t.O0 2>&1 | FileCheck %s
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && not --crash %t.O2 2>&1 | FileCheck %s
// RUN: %adcc -O0 -DFORWARD %s -o %t.F0 %adlibs && not --crash %t.F0 2>&1 | FileCheck %s
// RUN: %adcc -O2 -DFORWARD %s -o %t.F2 %adlibs && not --crash %t.F2 2>&1 | FileCheck %s
// RUN: %adcc -O0 -DREAD %s -o %t.R0 %adlibs && not --crash %t.R0 2>&1 | FileCheck %s --check-prefix=READ
// RUN: %adcc -O2 -DREAD %s -o %t.R2 %adlibs && not --crash %t.R2 2>&1 | FileCheck %s --check-prefix=READ
// RUN: %adcc -O0 -DOWN %s -o %t.W0 %adlibs && %t.W0
// RUN: %adcc -O1 -DOWN %s -o %t.W1 %adlibs && %t.W1
// RUN: %adcc -O2 -DOWN %s -o %t.W2 %adlibs && %t.W2
// RUN: %adcc -O0 -DSHARED %s -o %t.S0 %adlibs && %t.S0
// RUN: %adcc -O2 -DSHARED %s -o %t.S2 %adlibs && %t.S2
// CHECK: {{^[0-9]+}} checks passed
// CHECK: ADPass runtime: a pointer the differentiated code reads from memory points into the global variable 'G', which the differentiated code also uses by name
// CHECK-NOT: aliased:
// READ: {{^[0-9]+}} checks passed
// READ: ADPass runtime: a pointer the differentiated code reads from memory points into the global variable 'W', which the differentiated code also uses by name
// READ-NOT: aliased:
#include "ad.h"
#include "adcheck.h"
#include <stdio.h>

typedef struct Node {
  double *v;
  struct Node *next;
} Node;

#if defined(SHARED)
typedef struct {
  double *p;
  int n;
} View;
double W[3] = {0.5, -1.5, 2};

// loads v->p: the pointer the checks look at
__attribute__((noinline)) double sumsq_view(const View *v) {
  double s = 0;
  for (int i = 0; i < v->n; ++i)
    s += v->p[i] * v->p[i];
  return s;
}

// writes W by name and passes it through a View: W[2] = t, so
// f = W0^2 + W1^2 + t^2 + t W1 and df/dt = 2 t + W1
double named(double t) {
  W[2] = t;
  View v;
  v.p = W;
  v.n = 3;
  return sumsq_view(&v) + t * W[1];
}

int main(void) {
  double dW[3] = {0};
  View v = {W, 3}, dv = {dW, 3};
  __ad_gradient(sumsq_view, &v, &dv); // W passed in, not used by name here
  for (int i = 0; i < 3; ++i)
    ad_deriv(ad_fmt("view d/dW%d", i), dW[i], 2 * W[i],
             AD_FD(W[i], sumsq_view(&v)), AD_TOL_D);
  double t = 0.8, w2 = W[2];
  double fd = AD_FD(t, named(t));
  ad_deriv("named forward d/dt", __ad_derivative(named, t, 1.0), 2 * t + W[1],
           fd, AD_TOL_D);
  ad_deriv("named d/dt", __ad_gradient(named, t), 2 * t + W[1], fd, AD_TOL_D);
  W[2] = w2;
  return ad_finish();
}
#elif defined(OWN)
double G[2];

// G[0] = 3 a, and a local node aimed at G: f = a^2 + (3a)^2 + (3a)^2
double f(double *a) {
  G[0] = 3 * a[0];
  Node second, first;
  second.v = G;
  second.next = 0;
  first.v = a;
  first.next = &second;
  double s = 0;
  for (Node *n = &first; n; n = n->next)
    s += n->v[0] * n->v[0];
  return s + G[0] * G[0];
}

int main(void) {
  double a[1] = {0.7}, da[1] = {0};
  __ad_gradient(f, a, da);
  ad_deriv("own d/da", da[0], 38 * a[0], AD_FD(a[0], f(a)), AD_TOL_D);
  double t[1] = {1};
  ad_deriv("own forward d/da", __ad_derivative(f, a, t), 38 * a[0],
           AD_FD(a[0], f(a)), AD_TOL_D);
  return ad_finish();
}
#else
#if defined(READ)
double W[2] = {0.5, 2};
// sum over the list of v^2, plus W[0] v read by name: W is constant data
double f(Node *n) {
  double s = 0;
  for (; n; n = n->next)
    s += n->v[0] * n->v[0] + W[0] * n->v[0];
  return s;
}
#define DF_DA(a) (2 * (a) + W[0])
#define DF_DB(b) (2 * (b) + W[0])
#else
double G[2];
// G[0] = 3 a first; then the list's squares, and G[0]^2 read by name:
// d/da = 2 a + 18 a when the list does not reach G
double f(Node *n) {
  G[0] = 3 * n->v[0];
  double s = 0;
  for (; n; n = n->next)
    s += n->v[0] * n->v[0];
  return s + G[0] * G[0];
}
#define DF_DA(a) (20 * (a))
#define DF_DB(b) (2 * (b))
#endif

static double grad(Node *n, Node *dn, double *da) {
#ifdef FORWARD
  (void)dn;
  double zero2 = 0, zero3 = 0;
  Node t3 = {&zero3, 0}, t2 = {&zero2, &t3}, t1 = {da, &t2};
  return __ad_derivative(f, n, &t1);
#else
  __ad_gradient(f, n, dn);
  return 0;
#endif
}

int main(void) {
  double a = 0.7, b = -1.3, c = 0.4, da = 0, db = 0, dc = 0;
  Node n3 = {&c, 0}, n2 = {&b, &n3}, n1 = {&a, &n2};
  Node d3 = {&dc, 0}, d2 = {&db, &d3}, d1 = {&da, &d2};
#ifdef FORWARD
  double ta = 1;
  double got = grad(&n1, &d1, &ta);
#else
  grad(&n1, &d1, 0);
  double got = da;
#endif
#ifdef READ
  ad_deriv("copy d/da", got, DF_DA(a), AD_FD(a, f(&n1)), AD_TOL_D);
  W[1] = c;
  n3.v = &W[1]; // the third node now reaches W, which f reads by name
#else
  ad_deriv("copy d/da", got, DF_DA(a), AD_FD(a, f(&n1)), AD_TOL_D);
  G[1] = c;
  n3.v = &G[1]; // the third node now reaches G, which f writes by name
#endif
#ifndef FORWARD
  ad_deriv("copy d/db", db, DF_DB(b), AD_FD(b, f(&n1)), AD_TOL_D);
#endif
  ad_finish();
  fflush(stdout);
  double dG1 = 0;
  d3.v = &dG1;
#ifdef FORWARD
  ta = 1;
  got = grad(&n1, &d1, &ta);
#else
  da = 0;
  grad(&n1, &d1, 0);
  got = da;
#endif
  printf("aliased: %g\n", got);
  return 0;
}
#endif
