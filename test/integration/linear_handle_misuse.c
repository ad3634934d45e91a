// A handle used after ad_linear_free, freed twice, or given to __ad_jvp /
// __ad_vjp of another function or another activity pattern stops the
// program with a message naming the marker and both functions, before any
// derivative code runs. NULL is ignored by ad_linear_free.
//
// clang-format off (RUN and CHECK lines stay one line each)
// RUN: %adcc -O0 %s -o %t.O0 %adlibs
// RUN: %adcc -O2 %s -o %t.O2 %adlibs
// RUN: %t.O0 ok | FileCheck %s --check-prefix=OK
// RUN: %t.O2 ok | FileCheck %s --check-prefix=OK
// RUN: not --crash %t.O0 stale 2>&1 | FileCheck %s --check-prefix=STALE
// RUN: not --crash %t.O2 stale 2>&1 | FileCheck %s --check-prefix=STALE
// RUN: not --crash %t.O0 stale-vjp 2>&1 | FileCheck %s --check-prefix=SV
// RUN: not --crash %t.O2 double-free 2>&1 | FileCheck %s --check-prefix=DF
// RUN: not --crash %t.O2 stale-after-new 2>&1 | FileCheck %s --check-prefix=STALE
// RUN: not --crash %t.O0 other-function 2>&1 | FileCheck %s --check-prefix=FN
// RUN: not --crash %t.O2 other-function 2>&1 | FileCheck %s --check-prefix=FN
// RUN: not --crash %t.O0 other-activity 2>&1 | FileCheck %s --check-prefix=ACT
// RUN: not --crash %t.O2 other-activity 2>&1 | FileCheck %s --check-prefix=ACT

#include <ad.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

double f(double a, double b) { return sin(a) * b; }
double g(double a, double b) { return a * exp(b); }
typedef struct {
  double da, db;
} grad2;
grad2 __ad_vjp_2(void *fn, ad_linear *L, ...) AD_MARKER;

int main(int argc, char **argv) {
  const char *what = argc > 1 ? argv[1] : "ok";
  double y;
  ad_linear *L = __ad_linearize(f, &y, 0.5, 2.0);
  ad_linear_free(NULL);
  if (!strcmp(what, "ok")) {
    // OK: jvp 1.75517 vjp 1.75517 0.479426
    grad2 r = __ad_vjp_2(f, L, 1.0, 0.0, 0.0);
    printf("jvp %g vjp %g %g\n", __ad_jvp(f, L, 0.0, 1.0, 0.0, 0.0), r.da,
           r.db);
    ad_linear_free(L);
    return 0;
  }
  if (!strcmp(what, "stale")) {
    ad_linear_free(L);
    // STALE: ADPass runtime: __ad_jvp of 'f' (active, active): the handle is not one __ad_linearize made, or it was freed with ad_linear_free
    // STALE-NOT: jvp
    printf("jvp %g\n", __ad_jvp(f, L, 0.5, 1.0, 2.0, 0.0));
  }
  if (!strcmp(what, "stale-after-new")) {
    // A handle of the same function made right after the free must not
    // make the stale one valid again (it might reuse its address).
    ad_linear_free(L);
    ad_linear *M = __ad_linearize(f, &y, 0.5, 2.0);
    printf("jvp %g\n", __ad_jvp(f, L, 0.5, 1.0, 2.0, 0.0));
    ad_linear_free(M);
  }
  if (!strcmp(what, "stale-vjp")) {
    ad_linear_free(L);
    // SV: ADPass runtime: __ad_vjp of 'f' (active, constant): the handle is not one __ad_linearize made, or it was freed with ad_linear_free
    printf("vjp %g\n", __ad_vjp(f, L, 1.0, 0.5, AD_CONST, 2.0));
  }
  if (!strcmp(what, "double-free")) {
    ad_linear_free(L);
    // DF: ADPass runtime: ad_linear_free: the handle is not one __ad_linearize made, or it was freed already
    ad_linear_free(L);
  }
  if (!strcmp(what, "other-function")) {
    // FN: ADPass runtime: __ad_jvp of 'g' (active, active): the handle was made by __ad_linearize of 'f' (active, active)
    printf("jvp %g\n", __ad_jvp(g, L, 0.5, 1.0, 2.0, 0.0));
  }
  if (!strcmp(what, "other-activity")) {
    // ACT: ADPass runtime: __ad_vjp of 'f' (active, constant): the handle was made by __ad_linearize of 'f' (active, active)
    printf("vjp %g\n", __ad_vjp(f, L, 1.0, 0.5, AD_CONST, 2.0));
  }
  return 0;
}
