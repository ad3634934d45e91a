// Structs mixing floating-point and integer fields, returned by value
// (x86-64 returns {double, int} as the first-class aggregate {double, i32};
// the int field's tangent is 0). noinline keeps the calls at -O2.
//   newton(x)   : sqrt(x) by Newton's method, returned with its step count
//   tagged(x)   : {char, double}; a counter {double, long}
//   triple(x)   : {int, double, double} (returned through memory, sret)
//   chosen(x)   : which call's struct is used depends on x (a phi at -O2)
//   looped(x)   : the struct returned in a loop is taped per iteration
//   recursive(x): a recursive function returning the struct
//   stepped(x)  : the struct is also an argument by value ({double, int}
//                 travel as two scalars), carried through a loop
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O3 %s -o %t.O3 %adlibs && %t.O3
#include "ad.h"
#include "adcheck.h"
#include <math.h>

typedef struct {
  double value;
  int steps;
} solved;

__attribute__((noinline)) static solved newton_sqrt(double a) {
  solved r = {a > 1 ? a : 1.0, 0};
  while (r.steps < 60) {
    double next = 0.5 * (r.value + a / r.value);
    r.steps++;
    if (fabs(next - r.value) < 1e-15 * next) {
      r.value = next;
      break;
    }
    r.value = next;
  }
  return r;
}

double newton(double x) {
  solved r = newton_sqrt(x * x + 1);
  return r.value * (r.steps > 0 ? 3.0 : 1.0);
}

typedef struct {
  char tag;
  double v;
} tagged_t;
typedef struct {
  double v;
  long count;
} counted_t;

__attribute__((noinline)) static tagged_t make_tagged(double x) {
  tagged_t t = {x > 0 ? 'p' : 'n', sin(x) * x};
  return t;
}
__attribute__((noinline)) static counted_t make_counted(double x, long k) {
  counted_t c = {exp(x) * k, k + 1};
  return c;
}

double tagged(double x) {
  tagged_t t = make_tagged(x);
  counted_t c = make_counted(t.v, 3);
  return (t.tag == 'p' ? 2.0 : -1.0) * t.v + c.v / c.count;
}

typedef struct {
  int n;
  double a, b;
} triple_t;

__attribute__((noinline)) static triple_t make_triple(double x) {
  triple_t t = {4, x * x, cos(x)};
  return t;
}

double triple(double x) {
  triple_t t = make_triple(x);
  return t.n * t.a + t.b;
}

__attribute__((noinline)) static solved scaled(double x, int s) {
  solved r = {x * s, s};
  return r;
}

double chosen(double x) {
  solved r = x > 1 ? scaled(x, 2) : scaled(x * x, 5);
  return r.value * r.value + r.steps;
}

double looped(double x) {
  double acc = 0;
  for (int k = 1; k <= 4; k++) {
    solved r = scaled(x + k, k);
    acc += r.value * r.value / r.steps;
  }
  return acc;
}

__attribute__((noinline)) static solved nest(double x, int n) {
  if (n == 0) {
    solved r = {x, 0};
    return r;
  }
  solved r = nest(sin(x) + 0.5 * x, n - 1);
  r.value *= 1.1;
  r.steps++;
  return r;
}

double recursive(double x) {
  solved r = nest(x, 5);
  return r.value * r.steps;
}

__attribute__((noinline)) static solved advance(solved s, double h) {
  solved t = {s.value + h * cos(s.value), s.steps + 1};
  return t;
}

double stepped(double x) {
  solved s = {x, 0};
  for (int k = 0; k < 10; k++)
    s = advance(s, 0.1);
  return s.value + s.steps;
}

int main(void) {
  volatile double vx = 0.8;
  double x = vx;

  // newton: 3 sqrt(x^2 + 1) -> 3x / sqrt(x^2 + 1)
  ad_deriv("newton", __ad_gradient(newton, x), 3 * x / sqrt(x * x + 1),
           AD_FD(x, newton(x)), AD_TOL_D);
  ad_deriv("newton fwd", __ad_derivative(newton, x, 1.0),
           3 * x / sqrt(x * x + 1), AD_FD(x, newton(x)), AD_TOL_D);

  // tagged: 2 x sin x + 3 exp(x sin x) / 4
  double u = x * sin(x), du = sin(x) + x * cos(x);
  ad_deriv("tagged", __ad_gradient(tagged, x), 2 * du + 0.75 * exp(u) * du,
           AD_FD(x, tagged(x)), AD_TOL_D);

  // triple: 4 x^2 + cos x
  ad_deriv("triple", __ad_gradient(triple, x), 8 * x - sin(x),
           AD_FD(x, triple(x)), AD_TOL_D);

  // chosen: x <= 1: 25 x^4 + 5; x > 1: 4 x^2 + 2
  ad_deriv("chosen x<1", __ad_gradient(chosen, x), 100 * x * x * x,
           AD_FD(x, chosen(x)), AD_TOL_D);
  double y = 1.7;
  ad_deriv("chosen x>1", __ad_gradient(chosen, y), 8 * y, AD_FD(y, chosen(y)),
           AD_TOL_D);
  ad_deriv("chosen fwd", __ad_derivative(chosen, y, 1.0), 8 * y,
           AD_FD(y, chosen(y)), AD_TOL_D);

  // looped: sum_k k (x + k)^2 -> sum_k 2 k (x + k)
  double want = 0;
  for (int k = 1; k <= 4; k++)
    want += 2 * k * (x + k);
  ad_deriv("looped", __ad_gradient(looped, x), want, AD_FD(x, looped(x)),
           AD_TOL_D);

  // recursive: 5 * 1.1^5 * g(g(g(g(g(x))))), g(u) = sin u + u / 2
  double dg = 1, g = x;
  for (int k = 0; k < 5; k++) {
    dg *= cos(g) + 0.5;
    g = sin(g) + 0.5 * g;
  }
  ad_deriv("recursive", __ad_gradient(recursive, x), 5 * pow(1.1, 5) * dg,
           AD_FD(x, recursive(x)), AD_TOL_D);

  // stepped: ten steps of s += h cos s
  double ds = 1, s = x;
  for (int k = 0; k < 10; k++) {
    ds *= 1 - 0.1 * sin(s);
    s += 0.1 * cos(s);
  }
  ad_deriv("stepped", __ad_gradient(stepped, x), ds, AD_FD(x, stepped(x)),
           AD_TOL_D);
  ad_deriv("stepped fwd", __ad_derivative(stepped, x, 1.0), ds,
           AD_FD(x, stepped(x)), AD_TOL_D);
  return ad_finish();
}
