// The marker's declared return type must match the derivative: the
// derivative's type for one active argument, a struct with one field per
// active argument (in order) for several.
// RUN: not %adcc -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %adcc -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <ad.h>

typedef struct { double dx, dy; } grad2;
typedef struct { double dx, dy, dz; } grad3;
grad2 __ad_gradient_2(void *fn, ...) AD_MARKER;
grad3 __ad_gradient_3(void *fn, ...) AD_MARKER;

double f(double x, double y) { return x * y; }

// A struct of two floats passed by value is one <2 x float> (the message
// showed that IR type).
typedef struct { float a, b; } pair_f;
float pf(pair_f p) { return p.a * p.b; }

double use(double x, double y) {
  double r = 0;
  // CHECK: return-mismatch.c:[[@LINE+1]]:8: error: __ad_gradient is declared to return double, which does not match the derivative: it must return a struct with one field per active argument, in order: {double, double}
  r += __ad_gradient(f, x, y);
  // CHECK: return-mismatch.c:[[@LINE+1]]:8: error: __ad_gradient_f is declared to return float, which does not match the derivative: it must return double
  r += __ad_gradient_f(f, x, AD_CONST, y);
  // CHECK: return-mismatch.c:[[@LINE+1]]:14: error: __ad_gradient_2 is declared to return a struct {double, double}, which does not match the derivative: it must return double
  grad2 g2 = __ad_gradient_2(f, x, AD_CONST, y);
  // CHECK: return-mismatch.c:[[@LINE+1]]:14: error: __ad_gradient_3 is declared to return a struct {double, double, double}, which does not match the derivative: it must return a struct with one field per active argument, in order: {double, double}
  grad3 g3 = __ad_gradient_3(f, x, y);
  pair_f p = {1, 2};
  // CHECK: return-mismatch.c:[[@LINE+1]]:8: error: __ad_gradient_f is declared to return float, which does not match the derivative: it must return 2 float values in one vector (a struct of 2 float fields, a complex, or a vector type, passed by value)
  r += __ad_gradient_f(pf, p);
  return r + g2.dx + g3.dx;
}

// A struct of three doubles is returned in memory (sret). It has no
// gradient; the message said "the pointer for parameter 1 ... must be a
// pointer" (forward mode of it works: integration/forward.c).
typedef struct { double a, b, c; } triple_t;
triple_t triple(double x) {
  triple_t t = {x, x * x, x * x * x};
  return t;
}
double use_triple(double x) {
  // CHECK: return-mismatch.c:[[@LINE+1]]:10: error: __ad_gradient: 'triple' returns a struct, which has no gradient (reverse mode needs a single float/double result); take the derivative in forward mode (__ad_derivative, declared to return the struct), or return one component, or write the struct through a pointer parameter and seed its shadow
  return __ad_gradient(triple, x);
}
