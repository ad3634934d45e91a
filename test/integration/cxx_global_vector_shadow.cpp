// A global std::vector<double> holds pointers: at -O0 f reads it through
// std::vector::operator[], which returns a pointer loaded from the global.
// Read without a declared shadow it was constant data, silently wrong
// when its storage is the input; now an error at the line. Declared with
// AD_SHADOW(data, ddata), its derivatives land in ddata, in both modes.
// RUN: %adcxx -O0 %s -o %t.O0 %adlibs && %t.O0 | FileCheck %s
// RUN: %adcxx -O2 %s -o %t.O2 %adlibs && %t.O2 | FileCheck %s
// RUN: not %adcxx -O0 -g -DUNDECLARED -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: not %adcxx -O2 -g -DUNDECLARED -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=ERR
// CHECK: {{^}}11 checks passed
#include "ad.h"
#include "adcheck.h"
#include <vector>

std::vector<double> data(2), ddata(2);
#ifndef UNDECLARED
AD_SHADOW(data, ddata)
#endif

// x0 d0 + (3 d1)^2, with d1 scaled in place
double f(double *x) {
  // ERR: cxx_global_vector_shadow.cpp:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate: this reads or writes floating-point data through a pointer kept in the global variable 'data'
  data[1] *= 3;
  return data[0] * x[0] + data[1] * data[1];
}

static double f_at(double x0, double d0, double d1) {
  data[0] = d0;
  data[1] = d1;
  double x[1] = {x0};
  return f(x);
}

int main() {
  const double x0 = 2, d0 = 1.5, d1 = 0.5;
  double x[1] = {x0}, dx[1] = {0};
  data[0] = d0;
  data[1] = d1;
  ddata[0] = ddata[1] = 0;
  __ad_gradient(f, x, dx);
  double xs = x0, d0s = d0, d1s = d1;
  ad_deriv("d/dx", dx[0], d0, AD_FD(xs, f_at(xs, d0, d1)), AD_TOL_D);
  ad_deriv("d/ddata0", ddata[0], x0, AD_FD(d0s, f_at(x0, d0s, d1)), AD_TOL_D);
  ad_deriv("d/ddata1", ddata[1], 18 * d1, AD_FD(d1s, f_at(x0, d0, d1s)),
           AD_TOL_D);
  // forward: tangent 1 for data[1] only
  data[0] = d0;
  data[1] = d1;
  ddata[0] = 0;
  ddata[1] = 1;
  double t[1] = {0};
  ad_check("fwd d/ddata1", __ad_derivative(f, x, t), 18 * d1, AD_TOL_D.rtol,
           AD_TOL_D.atol);
  ad_check("fwd tangent of data[1] scaled in place", ddata[1], 3,
           AD_TOL_D.rtol, AD_TOL_D.atol);
  return ad_finish();
}
