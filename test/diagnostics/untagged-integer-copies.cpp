// std::vector<double>::insert on a copy at -O1/-O2: the reallocation
// moves the doubles with a memmove, a memcpy and an untagged i64 load and
// store. Those untagged integer accesses were taken as proof that the
// memory holds integers, so the copies moved no derivatives: din came out
// 0 0 0 0 with no diagnostic (found by probing). In optimised code an
// untagged integer access says nothing about the data. With LLVM 19 the
// vector's fields are SSA values after optimisation and nothing else types
// the copies: they are an error. With LLVM 22 the fields stay in memory,
// and the struct-path TBAA tags of their accesses type the new storage:
// the gradient is computed. Either way, never a wrong one: each run either
// prints the right gradient or fails to compile with this error.
// RUN: %adcxx -O1 %s -o %t.O1 %adlibs 2> %t.O1.err && %t.O1 || FileCheck %s < %t.O1.err
// RUN: %adcxx -O2 %s -o %t.O2 %adlibs 2> %t.O2.err && %t.O2 || FileCheck %s < %t.O2.err
// RUN: %adcxx -O0 %s -o %t.O0 %adlibs && %t.O0
// CHECK: error: cannot differentiate this memory copy: what it moves (float, double or pointer data) cannot be told from this function or its callers; copy element by element instead
#include "ad.h"
#include "adcheck.h"
#include <vector>

double f(const std::vector<double> *in, double s) {
  std::vector<double> v(*in);
  v.insert(v.begin() + 1, s * s);
  return v[0] + 10 * v[1] + 100 * v[2] + 1000 * v[3] + 10000 * v[4];
}

int main() {
  std::vector<double> in = {1, 2, 3, 4}, din(4, 0.0);
  double s = 0.7;
  ad_check("d/ds", __ad_gradient(f, &in, &din, s), 20 * s, 1e-12, 0);
  const double want[4] = {1, 100, 1000, 10000};
  for (int i = 0; i < 4; i++)
    ad_check(ad_fmt("d/din%d", i), din[i], want[i], 1e-12, 0);
  return ad_finish();
}
