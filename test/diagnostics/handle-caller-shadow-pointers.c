// __ad_linearize refuses a function whose derivative would read a shadow
// pointer out of its caller's memory (a pointer inside a struct it is
// given) or store one into memory (a pointer it hands back through an
// argument): a handle is applied to different shadows each time, and its
// forward pass runs before any is known. The error names the function and
// the line; __ad_gradient of the same functions is fine.
// At -O2 the read of v->data is hoisted out of the loop and loses its line:
// the error is at the request then.
// RUN: not %adcc -O0 -g -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefixes=CHECK,O0
// RUN: not %adcc -O2 -g -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefixes=CHECK,O2
#include <ad.h>
#include <math.h>

struct vec {
  double *data;
  int n;
};

double norm2(const struct vec *v) {
  double s = 0;
  for (int i = 0; i < v->n; ++i)
    // O0-DAG: handle-caller-shadow-pointers.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot linearize 'norm2' into a handle: its derivative reads a pointer out of the caller's derivative memory (a pointer inside a struct the function was given)
    s += v->data[i] * v->data[i];
  return sqrt(s);
}

void pick(double *x, double **out, int k) {
  // CHECK-DAG: handle-caller-shadow-pointers.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot linearize 'pick' into a handle: its derivative stores a pointer to the caller's derivative memory into memory
  *out = x + k;
}

ad_linear *lin_norm(const struct vec *v, double *r) {
  // O2-DAG: handle-caller-shadow-pointers.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot linearize 'norm2' into a handle: its derivative reads a pointer out of the caller's derivative memory (a pointer inside a struct the function was given), while a handle is applied to different shadows each time; use __ad_gradient or __ad_derivative for it (in function 'norm2'
  return __ad_linearize(norm2, r, v);
}
ad_linear *lin_pick(double *x, double **out) {
  return __ad_linearize(pick, x, out, 1);
}
void grad_norm(const struct vec *v, struct vec *dv) {
  __ad_gradient_void(norm2, v, dv);
}
