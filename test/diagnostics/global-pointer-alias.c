// Floating-point data reached through a pointer kept in a global variable
// without a declared shadow (AD_SHADOW, ad.h) may be the input itself
// (G = x before the request): the derivative code would not find its
// derivatives there (d/dx0 of sum (G[i] *= 0.5, x[i]^3) came out 1.08
// instead of 0.54, silently). Reading or writing it, or passing the pointer
// to a function that does, is an error at its line, in both modes; a
// function the request calls without arguments is checked too. A static
// pointer set only to static const tables, and a FILE * kept in stderr,
// are fine. (integration/global_pointer_shadow.c: the declared forms.)
// RUN: not %adcc -O0 -g -ferror-limit=0 -c %s -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: not %adcc -O2 -g -ferror-limit=0 -c %s -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=error:
#include <ad.h>
#include <stdio.h>

double *G;

double halves(double *x, int n) {
  for (int i = 0; i < n; ++i)
    // CHECK-DAG: global-pointer-alias.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate: this reads or writes floating-point data through a pointer kept in the global variable 'G' (or passes it to a function that does), which may point to memory with derivatives: give the global a shadow, a global of the same type that leads to the derivatives, with AD_SHADOW(G, dG) (ad.h)
    G[i] *= 0.5;
  return x[0] * x[0] * x[0];
}

double clears(double *x) {
  // CHECK-DAG: global-pointer-alias.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate: this reads or writes floating-point data through a pointer kept in the global variable 'G'
  G[1] = 0;
  return x[1] * x[1];
}

double reads(double *x) {
  // CHECK-DAG: global-pointer-alias.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate: this reads or writes floating-point data through a pointer kept in the global variable 'G'
  return G[0] * x[0];
}

struct Ctx {
  double *work;
} ctx;

double through_struct(double *x) {
  // CHECK-DAG: global-pointer-alias.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate: this reads or writes floating-point data through a pointer kept in the global variable 'ctx'
  ctx.work[0] = 2.0;
  return ctx.work[1] * x[0];
}

__attribute__((noinline)) void scale_in_place(double *p, int n) {
  for (int i = 0; i < n; ++i)
    p[i] *= 0.5;
}

double passes_on(double *x, int n) {
  // CHECK-DAG: global-pointer-alias.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate: this reads or writes floating-point data through a pointer kept in the global variable 'G'
  scale_in_place(G, n);
  return x[0] * x[0];
}

__attribute__((noinline)) double peek(void) {
  // CHECK-DAG: global-pointer-alias.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate: this reads or writes floating-point data through a pointer kept in the global variable 'G'
  return G[2];
}

// The same with the pointer in a local first (kept in memory at -O0).
__attribute__((noinline)) double peek_local(void) {
  double *w = G;
  // CHECK-DAG: global-pointer-alias.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate: this reads or writes floating-point data through a pointer kept in the global variable 'G'
  return w[1];
}

double calls_peek(double *x) { return peek() * x[0]; }
double calls_peek_local(double *x) { return peek_local() * x[1]; }

// Not static: another file may point it anywhere.
static const double table[2] = {3, 4};
const double *shared_coef = table;
double shared_table(double *x) {
  // CHECK-DAG: global-pointer-alias.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate: this reads or writes floating-point data through a pointer kept in the global variable 'shared_coef'
  return shared_coef[0] * x[0];
}

// Fine: constant data, and a FILE *.
static const double *coef;
double constant_table(double *x) {
  fprintf(stderr, "x0 = %g\n", x[0]);
  return coef[0] * x[0] * x[0] + coef[1] * x[1];
}

int main(void) {
  double x[3] = {1, 2, 3}, dx[3] = {0}, t[3] = {1, 0, 0};
  coef = table;
  G = x;
  ctx.work = x;
  double r = __ad_gradient(halves, x, dx, 3) + __ad_gradient(clears, x, dx) +
             __ad_derivative(reads, x, t) +
             __ad_gradient(through_struct, x, dx) +
             __ad_derivative(passes_on, x, t, 3) +
             __ad_gradient(calls_peek, x, dx) +
             __ad_derivative(calls_peek_local, x, t) +
             __ad_gradient(shared_table, x, dx) +
             __ad_gradient(constant_table, x, dx) +
             __ad_derivative(constant_table, x, t);
  printf("%g\n", r);
  return 0;
}
