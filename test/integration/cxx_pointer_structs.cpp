// Structs made only of pointers, returned by value (an iterator pair, an
// expression object holding references to its operands, as Eigen builds
// them; x86-64 returns them as {ptr, ptr}), and objects that keep a pointer
// they were given to memory without derivatives (null, an empty functor).
// Their shadow is a struct of the same pointers into shadow memory
// (Activity.h: isPointerLike); a pointer without tangents stored into a
// shadowed object gets a null shadow (Linearize.cpp: storesParameter).
//   sumsq(v)   = sum_{i<4} v_i^2                -> 2 v_i     (span by value)
//   picked2(v) = v0 v1, picked1(v) = v0         (second pointer null or not)
//   ftri(w)    = w0 w1 w2, fnest(w) = w1 (w2 + w0) (array of pointers, nested)
//   prodsum(v) = v0 v1 + (v2 + v3)              -> v1, v0, 1, 1
//                                                 (expression objects)
//   kernel(x)  = 2 x * 3 + x^2 [twice, no next] -> 6 + 2x    (functor kept by
//                                                 reference, null member)
// RUN: %adcxx -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcxx -O2 %s -o %t.O2 %adlibs && %t.O2
#include "ad.h"
#include "adcheck.h"

#define NOINLINE __attribute__((noinline))

struct Span {
  double *b, *e;
};
NOINLINE static Span span(double *v, int n) { return {v, v + n}; }

double sumsq(double *v) {
  Span s = span(v, 4);
  double r = 0;
  for (double *p = s.b; p != s.e; ++p)
    r += *p * *p;
  return r;
}

// A pair whose second pointer is null or not, chosen at run time.
struct Two {
  double *a, *b;
};
NOINLINE static Two pick(double *x, int n) {
  return {x, n > 1 ? x + 1 : nullptr};
}
double picked2(double *x) {
  Two t = pick(x, 2);
  return t.a[0] * (t.b ? t.b[0] : 1.0);
}
double picked1(double *x) {
  Two t = pick(x, 1);
  return t.a[0] * (t.b ? t.b[0] : 1.0);
}

// An array of pointers (returned through memory: sret) and nested structs
// of pointers; the latter also writes through one.
struct Tri {
  double *p[3];
};
struct Nest {
  double *a;
  struct {
    double *b, *c;
  } in;
};
NOINLINE static Tri tri(double *x) { return {{x, x + 1, x + 2}}; }
NOINLINE static Nest nest(double *x) {
  Nest n;
  n.a = x;
  n.in.b = x + 1;
  n.in.c = x + 2;
  return n;
}
double ftri(double *x) {
  Tri t = tri(x);
  return *t.p[0] * *t.p[1] * *t.p[2];
}
double fnest(double *x) {
  Nest n = nest(x);
  *n.in.c += *n.a;
  return *n.in.b * *n.in.c;
}
// Forward mode through them: d/dx of ftri at (x, 2x, 3) is 12 x.
double ftri_of(double x) {
  double v[3] = {x, 2 * x, 3};
  return ftri(v);
}

// Expression objects: a product and a sum that refer to their operands.
struct Mul {
  const double *a, *b;
};
struct Add {
  const double *a, *b;
};
NOINLINE static Mul mul(const double &a, const double &b) { return {&a, &b}; }
NOINLINE static Add add(const double &a, const double &b) { return {&a, &b}; }
NOINLINE static double eval(Mul m) { return *m.a * *m.b; }
NOINLINE static double eval(Add s) { return *s.a + *s.b; }

double prodsum(double *v) {
  Mul m = mul(v[0], v[1]);
  Add s = add(v[2], v[3]);
  Mul copy = m; // copied whole
  return eval(copy) + eval(s);
}

// A kernel keeps references to its functor (an empty object) and a link
// that is null here, as Eigen's assignment kernel and list nodes do.
struct Twice {
  double operator()(double t) const { return 2 * t; }
};
struct Kernel {
  const Twice *op;
  const Kernel *next;
  double *value;
  NOINLINE Kernel(const Twice &f, const Kernel *n, double *v)
      : op(&f), next(n), value(v) {}
  NOINLINE double run() const {
    double r = (*op)(*value) * 3;
    return next ? r + next->run() : r;
  }
};

double kernel(double x) {
  Twice f;
  double y = x;
  Kernel k(f, nullptr, &y);
  return k.run() + x * x;
}

int main() {
  double v[4] = {0.3, -1.2, 0.7, 2.5}, dv[4] = {0, 0, 0, 0};
  __ad_gradient(sumsq, v, dv);
  for (int i = 0; i < 4; i++)
    ad_check(ad_fmt("sumsq d/dv%d", i), dv[i], 2 * v[i], 1e-12, 1e-14);
  double dp[4] = {0, 0, 0, 0};
  __ad_gradient(prodsum, v, dp);
  const double want[4] = {v[1], v[0], 1, 1};
  for (int i = 0; i < 4; i++)
    ad_check(ad_fmt("prodsum d/dv%d", i), dp[i], want[i], 1e-12, 1e-14);
  double d2[2] = {0, 0}, d1[2] = {0, 0};
  __ad_gradient(picked2, v, d2);
  __ad_gradient(picked1, v, d1);
  ad_check("picked2 d/dv0", d2[0], v[1], 1e-12, 1e-14);
  ad_check("picked2 d/dv1", d2[1], v[0], 1e-12, 1e-14);
  ad_check("picked1 d/dv0", d1[0], 1.0, 1e-12, 1e-14);
  ad_check("picked1 d/dv1", d1[1], 0.0, 1e-12, 1e-14);
  double w[3] = {0.5, 1.5, 2.0}, dt[3] = {0, 0, 0}, dn[3] = {0, 0, 0};
  __ad_gradient(ftri, w, dt);
  const double wt[3] = {w[1] * w[2], w[0] * w[2], w[0] * w[1]};
  for (int i = 0; i < 3; i++)
    ad_check(ad_fmt("ftri d/dw%d", i), dt[i], wt[i], 1e-12, 1e-14);
  const double wn[3] = {w[1], w[2] + w[0], w[1]}; // w1 (w2 + w0)
  __ad_gradient(fnest, w, dn);                    // (which adds w0 to w2)
  for (int i = 0; i < 3; i++)
    ad_check(ad_fmt("fnest d/dw%d", i), dn[i], wn[i], 1e-12, 1e-14);
  volatile double vx = 0.8;
  double x = vx;
  AD_CHECK1(kernel, 6 + 2 * t);
  ad_deriv("kernel fwd", __ad_derivative(kernel, x, 1.0), 6 + 2 * x,
           AD_FD(x, kernel(x)), AD_TOL_D);
  ad_deriv("ftri fwd", __ad_derivative(ftri_of, x, 1.0), 12 * x,
           AD_FD(x, ftri_of(x)), AD_TOL_D);
  return ad_finish();
}
