// A C++ pointer to member function is not a function ADPass can name: the
// error says so and how to wrap it (it said "must name a function (not a
// variable or function pointer computed at run time)").
// RUN: not %adcxx -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %adcxx -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <ad.h>

struct Model {
  double w;
  double loss(double x) const { return w * x * x; }
};

double grad(const Model *m, const Model *dm, double x) {
  // CHECK: member-function-pointer.cpp:[[@LINE+1]]:{{[0-9]+}}: error: __ad_gradient: the first argument is not a function but an integer (a pointer to member function, &Class::method, is passed as integers): wrap the method in a free function that takes the object pointer
  return __ad_gradient(&Model::loss, m, dm, x);
}
