// A std::function holding a lambda that captures by reference, passed by
// reference to a midpoint-rule integrator, at -O0 and -O2. At -O0 the
// std::function's manager (called through a function pointer, to destroy
// the closure) also has a path that copies the closure with a memcpy of
// unknown type; that failed the whole gradient. The path is never taken
// here: the compile warns, and derived code would abort with a message if
// it ran (a std::function copied at -O0).
// A closure of three references does not fit in the std::function: it is
// kept on the heap, and the manager's copy of it (24 bytes of pointers)
// is typed only by the !tbaa.struct clang tags it with from -O1. Without
// reading that tag the manager could not be differentiated, and the
// destruction of the std::function aborted the derived code at -O1.
// A closure of two references fits: it is kept in the std::function's own
// storage, a union, and the manager's copy of it is a copy of that union,
// which was an error in the manager; derived code aborted from -O1 (a
// probe). clang made the copy as the closure type and tagged its two
// pointer fields, which now type it.
// clang-format off
// RUN: %adcxx -O0 %s -o %t.O0 %adlibs 2>&1 | FileCheck %s --check-prefix=O0
// RUN: %t.O0
// RUN: %adcxx -O1 %s -o %t.O1 %adlibs 2>&1 | count 0
// RUN: %t.O1
// RUN: %adcxx -O2 %s -o %t.O2 %adlibs 2>&1 | count 0
// RUN: %t.O2
// O0: warning: '{{.*}}_M_create{{.*}}', reached through a function pointer in the differentiated code, cannot be differentiated: cannot differentiate this memory copy
// clang-format on
#include "ad.h"
#include "adcheck.h"
#include <cmath>
#include <functional>

static double integrate(const std::function<double(double)> &g, double a,
                        double b, int n) {
  double h = (b - a) / n, s = 0;
  for (int i = 0; i < n; i++)
    s += g(a + (i + 0.5) * h) * h;
  return s;
}

double wave(double k) {
  auto g = [&](double t) { return std::sin(k * t); };
  return integrate(g, 0, 1, 100);
}

// integral of a t^2 + b c + sin(a t) over [0, 1], b = 1, c = 0.5
double three_refs(double a) {
  double b = 1.0, c = 0.5;
  auto g = [&](double t) { return a * t * t + b * c + std::sin(a * t); };
  return integrate(g, 0, 1, 100);
}

// The same as a struct member initialised from the lambda, then only called.
struct Integrator {
  std::function<double(double)> g;
  double sum() const {
    double s = 0;
    for (int i = 0; i < 10; i++)
      s += g(0.1 * i);
    return s;
  }
};
double two_refs(double k) {
  double c = 0.7;
  Integrator I{[&](double t) { return std::sin(k * t) * c; }};
  return I.sum();
}

int main() {
  double k = 1.3;
  ad_check("std::function by reference", __ad_gradient((void *)wave, k),
           AD_FD(k, wave(k)), 1e-7, 1e-9);
  ad_check("three references", __ad_gradient((void *)three_refs, k),
           AD_FD(k, three_refs(k)), 1e-7, 1e-9);
  double want = 0;
  for (int i = 0; i < 10; i++)
    want += 0.1 * i * std::cos(k * 0.1 * i) * 0.7;
  ad_check("two references, a member", __ad_gradient((void *)two_refs, k), want,
           1e-14, 0);
  return ad_finish();
}
