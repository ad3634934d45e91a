// setjmp and longjmp in differentiated code are errors at their line, in
// both modes. A longjmp out of a callee skipped the callee's tape pops;
// the caller's reverse pass popped its records as its own: the gradient of
// f below was 10.63 at -O0 where finite differences and forward mode give
// 6.155, and the tape kept 176 bytes after the request. A longjmp out of
// the whole request left the tape dirty too. Each function's first such
// call is reported.
// RUN: not %adcc -O0 -g -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=LINE
// RUN: not %adcc -O2 -g -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=LINE
// RUN: not %adcc -O2 -g -D_FORTIFY_SOURCE=2 -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=LINE
// RUN: not %adcc -O0 -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOG
// RUN: not %adcc -O2 -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOG
// clang-format off
#include <ad.h>
#include <math.h>
#include <setjmp.h>
#include <ucontext.h>
#include <unistd.h>

static jmp_buf env;
static sigjmp_buf sigenv;

__attribute__((noinline)) static double g(double x, int n) {
  double s = x;
  for (int i = 0; i < n; i++) {
    s = s * sin(s) + x;
    if (i == 2)
      // LINE-DAG: setjmp.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate a call of '{{(__)?longjmp(_chk)?}}' (setjmp, longjmp, vfork and their kin: a non-local jump skips the bookkeeping of the derivative code): not supported; keep setjmp and longjmp outside the differentiated code
      longjmp(env, 1);
  }
  return s;
}

// The jump back from g's loop.
double f(double x, int n) {
  double t = x;
  int i = 0;
  while (t < 10 && i < n) {
    t = t * 1.5 + cos(t);
    i++;
  }
  volatile double r = t;
  // LINE-DAG: setjmp.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate a call of '_setjmp' (setjmp
  if (setjmp(env) == 0)
    r = g(t, n) * t;
  return r * x;
}

// A longjmp out of the request, to a setjmp in its caller: g above.
double leaves(double x, int n) { return g(x * x, n); }

double sig(double x) {
  // LINE-DAG: setjmp.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate a call of '__sigsetjmp' (setjmp
  if (sigsetjmp(sigenv, 1))
    return x;
  return x * x;
}

double siglong(double x) {
  if (x > 100)
    // LINE-DAG: setjmp.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate a call of '{{(__)?siglongjmp(_chk)?|__longjmp_chk}}' (setjmp
    siglongjmp(sigenv, 1);
  return x * x;
}

double forked(double x) {
  // LINE-DAG: setjmp.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate a call of 'vfork' (setjmp
  if (vfork() == 0)
    _exit(0);
  return x * x;
}

static void *builtin_env[5];
double builtin(double x) {
  // LINE-DAG: setjmp.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate a call of '__builtin_setjmp' (setjmp
  if (__builtin_setjmp(builtin_env))
    return x;
  return x * x;
}

double builtin_long(double x) {
  if (x > 100)
    // LINE-DAG: setjmp.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate a call of '__builtin_longjmp' (setjmp
    __builtin_longjmp(builtin_env, 1);
  return x * x;
}

static ucontext_t other;
double switches(double x) {
  if (x > 100)
    // LINE-DAG: setjmp.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate a call of 'setcontext' (setjmp
    setcontext(&other);
  return x * x;
}

double use(double x) {
  double r = 0;
  // NOG-DAG: setjmp.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate a call of '_setjmp' {{.*}}: not supported; keep setjmp and longjmp outside the differentiated code (in function 'f'; compile with -g to see its line)
  r += __ad_gradient(f, x, 5);
  // NOG-DAG: setjmp.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate a call of '_setjmp' {{.*}}: not supported; keep setjmp and longjmp outside the differentiated code (in function 'f'; compile with -g to see its line)
  r += __ad_derivative(f, x, 1.0, 5);
  if (setjmp(env) == 0) {
    // NOG-DAG: setjmp.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate a call of '{{(__)?longjmp(_chk)?}}' {{.*}}: not supported; keep setjmp and longjmp outside the differentiated code (in function 'g'; compile with -g to see its line)
    r += __ad_gradient(leaves, x, 5);
    // NOG-DAG: setjmp.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate a call of '{{(__)?longjmp(_chk)?}}' {{.*}}: not supported; keep setjmp and longjmp outside the differentiated code (in function 'g'; compile with -g to see its line)
    r += __ad_derivative(leaves, x, 1.0, 5);
  }
  // NOG-DAG: setjmp.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate a call of '__sigsetjmp' {{.*}}: not supported; keep setjmp and longjmp outside the differentiated code (in function 'sig'
  r += __ad_gradient(sig, x);
  // NOG-DAG: setjmp.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate a call of '{{.*}}' {{.*}}: not supported; keep setjmp and longjmp outside the differentiated code (in function 'siglong'
  r += __ad_derivative(siglong, x, 1.0);
  // NOG-DAG: setjmp.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate a call of 'vfork' {{.*}}: not supported; keep setjmp and longjmp outside the differentiated code (in function 'forked'
  r += __ad_gradient(forked, x);
  // NOG-DAG: setjmp.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate a call of '__builtin_setjmp' {{.*}}: not supported; keep setjmp and longjmp outside the differentiated code (in function 'builtin'
  r += __ad_gradient(builtin, x);
  // NOG-DAG: setjmp.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate a call of '__builtin_longjmp' {{.*}}: not supported; keep setjmp and longjmp outside the differentiated code (in function 'builtin_long'
  r += __ad_derivative(builtin_long, x, 1.0);
  // NOG-DAG: setjmp.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate a call of 'setcontext' {{.*}} (in function 'switches'
  r += __ad_gradient(switches, x);
  return r;
}
// clang-format on
