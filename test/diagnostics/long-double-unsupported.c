// long double arithmetic is differentiated (integration/long_double.c);
// what of it is not is an error at its line, never a zero derivative:
// libm's functions of a _Complex long double, which take it through
// memory (cabsl, cargl, cexpl, and creall with -fno-builtin; a rule
// applied to that pointer gave 0), a struct holding a long double and a
// double copied whole, and a marker declared to return double for a long
// double partial.
// RUN: not %adcc -O0 -g -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefixes=CHECK,BUILTIN
// RUN: not %adcc -O2 -g -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefixes=CHECK,BUILTIN
// RUN: not %adcc -O0 -g -fno-builtin -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefixes=CHECK,NOBUILTIN
// RUN: not %adcc -O2 -g -fno-builtin -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefixes=CHECK,NOBUILTIN
// clang-format off
#include <ad.h>
#include <complex.h>

long double modulus(long double x) {
  long double _Complex z = x + 2 * x * I;
  // CHECK-DAG: long-double-unsupported.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate a call to 'cabsl': it has no derivative rule
  return cabsl(z);
}

long double argument(long double x) {
  long double _Complex z = x + 2 * x * x * I;
  // CHECK-DAG: long-double-unsupported.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate a call to 'cargl': it has no derivative rule
  return cargl(z);
}

long double exponential(long double x) {
  long double _Complex z = x + x * I;
  // CHECK-DAG: long-double-unsupported.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate a call to 'cexpl': it has no derivative rule
  return cimagl(cexpl(z));
}

long double real_part(long double x) {
  long double _Complex z = x + 2 * x * x * I;
  // With builtins, clang reads the part itself, which is differentiated
  // (one error less).
  // NOBUILTIN-DAG: long-double-unsupported.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate a call to 'creall': it has no derivative rule
  return creall(z) * x;
}

typedef struct {
  long double v;
  int n;
  double w;
} tagged;
__attribute__((noinline)) static void copy_tagged(tagged *d, const tagged *s) {
  // CHECK-DAG: long-double-unsupported.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate this memory copy: it moves data of more than one kind (two of float, double and long double, or pointers and floating-point data); copy element by element instead
  *d = *s;
}
double tagged_sum(const tagged *t) {
  tagged c;
  copy_tagged(&c, t);
  return (double)(c.v * c.v) * c.n + c.w;
}

long double square(long double x) { return x * x; }

int main(void) {
  long double x = 1.25L;
  tagged t = {x, 2, 0.5}, dt = {0, 0, 0};
  __ad_gradient(tagged_sum, &t, &dt);
  long double r = __ad_gradient_ld(modulus, x) + __ad_gradient_ld(argument, x) +
                  __ad_gradient_ld(exponential, x) +
                  __ad_gradient_ld(real_part, x);
  // CHECK-DAG: long-double-unsupported.c:[[@LINE+1]]:{{[0-9]+}}: error: __ad_gradient is declared to return double, which does not match the derivative: it must return long double
  return (int)(r + __ad_gradient(square, x));
}
// BUILTIN: 5 errors generated.
// NOBUILTIN: 6 errors generated.
