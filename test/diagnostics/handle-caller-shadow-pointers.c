// clang-format off (CHECK lines stay one line each)
// __ad_linearize refuses a function whose derivative would store a shadow
// pointer into memory (here one it hands back through an argument): a
// handle is applied to different shadows each time, and its forward pass
// runs before any is known. The error names the function and the line;
// __ad_gradient of the same function is fine.
// RUN: not %adcc -O0 -g -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %adcc -O2 -g -c %s -o /dev/null 2>&1 | FileCheck %s
#include <ad.h>

void pick(double *x, double **out, int k) {
  // CHECK: handle-caller-shadow-pointers.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot linearize 'pick' into a handle: its derivative stores a pointer to the caller's derivative memory into memory (a pointer the function keeps in a struct, or a heap block it leaves to its caller, as a growing std::vector& argument does), while a handle is applied to different shadows each time; use __ad_gradient or __ad_derivative for it
  *out = x + k;
}

ad_linear *lin_pick(double *x, double **out) {
  return __ad_linearize(pick, x, out, 1);
}
void grad_pick(double *x, double *dx, double **out, double **dout) {
  __ad_gradient_void(pick, x, dx, out, dout, 1);
}
