// Constructs outside what ADPass differentiates today are clear errors at
// their line (with -g), never a crash or a wrong derivative. (Globals the
// code writes are differentiated through: integration/globals.c; these are
// the ones that cannot get a shadow.) (Errors come
// out in the order of the requests, hence CHECK-DAG.)
// RUN: not %adcc -O0 -g -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefixes=CHECK,O0
// RUN: not %adcc -O2 -g -c %s -o /dev/null 2>&1 | FileCheck %s
#include <ad.h>

double (*volatile fp)(double);
double indirect(double x) {
  // CHECK-DAG: unsupported-constructs.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate a call through a function pointer: no function with this signature whose body is visible has its address taken in this translation unit
  return fp(x);
}

double scale = 2.0;   // mutable global: reading it is fine (inactive)
extern double sink[]; // written, but its size is unknown here: no shadow
double writes_unsized_global(double x) {
  // CHECK-DAG: unsupported-constructs.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate: an active value is stored into memory without a shadow (an AD_CONST pointer, or a global variable that holds pointers or whose size this file does not know): not supported
  sink[0] = x * scale;
  return x;
}

double *saved; // a global that holds pointers gets no shadow
double keeps_pointer(double *p) {
  // CHECK-DAG: unsupported-constructs.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate: a pointer to memory that carries derivatives is stored into memory without a shadow (an AD_CONST pointer, or a global variable)
  saved = p;
  return p[0] * 2;
}

void writes_const(const double *x, double *out) {
  // CHECK-DAG: unsupported-constructs.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate: an active value is stored into memory without a shadow (an AD_CONST pointer
  out[0] = x[0] * x[0];
}

double vla(double x, int n) {
  // CHECK-DAG: unsupported-constructs.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate through a variable-length array (a dynamic alloca): not supported yet
  double t[n];
  for (int i = 0; i < n; ++i)
    t[i] = x * i;
  return t[n - 1];
}

double extended(double x) {
  // CHECK-DAG: unsupported-constructs.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate long double (or __float128) arithmetic: not supported; compute in double
  long double y = x;
  return (double)(y * y);
}

double bit_abs(double x) {
  unsigned long long u;
  __builtin_memcpy(&u, &x, sizeof u);
  u &= ~(1ULL << 63);
  // At -O2 InstCombine makes this fabs(x), which is differentiated.
  // O0-DAG: unsupported-constructs.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate floating-point bit manipulation (an active value reinterpreted as an integer, changed, and turned back): use fabs, copysign or a sign test instead
  __builtin_memcpy(&x, &u, sizeof u);
  return x;
}

typedef struct {
  double value;
  int steps;
} result;
__attribute__((noinline)) static result solve(double x) {
  result r = {x * x, (int)(x * 2)};
  return r;
}
double mixed_struct(double x) {
  // CHECK-DAG: unsupported-constructs.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate a struct value that mixes floating-point and other fields (such as a struct {double value; int steps;} returned by value): not supported yet; return the floating-point part separately or through a pointer
  result r = solve(x);
  return r.value * r.steps;
}

_Atomic double total; // atomics on floating-point data (on integers: fine)
double atomic_add(double x) {
  // CHECK-DAG: unsupported-constructs.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate atomic operations on floating-point data
  total += x * x;
  return x;
}

double use(double x, double *p, double *dp, double *out, double **rows,
           double **drows) {
  double r = __ad_gradient(indirect, x) +
             __ad_gradient(writes_unsized_global, x) +
             __ad_gradient(vla, x, 4) + __ad_gradient(keeps_pointer, p, dp) +
             __ad_gradient(extended, x) + __ad_gradient(bit_abs, x) +
             __ad_gradient(mixed_struct, x) + __ad_gradient(atomic_add, x);
  __ad_gradient_void(writes_const, p, dp, AD_CONST, out);
  return r;
}
