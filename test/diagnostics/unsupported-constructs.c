// Constructs outside what ADPass differentiates today are clear errors at
// their line (with -g), never a crash or a wrong derivative. (Errors come
// out in the order of the requests, hence CHECK-DAG.)
// RUN: not %adcc -O0 -g -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECK
// RUN: not %adcc -O2 -g -c %s -o /dev/null 2>&1 | FileCheck %s
#include <ad.h>

double (*volatile fp)(double);
double indirect(double x) {
  // CHECK-DAG: unsupported-constructs.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate a call through a function pointer: no function with this signature whose body is visible has its address taken in this translation unit
  return fp(x);
}

double scale = 2.0; // mutable global: reading it is fine (inactive)
double last;         // but storing an active value into one is not
double writes_global(double x) {
  // CHECK-DAG: unsupported-constructs.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate: an active value is stored into memory without a shadow (a global variable, or an AD_CONST pointer); global state that carries derivatives is not supported yet
  last = x * scale;
  return last;
}

void writes_const(const double *x, double *out) {
  // CHECK-DAG: unsupported-constructs.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate: an active value is stored into memory without a shadow (a global variable, or an AD_CONST pointer)
  out[0] = x[0] * x[0];
}

double vla(double x, int n) {
  // CHECK-DAG: unsupported-constructs.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate through a variable-length array (a dynamic alloca): not supported yet
  double t[n];
  for (int i = 0; i < n; ++i)
    t[i] = x * i;
  return t[n - 1];
}

double use(double x, double *p, double *dp, double *out, double **rows,
           double **drows) {
  double r = __ad_gradient(indirect, x) +
             __ad_gradient(writes_global, x) + __ad_gradient(vla, x, 4);
  __ad_gradient_void(writes_const, p, dp, AD_CONST, out);
  return r;
}
