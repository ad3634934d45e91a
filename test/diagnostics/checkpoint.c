// AD_CHECKPOINT reruns a call in the reverse pass, which gives the first
// run's values only if nothing the call reads has changed and the call
// changes nothing but its own memory. Each case below would give a wrong
// gradient if it were checkpointed; each is an error at the call, naming
// why.
// RUN: not %adcc -O0 -g -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %adcc -O2 -g -c %s -o /dev/null 2>&1 | FileCheck %s
// clang-format off
#include <ad.h>
#include <math.h>

void __ad_gradient_void(void *, ...) AD_MARKER;

// Writes its result through a pointer: run again, it would write it again.
__attribute__((noinline)) void scale_into(double *out, double x) {
  *out = sin(x) * x;
}
AD_CHECKPOINT(scale_into)
double writes_output(double x) {
  double y;
  // CHECK-DAG: checkpoint.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot checkpoint the call of 'scale_into': it writes memory that is not its own (results of a checkpointed function must come back by value)
  scale_into(&y, x);
  return y * y;
}
double g1(double x) { return __ad_gradient(writes_output, x); }

// Reads an array that the caller overwrites after the call.
__attribute__((noinline)) double norm2(const double *u, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += u[i] * u[i];
  return s;
}
AD_CHECKPOINT(norm2)
double overwritten_later(double *u, int n) {
  double s = 0;
  for (int t = 0; t < 3; t++) {
    // CHECK-DAG: checkpoint.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot checkpoint the call of 'norm2': it reads 'u', and the store at line [[@LINE+3]] may overwrite it
    s += norm2(u, n);
    for (int i = 0; i < n; i++)
      u[i] = cos(u[i]);
  }
  return s;
}
void g2(double *u, double *du, int n) { __ad_gradient_void(overwritten_later, u, du, n); }

// Reads a global that code after the call writes.
double gain = 2.0;
__attribute__((noinline)) double amplify(double x) { return gain * sin(x); }
AD_CHECKPOINT(amplify)
double global_written(double x) {
  // CHECK-DAG: checkpoint.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot checkpoint the call of 'amplify': it reads 'gain', and the store at line [[@LINE+2]] may overwrite it
  double y = amplify(x);
  gain = y;
  return y * x;
}
double g3(double x) { return __ad_gradient(global_written, x); }

// Reads a local array of its caller, which the caller rewrites next.
double local_reader(double x) {
  double u[3] = {x, 2 * x, 3 * x};
  double s = 0;
  for (int t = 0; t < 2; t++) {
    // CHECK-DAG: checkpoint.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot checkpoint the call of 'norm2': it reads a local variable, which is not a pointer parameter or a global of the requested function, so it may change before the reverse pass
    s += norm2(u, 3);
    u[t] = s;
  }
  return s;
}
double g5(double x) { return __ad_gradient(local_reader, x); }

// Calls an external function declared inactive: run again, its effects
// (printing, logging) would happen twice.
void log_value(double v);
AD_INACTIVE(log_value)
__attribute__((noinline)) double logged(double x) {
  log_value(x);
  return sin(x) * x;
}
AD_CHECKPOINT(logged)
double calls_external(double x) {
  // CHECK-DAG: checkpoint.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot checkpoint the call of 'logged': it calls 'log_value', whose effects cannot be repeated safely (line [[@LINE-5]])
  return logged(x) * 2;
}
double g4(double x) { return __ad_gradient(calls_external, x); }
// CHECK-NOT: error:
