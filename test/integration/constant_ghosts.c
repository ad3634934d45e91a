// A stencil whose neighbours at the ends are constant ghost values: a
// pointer chosen between the array and a static const global. The ghost
// has no derivative; its shadow is a zeroed twin, which reverse mode adds
// (unread) cotangents to and each request zeroes again, so a derivative
// taken after a gradient still reads zeros there. This was an error ("this
// pointer may point to memory that carries derivatives or to memory that
// does not").
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
#include "ad.h"
#include "adcheck.h"
#include <math.h>

static const double kZero = 0.0;
static const double kBoundary[2] = {1.0, -0.5};

double energy(const double *u, int n) {
  double e = 0;
  for (int i = 0; i < n; i++) {
    const double *l = i > 0 ? &u[i - 1] : &kBoundary[0];
    const double *r = i < n - 1 ? &u[i + 1] : &kBoundary[1];
    double d = *l - 2 * u[i] + *r;
    e += d * d + 0.1 * sin(u[i]);
  }
  return e;
}

double energy_zero(const double *u, int n) {
  double e = 0;
  for (int i = 0; i < n; i++) {
    const double *l = i > 0 ? &u[i - 1] : &kZero;
    const double *r = i < n - 1 ? &u[i + 1] : &kZero;
    double d = *l - 2 * u[i] + *r;
    e += d * d * (i + 1);
  }
  return e;
}

#ifdef __OPTIMIZE__
// A struct of pointers returned by value, one into active memory and one
// to constant data: from -O1 the callee sees the constant itself (at -O0
// its parameter, which has no shadow: an error, unsupported-constructs.c).
typedef struct {
  double *a;
  const double *c;
} pair_ac;
static const double coeffs[2] = {2.0, 3.0};
__attribute__((noinline)) static pair_ac make_pair_ac(double *a,
                                                     const double *c) {
  pair_ac p = {a, c};
  return p;
}
double pointer_to_constants(double *x) {
  pair_ac p = make_pair_ac(x, coeffs);
  return p.a[0] * p.c[0] + p.a[1] * p.c[1];
}
#endif

enum { N = 6 };

int main(void) {
  double u[N] = {0.3, 0.8, -0.2, 0.5, 1.1, 0.4};
  double (*fns[2])(const double *, int) = {energy, energy_zero};
  const char *names[2] = {"energy", "energy_zero"};
  for (int k = 0; k < 2; k++) {
    double du[N] = {0};
    if (k == 0)
      __ad_gradient(energy, u, du, N);
    else
      __ad_gradient(energy_zero, u, du, N);
    double want_fwd = 0;
    for (int i = 0; i < N; i++) {
      double fd = AD_FD(u[i], fns[k](u, N));
      ad_check(ad_fmt("%s d/du%d", names[k], i), du[i], fd, 1e-6, 1e-8);
      want_fwd += du[i] * (i % 2 ? -1.0 : 1.0);
    }
    double t[N];
    for (int i = 0; i < N; i++)
      t[i] = i % 2 ? -1.0 : 1.0;
    double got = k == 0 ? __ad_derivative(energy, u, t, N)
                        : __ad_derivative(energy_zero, u, t, N);
    ad_check(ad_fmt("%s forward", names[k]), got, want_fwd, 1e-12, 1e-12);
  }
#ifdef __OPTIMIZE__
  double x[2] = {0.5, -1.5}, dx[2] = {0, 0};
  __ad_gradient(pointer_to_constants, x, dx);
  ad_check("pointer_to_constants d/dx0", dx[0], 2.0, 0, 0);
  ad_check("pointer_to_constants d/dx1", dx[1], 3.0, 0, 0);
#endif
  return ad_finish();
}
