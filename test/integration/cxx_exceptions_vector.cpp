// std::vector code compiled with exceptions on: at -O0 nearly every call in
// it is an invoke (operator new may throw std::bad_alloc, destructors run
// on the unwinding path), and at -O2 the growth of a vector keeps its
// invokes. std::vector::at throws std::out_of_range, caught inside f.
//   window(x) = sum_{i<8} w_i, w_i = v.at(i + 2) if i + 2 < 6, else the
//               catch substitutes v.at(i - 4) * x; v = (x, x^2, ..., x^6)
//   grown(x)  = sum over a vector grown by push_back and copied, of its
//               elements squared: sum_{i<12} (x + i)^2 * 2
//   forward mode of both
// RUN: %adcxx -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcxx -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcxx -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcxx -O3 %s -o %t.O3 %adlibs && %t.O3
#include "ad.h"
#include "adcheck.h"
#include <cmath>
#include <stdexcept>
#include <vector>

double window(double x) {
  std::vector<double> v;
  double p = 1;
  for (int i = 0; i < 6; i++)
    v.push_back(p *= x);
  double s = 0;
  for (size_t i = 0; i < 8; i++) {
    try {
      s += v.at(i + 2);
    } catch (const std::out_of_range &) {
      s += v.at(i - 4) * x;
    }
  }
  return s;
}

static double dwindow(double x) {
  // x^3 + ... + x^6, then x^2 + ... + x^5 through the catch
  return 3 * x * x + 4 * std::pow(x, 3) + 5 * std::pow(x, 4) +
         6 * std::pow(x, 5) + 2 * x + 3 * x * x + 4 * std::pow(x, 3) +
         5 * std::pow(x, 4);
}

double grown(double x) {
  std::vector<double> v;
  for (int i = 0; i < 12; i++)
    v.push_back(x + i);
  std::vector<double> w = v;
  double s = 0;
  for (size_t i = 0; i < w.size(); i++)
    s += w[i] * v.at(i) * 2;
  return s;
}

static double dgrown(double x) {
  double d = 0;
  for (int i = 0; i < 12; i++)
    d += 4 * (x + i);
  return d;
}

int main() {
  for (double x : {0.6, 1.3}) {
    ad_deriv_modes("window", window, dwindow, x, __ad_gradient(window, x),
                   __ad_derivative(window, x, 1.0));
    ad_deriv_modes("grown", grown, dgrown, x, __ad_gradient(grown, x),
                   __ad_derivative(grown, x, 1.0));
  }
  return ad_finish();
}
