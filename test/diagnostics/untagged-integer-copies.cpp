// std::vector<double>::insert on a copy at -O1/-O2: the reallocation
// moves the doubles with a memmove, a memcpy and an untagged i64 load and
// store. Those untagged integer accesses were taken as proof that the
// memory holds integers, so the copies moved no derivatives: din came out
// 0 0 0 0 with no diagnostic (found by probing). In optimised code an
// untagged integer access now says nothing about the data, and the copies
// of memory of unknown type are an error. (-O0 differentiates it.)
// RUN: not %adcxx -O1 -fno-exceptions -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %adcxx -O2 -fno-exceptions -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: %adcxx -O0 -fno-exceptions -c %s -o /dev/null
// CHECK: error: cannot differentiate this memory copy: what it moves (float, double or pointer data) cannot be told from this function or its callers; copy element by element instead
#include <ad.h>
#include <vector>

double f(const std::vector<double> *in, double s) {
  std::vector<double> v(*in);
  v.insert(v.begin() + 1, s * s);
  return v[0] + 10 * v[1] + 100 * v[2] + 1000 * v[3] + 10000 * v[4];
}

double use(const std::vector<double> *in, std::vector<double> *din) {
  return __ad_gradient(f, in, din, 0.7);
}
