// C++ compiled with exceptions (clang++'s default): throws caught inside the
// differentiated function. The derivative follows the path that ran: a
// catch block is differentiated like any other block, and a callee that
// throws part-way contributes what it did before the throw.
//   logs(x)    = sum_{i=-3..3} x * h(x + i), h(v) = log(v) for v > 0, else
//                v^2 (the catch substitutes it): the catch path runs for
//                some iterations of the loop, and which ones depends on x
//   partial(x) = sum_{i<5} (acc_i + r_i): accumulate(y = x + i) adds
//                y^2 k to acc for k = 0, 1, ... while it runs and throws at
//                k = 3 once y > 3.5 (its result r is then lost, what it
//                added stays); else it returns y * 6.5 after k = 0..6
//   rethrown(x) = the same through two levels: the inner catch rethrows,
//                the outer catch uses x^3
//   leaving(x) = s_k + x * k (k - 1) / 2: f throws the iteration k out of
//                its own loop once s_i = sum_{j<=i} x sin(x j) > 2, and
//                the catch adds x j for j < k (no throw: s_9)
//   forward mode of each, and at x where no catch runs
// RUN: %adcxx -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcxx -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcxx -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcxx -O3 %s -o %t.O3 %adlibs && %t.O3
#include "ad.h"
#include "adcheck.h"
#include <cmath>
#include <stdexcept>

__attribute__((noinline)) static double checked_log(double v) {
  if (v <= 0)
    throw std::domain_error("log of a non-positive number");
  return std::log(v);
}

double logs(double x) {
  double s = 0;
  for (int i = -3; i < 4; i++) {
    double v = x + i, t;
    try {
      t = checked_log(v);
    } catch (const std::domain_error &) {
      t = v * v;
    }
    s += x * t;
  }
  return s;
}

static double dlogs(double x) {
  double d = 0;
  for (int i = -3; i < 4; i++) {
    double v = x + i;
    d += v > 0 ? std::log(v) + x / v : v * v + 2 * x * v;
  }
  return d;
}

struct TooLarge {
  int k;
};

__attribute__((noinline)) static double accumulate(double y, double *acc) {
  for (int k = 0; k < 7; k++) {
    *acc += y * y * k;
    if (k == 3 && y > 3.5)
      throw TooLarge{k};
  }
  return y * 6.5;
}

double partial(double x) {
  double total = 0;
  for (int i = 0; i < 5; i++) {
    double acc = 0, r = 0;
    try {
      r = accumulate(x + i, &acc);
    } catch (const TooLarge &e) {
      r = e.k; // no derivative: an integer the callee threw
    }
    total += acc + r;
  }
  return total;
}

static double dpartial(double x) {
  double d = 0;
  for (int i = 0; i < 5; i++) {
    double y = x + i;
    d += y > 3.5 ? 2 * y * 6 : 2 * y * 21 + 6.5;
  }
  return d;
}

__attribute__((noinline)) static double inner(double x) {
  try {
    return checked_log(x - 1) * x;
  } catch (const std::domain_error &) {
    throw; // to outer's handler
  }
}

double rethrown(double x) {
  try {
    return inner(x) + x;
  } catch (const std::exception &) {
    return x * x * x;
  }
}

static double drethrown(double x) {
  return x > 1 ? std::log(x - 1) + x / (x - 1) + 1 : 3 * x * x;
}

double leaving(double x) {
  double s = 0;
  try {
    for (int i = 0; i < 10; i++) {
      s += std::sin(x * i) * x;
      if (s > 2)
        throw i;
    }
  } catch (int k) {
    for (int j = 0; j < k; j++)
      s += x * j;
  }
  return s;
}

static double dleaving(double x) {
  double s = 0, d = 0;
  for (int i = 0; i < 10; i++) {
    s += std::sin(x * i) * x;
    d += std::sin(x * i) + x * i * std::cos(x * i);
    if (s > 2)
      return d + i * (i - 1) / 2.0;
  }
  return d;
}

int main() {
  // 0.5: the catch runs for i = -3..-1; 3.5: for none.
  for (double x : {0.5, 1.7, 3.5}) {
    ad_deriv_modes("logs", logs, dlogs, x, __ad_gradient(logs, x),
                   __ad_derivative(logs, x, 1.0));
  }
  // -0.8: no throw; 0.3: throws for i = 4; 1.2: for i = 3, 4; 4.0: always.
  for (double x : {-0.8, 0.3, 1.2, 4.0}) {
    ad_deriv_modes("partial", partial, dpartial, x, __ad_gradient(partial, x),
                   __ad_derivative(partial, x, 1.0));
  }
  for (double x : {0.5, 2.5}) {
    ad_deriv_modes("rethrown", rethrown, drethrown, x,
                   __ad_gradient(rethrown, x),
                   __ad_derivative(rethrown, x, 1.0));
  }
  // 0.3: no throw; 0.9 and 1.4: thrown at different iterations.
  for (double x : {0.3, 0.9, 1.4}) {
    ad_deriv_modes("leaving", leaving, dleaving, x, __ad_gradient(leaving, x),
                   __ad_derivative(leaving, x, 1.0));
  }
  return ad_finish();
}
