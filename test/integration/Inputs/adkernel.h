/*===- adkernel.h - checks of an array function's derivatives -------------===*
 *
 *   ad_check_kernel(name, n, x0, f, grad, deriv)
 *
 * f(x, n) is a scalar function of an array; grad(x, dx, n) adds its
 * gradient at x into dx (a request); deriv(x, v, n) returns its forward
 * derivative along v (a request). Checks, at x0:
 *  - every component of the gradient against central differences;
 *  - the forward derivative along a fixed direction against a directional
 *    difference;
 *  - that 200 more calls of each leave the heap as it was (within 8 KiB,
 *    malloc's own bookkeeping): the derivatives' shadows are freed.
 * AD_KERNEL_REQUESTS(f) defines grad_f and deriv_f, those two requests,
 * for a kernel f(const double *x, int n).
 * Uses adcheck.h's counters; C only (variable-length arrays).
 *===----------------------------------------------------------------------===*/
#ifndef ADKERNEL_H
#define ADKERNEL_H

#include "ad.h"
#include "adcheck.h"
#include <malloc.h>
#include <string.h>

typedef double (*ad_kernel_fn)(const double *, int);
typedef double (*ad_kernel_request)(double *, double *, int);

static AD_UNUSED void ad_check_kernel(const char *name, int n, const double *x0,
                                      ad_kernel_fn f, ad_kernel_request grad,
                                      ad_kernel_request deriv) {
  AD_CHECK_GRADIENT(name, n, x0, grad(x, dx, n), f(w, n));
  double x[n], v[n];
  for (int i = 0; i < n; i++) {
    x[i] = x0[i];
    v[i] = 0.25 * (i + 1) * (i % 2 ? -1 : 1);
  }
  double got = deriv(x, v, n);
  double h = 0;
  double fd = AD_FD(h, ({
                      double xh[n];
                      for (int i = 0; i < n; i++)
                        xh[i] = x0[i] + h * v[i];
                      f(xh, n);
                    }));
  ad_check(ad_fmt("%s forward", name), got, fd, 1e-6, 1e-8);
  double dx[n];
  grad(x, dx, n), deriv(x, v, n);
  size_t before = mallinfo2().uordblks;
  for (int k = 0; k < 200; k++)
    grad(x, dx, n), deriv(x, v, n);
  size_t after = mallinfo2().uordblks;
  ad_check(ad_fmt("%s heap growth over 200 calls", name),
           after > before ? (double)(after - before) : 0.0, 0, 0, 8192);
}

#define AD_KERNEL_REQUESTS(f)                                                  \
  static double grad_##f(double *x, double *dx, int n) {                       \
    memset(dx, 0, n * sizeof *dx);                                             \
    __ad_gradient(f, x, dx, n);                                                \
    return 0;                                                                  \
  }                                                                            \
  static double deriv_##f(double *x, double *v, int n) {                       \
    return __ad_derivative(f, x, v, n);                                        \
  }

#endif /* ADKERNEL_H */
