// Without the plugin, a marker survives to code generation and clang says
// what is missing, at the marker (ad.h declares the markers with
// __attribute__((error))).
// RUN: not %clang -O2 -I%inc -c %s -o /dev/null 2>&1 | FileCheck %s
#include <ad.h>

double f(double x) { return x * x; }

double use(double x) {
  // CHECK: plugin-not-loaded.c:[[@LINE+1]]:10: error: call to '__ad_gradient' declared with 'error' attribute: ADPass marker: compile with -fpass-plugin=<build>/pass/libADPass.so
  return __ad_gradient(f, x);
}
