// A local std::vector<double> at -Os and -Oz, where its constructor stays
// out of line: the data pointer is loaded from the local the constructor
// filled, and the local got no shadow ("an active value is stored into
// memory without a shadow (an AD_CONST pointer, or a global ...)", -Os
// and -Oz only; found by probing). sum (x i)^2 over i < 4 = 14 x^2.
// RUN: %adcxx -Os %s -o %t.Os %adlibs && %t.Os
// RUN: %adcxx -Oz %s -o %t.Oz %adlibs && %t.Oz
// RUN: %adcxx -O0 %s -o %t.O0 %adlibs && %t.O0
#include "ad.h"
#include "adcheck.h"
#include <vector>

double squares(double x, int n) {
  std::vector<double> t(n);
  for (int i = 0; i < n; i++)
    t[i] = x * i;
  double s = 0;
  for (double v : t)
    s += v * v;
  return s;
}

int main() {
  ad_check("squares", __ad_gradient((void *)squares, 0.7, 4), 28 * 0.7,
           1e-12, 0);
  return ad_finish();
}
