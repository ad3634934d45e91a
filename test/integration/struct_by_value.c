// A struct of three doubles passed by value is passed in memory (a
// pointer to a copy, `byval` in IR). Reverse mode takes the addresses of
// the struct and of its shadow, which receives the gradient; forward mode
// takes the struct and its tangent by value. (Passing the shadow by value
// gave a zero gradient with no diagnostic; it is now an error:
// diagnostics/struct-by-value.c.)
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
#include "ad.h"
#include "adcheck.h"

typedef struct { double x, y, z; } big3;

double product(big3 b) { return b.x * b.y * b.z; }

// Two doubles travel in registers, one parameter each: reverse mode returns
// one partial per field; forward mode takes the fields one by one, each
// followed by its tangent (the struct and its tangent as two arguments are
// an error: diagnostics/struct-by-value.c).
typedef struct { double x, y; } pair2;
double pprod(pair2 p) { return p.x * p.y * p.y; }
typedef struct { double dx, dy; } grad2;
grad2 __ad_gradient_pair(void *, ...) AD_MARKER;

int main(void) {
  big3 b = {1.5, 2, 3}, db = {0, 0, 0};
  __ad_gradient(product, &b, &db);
  ad_check("d/dx", db.x, 6, 1e-15, 0);
  ad_check("d/dy", db.y, 4.5, 1e-15, 0);
  ad_check("d/dz", db.z, 3, 1e-15, 0);
  big3 t = {1, -1, 0.5};
  ad_check("forward", __ad_derivative(product, b, t), 6 - 4.5 + 1.5, 1e-15, 0);

  pair2 p = {0.6, 0.8}, tp = {1, 0.5};
  grad2 g = __ad_gradient_pair(pprod, p);
  ad_check("registers d/dx", g.dx, 0.64, 1e-15, 0);
  ad_check("registers d/dy", g.dy, 0.96, 1e-15, 0);
  ad_check("registers forward", __ad_derivative(pprod, p.x, tp.x, p.y, tp.y),
           0.64 + 0.5 * 0.96, 1e-15, 0);
  return ad_finish();
}
