// An exception that leaves the differentiated function leaves the request
// too: the caller of __ad_gradient / __ad_derivative catches the same
// exception, the runtime tape holds what it held before the request, and
// the shadows the request allocated are freed, so later requests on the
// thread work. f throws from a callee inside a data-dependent loop (records
// on the runtime tape) after filling a local std::vector (a heap shadow).
//   f(x) = sum_{i<5} sin(x i)^2 + x * sum_{k<n} exp(0.1 x k), n the first
//          count with the sum >= 20; throws std::range_error for x > 2
//   the request inside a try of the same function (an invoke of the
//   marker), and in a function called from the try (a plain call), 2000
//   times over: heap in use afterwards must not have grown with them
// RUN: %adcxx -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcxx -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcxx -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcxx -O3 %s -o %t.O3 %adlibs && %t.O3
#include "ad.h"
#include "ad_runtime.h"
#include "adcheck.h"
#include <cmath>
#include <malloc.h>
#include <stdexcept>
#include <vector>

__attribute__((noinline)) static double series(double x) {
  double s = 0;
  int k = 0;
  while (s < 20) {
    s += std::exp(0.1 * x * k);
    if (x > 2 && k == 3)
      throw std::range_error("x out of range");
    k++;
  }
  return x * s;
}

double f(double x) {
  std::vector<double> v;
  for (int i = 0; i < 5; i++)
    v.push_back(std::sin(x * i));
  double s = 0;
  for (double e : v)
    s += e * e;
  return s + series(x);
}

static double df(double x) {
  double d = 0, s = 0;
  for (int i = 0; i < 5; i++)
    d += 2 * std::sin(x * i) * std::cos(x * i) * i;
  int n = 0;
  for (double t = 0; t < 20; n++)
    t += std::exp(0.1 * x * n);
  for (int k = 0; k < n; k++) {
    s += std::exp(0.1 * x * k);
    d += x * 0.1 * k * std::exp(0.1 * x * k);
  }
  return d + s;
}

static int caught = 0;

// The marker is invoked: its own unwind edge leads here.
static void gradient_in_try(double x) {
  try {
    double g = __ad_gradient(f, x);
    ad_check("gradient of a throwing f returned", g, 0, 0, 0);
  } catch (const std::range_error &e) {
    caught++;
  }
}

__attribute__((noinline)) static double gradient_call(double x) {
  return __ad_gradient(f, x);
}

__attribute__((noinline)) static double derivative_call(double x) {
  return __ad_derivative(f, x, 1.0);
}

static void check_at(double x) {
  double fd = AD_FD(x, f(x));
  ad_deriv(ad_fmt("f'(%g) reverse", x), __ad_gradient(f, x), df(x), fd,
           AD_TOL_D);
  ad_deriv(ad_fmt("f'(%g) forward", x), __ad_derivative(f, x, 1.0), df(x),
           fd, AD_TOL_D);
}

int main() {
  check_at(0.7);
  size_t tape = __ad_tape_current_bytes();
  gradient_in_try(3.0);
  ad_check("tape after the exception",
           (double)__ad_tape_current_bytes(), (double)tape, 0, 0);
  ad_check("caught in the function of the request", caught, 1, 0, 0);
  check_at(0.7);

  size_t heap = mallinfo2().uordblks;
  for (int k = 0; k < 2000; k++) {
    try {
      gradient_call(2.5);
    } catch (const std::range_error &) {
      caught++;
    }
    try {
      derivative_call(2.5);
    } catch (const std::range_error &) {
      caught++;
    }
    gradient_in_try(3.0);
  }
  ad_check("every exception caught", caught, 1 + 3 * 2000, 0, 0);
  ad_check("tape after 6000 exceptions", (double)__ad_tape_current_bytes(),
           (double)tape, 0, 0);
  // A shadow block leaked per exception would be over 40 bytes each.
  ad_check("heap after 6000 exceptions", (double)mallinfo2().uordblks,
           (double)heap, 0, 40000);
  check_at(0.7);
  check_at(1.9);
  return ad_finish();
}
