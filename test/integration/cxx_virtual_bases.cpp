// Classes with virtual bases (a diamond) constructed in the differentiated
// function. At -O0 the constructor of each intermediate base takes the
// VTT, a constant table of vtable addresses, from the most derived
// class's constructor, and stores the vtable pointers it reads there into
// the object, which has a shadow. The VTT is passed with its zeroed twin
// as shadow (null pointer shadows, as for any vtable pointer stored).
// Before, this was a compile error at -O0 only ("a pointer to memory
// without derivatives is stored where pointers to memory with derivatives
// are kept").
// RUN: %adcxx -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcxx -O2 %s -o %t.O2 %adlibs && %t.O2
#include "ad.h"
#include "adcheck.h"

struct Base {
  double a;
  explicit Base(double a) : a(a) {}
  virtual double v(double x) const { return a * x; }
  virtual ~Base() = default;
};
struct Mid1 : virtual Base {
  double b;
  explicit Mid1(double b) : Base(1), b(b) {}
  double v(double x) const override { return Base::v(x) + b * x * x; }
};
struct Mid2 : virtual Base {
  double c;
  explicit Mid2(double c) : Base(1), c(c) {}
};
struct Diamond : Mid1, Mid2 {
  Diamond(double a, double b, double c) : Base(a), Mid1(b), Mid2(c) {}
  double v(double x) const override { return Mid1::v(x) * c; }
};

// (a x + b x^2) c with a = x, b = 2 x, c = 3: 3 x^2 + 6 x^3.
double f(double x) {
  Diamond d(x, 2 * x, 3);
  const Base &b = d;
  return b.v(x);
}

// The single virtual base without the diamond.
double g(double x) {
  Mid1 m(x * x);
  const Base &b = m;
  return b.v(x) + m.a; // x + x^4 + 1
}

int main() {
  const double xs[] = {0.7, -1.3, 2.0};
  for (double x : xs) {
    ad_deriv(ad_fmt("f'(%g)", x), __ad_gradient(f, x), 6 * x + 18 * x * x,
             ad_fd1(f, x), AD_TOL_D);
    ad_deriv(ad_fmt("g'(%g)", x), __ad_gradient(g, x), 1 + 4 * x * x * x,
             ad_fd1(g, x), AD_TOL_D);
  }
  return ad_finish();
}
