// A struct copied whole by a helper that reads only an integer field of
// it: {int key; double val;} put into place when its key is positive. The
// helper's accesses showed an int where the copy starts and nothing else,
// and the copy was taken as moving no floating-point data: a zero
// derivative, silently, at every level. Accesses now have to cover the
// copied bytes to say that; here the callers' locals type the copy
// (ShadowMemory.cpp, collectAccessTypes). std::map::insert has the same
// shape from -O1 (_M_insert_unique reads the key of the pair it copies).
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
#include "ad.h"
#include "adcheck.h"
#include <string.h>

struct KV {
  int key;
  double val;
};

__attribute__((noinline)) static void put(struct KV *dst,
                                          const struct KV *src) {
  if (src->key > 0)
    memcpy(dst, src, sizeof *src);
}

// b = {key, x^2} when key > 0; 3 b.val + b.key.
static double f(double x, int key) {
  struct KV a = {key, x * x}, b = {0, 0};
  put(&b, &a);
  return 3 * b.val + b.key;
}

int main(void) {
  for (int key = -1; key <= 1; key += 2) {
    double x = 1.5;
    double d = __ad_gradient(f, x, key);
    ad_deriv(ad_fmt("d/dx key=%d", key), d, key > 0 ? 6 * x : 0,
             AD_FD(x, f(x, key)), AD_TOL_D);
  }
  return ad_finish();
}
