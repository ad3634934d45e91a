// The shadow of a struct passed by value, passed by value too, is a copy:
// the gradient went there and the caller's shadow stayed zero, with no
// diagnostic. It is an error that shows the form that works
// (integration/struct_by_value.c).
// RUN: not %adcc -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %adcc -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <ad.h>

typedef struct { double x, y, z; } big3;
double product(big3 b) { return b.x * b.y * b.z; }

void use(big3 b, big3 *out) {
  big3 db = {0, 0, 0};
  // CHECK: struct-by-value.c:[[@LINE+1]]:3: error: __ad_gradient: parameter 1 of 'product' is a struct passed by value, and so is its shadow: the gradient would go to a copy of the shadow; pass the addresses of both instead (__ad_gradient(f, &s, &ds))
  __ad_gradient(product, b, db);
  *out = db;
}
