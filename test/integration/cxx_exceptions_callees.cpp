// Exceptions thrown below the differentiated function's direct callees and
// caught in it. Which calls may unwind is decided from the bodies in the
// module (a call of a function that cannot throw stays a plain call); here
// it must not decide that for functions that only call a thrower, call
// themselves, or are reached through a virtual call. Each callee adds to
// an accumulator before the throw, which the derivative must keep.
//   chained(x) = sum_{i<4} acc_i: middle(y = x + i) runs k = 0..4, adding
//                y^2 (k + 1) and then calling leaf(y, k), which throws at
//                k = 2 once y > 2.5 (no try in middle)
//   recursed(x) = sum_{i<4} acc_i: descend(y = x + i, d) adds y^3 and
//                recurses to depth 4, throwing at depth 2 once y > 2.5
//   virtual_(x) = sum_{i<4} of shape->area(y = x + i) or, when it throws
//                (the Square for y > 2.5), y
//   forward mode of each
// RUN: %adcxx -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcxx -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcxx -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcxx -O3 %s -o %t.O3 %adlibs && %t.O3
#include "ad.h"
#include "adcheck.h"
#include <stdexcept>

__attribute__((noinline)) static void leaf(double y, int k) {
  if (k == 2 && y > 2.5)
    throw std::overflow_error("leaf");
}

__attribute__((noinline)) static void middle(double y, double *acc) {
  for (int k = 0; k < 5; k++) {
    *acc += y * y * (k + 1);
    leaf(y, k);
  }
}

double chained(double x) {
  double total = 0;
  for (int i = 0; i < 4; i++) {
    double acc = 0;
    try {
      middle(x + i, &acc);
    } catch (const std::overflow_error &) {
      acc *= 2;
    }
    total += acc;
  }
  return total;
}

static double dchained(double x) {
  double d = 0;
  for (int i = 0; i < 4; i++) {
    double y = x + i;
    d += y > 2.5 ? 2 * (2 * y * 6) : 2 * y * 15;
  }
  return d;
}

__attribute__((noinline)) static void descend(double y, int depth,
                                              double *acc) {
  *acc += y * y * y;
  if (depth == 2 && y > 2.5)
    throw std::overflow_error("deep");
  if (depth < 4)
    descend(y, depth + 1, acc);
}

double recursed(double x) {
  double total = 0;
  for (int i = 0; i < 4; i++) {
    double acc = 0;
    try {
      descend(x + i, 0, &acc);
    } catch (const std::overflow_error &) {
      acc += x;
    }
    total += acc;
  }
  return total;
}

static double drecursed(double x) {
  double d = 0;
  for (int i = 0; i < 4; i++) {
    double y = x + i;
    d += y > 2.5 ? 3 * 3 * y * y + 1 : 5 * 3 * y * y;
  }
  return d;
}

struct Shape {
  virtual double area(double y) const = 0;
  virtual ~Shape() = default;
};
struct Circle : Shape {
  double area(double y) const override { return 3.0 * y * y; }
};
struct Square : Shape {
  double area(double y) const override {
    if (y > 2.5)
      throw std::overflow_error("square");
    return y * y;
  }
};

double virtual_(double x) {
  Circle circle;
  Square square;
  const Shape *shapes[4] = {&circle, &square, &circle, &square};
  double total = 0;
  for (int i = 0; i < 4; i++) {
    double y = x + i;
    try {
      total += shapes[i]->area(y);
    } catch (const std::overflow_error &) {
      total += y;
    }
  }
  return total;
}

static double dvirtual(double x) {
  double d = 0;
  for (int i = 0; i < 4; i++) {
    double y = x + i;
    d += i % 2 == 0 ? 6 * y : (y > 2.5 ? 1 : 2 * y);
  }
  return d;
}

int main() {
  // 0.2: nothing throws; 1.0: i = 2, 3 throw; 2.8: every i.
  for (double x : {0.2, 1.0, 2.8}) {
    ad_deriv_modes("chained", chained, dchained, x, __ad_gradient(chained, x),
                   __ad_derivative(chained, x, 1.0));
    ad_deriv_modes("recursed", recursed, drecursed, x,
                   __ad_gradient(recursed, x),
                   __ad_derivative(recursed, x, 1.0));
    ad_deriv_modes("virtual", virtual_, dvirtual, x, __ad_gradient(virtual_, x),
                   __ad_derivative(virtual_, x, 1.0));
  }
  return ad_finish();
}
