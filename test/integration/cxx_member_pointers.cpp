// Calls through pointers to member functions inside the differentiated
// function, a virtual one included, chosen at run time: the pointer holds
// a vtable offset or a function address, and the call is an indirect call
// the pass dispatches on (IndirectCalls.cpp).
// RUN: %adcxx -std=c++17 -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcxx -std=c++17 -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcxx -std=c++17 -O2 %s -o %t.O2 %adlibs && %t.O2
#include "ad.h"
#include "adcheck.h"

struct Base {
  double a;
  virtual double g(double x) const { return a * x * x; }
  double h(double x) const { return a * x; }
  virtual ~Base() {}
};
struct Derived : Base {
  double g(double x) const override { return a * x * x * x; }
};

// w = 1: the virtual g (Derived's: a x^3); w = 0: the plain h (a x).
double f(double x, int w) {
  Derived d;
  d.a = 3.0;
  const Base &b = d;
  double (Base::*pm)(double) const = w ? &Base::g : &Base::h;
  return (b.*pm)(x)*x;
}

int main() {
  double x = 1.7;
  ad_deriv("virtual member", __ad_gradient(f, x, 1), 12 * x * x * x,
           AD_FD(x, f(x, 1)), AD_TOL_D);
  ad_deriv("plain member", __ad_gradient(f, x, 0), 6 * x, AD_FD(x, f(x, 0)),
           AD_TOL_D);
  return ad_finish();
}
