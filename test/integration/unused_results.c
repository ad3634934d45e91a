// A marker's value may be ignored (docs/api.md): the forward derivative of
// a void function, declared with ad.h's double-returning marker and called
// as a statement, writes its output tangents through the shadows; the
// gradient of a void function likewise, and __ad_jvp / __ad_vjp of a
// handle. Using the missing value is still a compile error.
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: not %adcc -O2 -DUSE_VALUE -c %s -o /dev/null 2>&1 | FileCheck %s

#include "ad.h"
#include "adcheck.h"

// y0 = x0^2, y1 = x0 sin(x1)
void outputs(const double *x, double *y) {
  y[0] = x[0] * x[0];
  y[1] = x[0] * sin(x[1]);
}

int main(void) {
  double x[2] = {0.8, 0.3}, tx[2] = {1, -2}, y[2], ty[2] = {0, 0};
  __ad_derivative(outputs, x, tx, y, ty);
  ad_check("forward y0", ty[0], 2 * x[0] * tx[0], 1e-12, 1e-14);
  ad_check("forward y1", ty[1], sin(x[1]) * tx[0] + x[0] * cos(x[1]) * tx[1],
           1e-12, 1e-14);

  // Reverse: seed y1, read the gradient from the input shadow.
  double dx[2] = {0, 0}, dy[2] = {0, 1};
  __ad_gradient(outputs, x, dx, y, dy);
  ad_check("reverse d y1/dx0", dx[0], sin(x[1]), 1e-12, 1e-14);
  ad_check("reverse d y1/dx1", dx[1], x[0] * cos(x[1]), 1e-12, 1e-14);

  // The handle markers likewise: jvp and vjp called as statements.
  ad_linear *L = __ad_linearize(outputs, x, y);
  double ty2[2] = {0, 0};
  __ad_jvp(outputs, L, x, tx, y, ty2);
  ad_check("handle jvp y1", ty2[1], ty[1], 1e-12, 1e-14);
  double dx2[2] = {0, 0}, dy2[2] = {0, 1};
  __ad_vjp(outputs, L, x, dx2, y, dy2);
  ad_check("handle vjp d y1/dx1", dx2[1], dx[1], 1e-12, 1e-14);
  ad_linear_free(L);
#ifdef USE_VALUE
  // CHECK: unused_results.c:[[@LINE+1]]:{{[0-9]+}}: error: __ad_derivative: 'outputs' returns no float/double value, so there is no tangent to return (declare a void variant)
  double t = __ad_derivative(outputs, x, tx, y, ty);
  ad_check("used", t, 0, 0, 0);
#endif
  return ad_finish();
}
