// A custom JVP must be linear in its tangent arguments: ADPass derives the
// reverse rule by transposing it. Each rule below breaks linearity in a
// different way; the error names the rule, the function and the line.
// RUN: not %adcc -O0 -g -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %adcc -O2 -g -c %s -o /dev/null 2>&1 | FileCheck %s
#include <ad.h>
#include <math.h>

double f1(double x);
double f1_jvp(double x, double dx) {
  // CHECK-DAG: custom-jvp-not-linear.c:[[@LINE+1]]:{{[0-9]+}}: error: the custom JVP 'f1_jvp' of 'f1' is not linear in its tangent arguments: it multiplies two tangents
  return cos(x) * dx * dx;
}
AD_CUSTOM_JVP(f1, f1_jvp)

double f2(double x);
double f2_jvp(double x, double dx) {
  // CHECK-DAG: custom-jvp-not-linear.c:[[@LINE+1]]:{{[0-9]+}}: error: the custom JVP 'f2_jvp' of 'f2' is not linear in its tangent arguments: it uses a tangent non-linearly (in a comparison or branch, or as the argument of a function)
  if (dx > 0)
    return dx;
  return -dx;
}
AD_CUSTOM_JVP(f2, f2_jvp)

double f3(double x);
double f3_jvp(double x, double dx) {
  // CHECK-DAG: custom-jvp-not-linear.c:[[@LINE+1]]:{{[0-9]+}}: error: the custom JVP 'f3_jvp' of 'f3' is not linear in its tangent arguments: it uses a tangent non-linearly (in a comparison or branch, or as the argument of a function)
  return sin(dx) * x;
}
AD_CUSTOM_JVP(f3, f3_jvp)

double f4(double x);
double f4_jvp(double x, double dx) {
  // CHECK-DAG: custom-jvp-not-linear.c:[[@LINE+1]]:{{[0-9]+}}: error: the custom JVP 'f4_jvp' of 'f4' is not linear in its tangent arguments: it adds a constant to a tangent (affine, not linear)
  return x * dx + 1.0;
}
AD_CUSTOM_JVP(f4, f4_jvp)

double f5(double x, double y);
double f5_jvp(double x, double dx) { return dx; } // wrong signature
AD_CUSTOM_JVP(f5, f5_jvp)

// Through a pointer parameter's tangent pointer, f_jvp may only read.
double f6(const double *a);
void consume(const double *p);
double f6_jvp(const double *a, const double *da) {
  // CHECK-DAG: custom-jvp-not-linear.c:[[@LINE+1]]:{{[0-9]+}}: error: the custom JVP 'f6_jvp' of 'f6' is not linear in its tangent arguments: it uses a tangent pointer other than to read tangents through it (a store through it, a comparison, passing it to a function)
  consume(da);
  return a[0] * da[0];
}
AD_CUSTOM_JVP(f6, f6_jvp)

double f7(const double *a);
double f7_jvp(const double *a, const double *da) {
  // CHECK-DAG: custom-jvp-not-linear.c:[[@LINE+1]]:{{[0-9]+}}: error: the custom JVP 'f7_jvp' of 'f7' is not linear in its tangent arguments: it multiplies two tangents
  return a[0] * da[0] * da[1];
}
AD_CUSTOM_JVP(f7, f7_jvp)

// A choice between the tangents of an array passed with derivatives and
// those of a constant table (which have none: no memory to read them from).
double f8(const double *a, const double *b, int k);
double f8_jvp(const double *a, const double *b, int k, const double *da,
              const double *db) {
  const double *t = k ? da : db;
  // CHECK-DAG: custom-jvp-not-linear.c:[[@LINE+1]]:{{[0-9]+}}: error: the custom JVP 'f8_jvp' of 'f8' reads tangents through a choice between a pointer passed without derivatives (AD_CONST) and one passed with them: not supported
  return t[0];
}
AD_CUSTOM_JVP(f8, f8_jvp)
static const double Table[2] = {1, 2};
double g8(const double *a, int k) { return f8(a, Table, k); }

double use(double x) {
  return __ad_gradient(f1, x) + __ad_gradient(f2, x) + __ad_gradient(f3, x) +
         __ad_gradient(f4, x) +
  // CHECK-DAG: custom-jvp-not-linear.c:[[@LINE+1]]:10: error: AD_CUSTOM_JVP(f5, f5_jvp): the JVP must take the function's parameters, then one tangent per float/double or pointer parameter (same types, same order; a pointer's points to the tangents of what it points to), and return the tangent of its float/double result
         __ad_gradient(f5, x, AD_CONST, x);
}

double use_pointers(double *a, double *da) {
  __ad_gradient_void(f6, a, da);
  __ad_gradient_void(f7, a, da);
  __ad_gradient_void(g8, a, da, 1);
  return 0;
}
