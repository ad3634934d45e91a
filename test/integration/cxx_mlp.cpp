// A two-layer perceptron over std::vector<std::vector<double>>, every
// weight, bias and input with a shadow, checked by finite differences. At
// -O2 the copy of an empty bias vector stores null + size as its end: a
// pointer derived from null was "a pointer to memory without derivatives
// stored where pointers to memory with derivatives are kept" (an error at
// -O2 only, found by probing); its shadow is itself.
// RUN: %adcxx -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcxx -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcxx -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcxx -O3 %s -o %t.O3 %adlibs && %t.O3
// RUN: %adcxx -fno-exceptions -O2 %s -o %t.noexc %adlibs && %t.noexc
#include "ad.h"
#include "adcheck.h"
#include <cmath>
#include <vector>

using Matrix = std::vector<std::vector<double>>;
using Vector = std::vector<double>;

static Vector layer(const Matrix &W, const Vector &b, const Vector &x,
                    bool activate) {
  Vector y(b);
  for (size_t i = 0; i < W.size(); i++) {
    for (size_t j = 0; j < x.size(); j++)
      y[i] += W[i][j] * x[j];
    if (activate)
      y[i] = std::tanh(y[i]);
  }
  return y;
}

double loss(const Matrix *W1, const Vector *b1, const Matrix *W2,
            const Vector *b2, const Vector *x) {
  Vector h = layer(*W1, *b1, *x, true);
  Vector o = layer(*W2, *b2, h, false);
  return o[0] * o[0];
}

int main() {
  Matrix W1{{0.1, -0.3}, {0.5, 0.2}}, W2{{0.3, -0.6}};
  Matrix dW1(2, Vector(2, 0.0)), dW2(1, Vector(2, 0.0));
  Vector b1{0.01, -0.02}, b2{0.1}, x{0.8, -1.1};
  Vector db1(2, 0.0), db2(1, 0.0), dx(2, 0.0);
  __ad_gradient((void *)loss, &W1, &dW1, &b1, &db1, &W2, &dW2, &b2, &db2, &x,
                &dx);
  auto L = [&] { return loss(&W1, &b1, &W2, &b2, &x); };
  for (int i = 0; i < 2; i++) {
    for (int j = 0; j < 2; j++)
      ad_check(ad_fmt("dW1[%d][%d]", i, j), dW1[i][j], AD_FD(W1[i][j], L()),
               1e-6, 1e-9);
    ad_check(ad_fmt("dW2[0][%d]", i), dW2[0][i], AD_FD(W2[0][i], L()), 1e-6,
             1e-9);
    ad_check(ad_fmt("db1[%d]", i), db1[i], AD_FD(b1[i], L()), 1e-6, 1e-9);
    ad_check(ad_fmt("dx[%d]", i), dx[i], AD_FD(x[i], L()), 1e-6, 1e-9);
  }
  ad_check("db2", db2[0], AD_FD(b2[0], L()), 1e-6, 1e-9);
  return ad_finish();
}
