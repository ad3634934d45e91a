// Stream I/O in differentiated code: a value read from a stream is a
// constant (reading over a variable that had a derivative drops it), and
// writing one has no derivative. String, file and standard streams, `<<`
// and `>>` of doubles, floats, ints and strings, std::endl. Gradients and
// forward derivatives against the analytic values and central differences.
//
// RUN: printf '1.5 2.5 7\n' > %t.nums
// RUN: %adcxx -O0 -DNUMS='"%t.nums"' %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcxx -fno-exceptions -O1 -DNUMS='"%t.nums"' %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcxx -O2 -DNUMS='"%t.nums"' %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcxx -O3 -g -DNUMS='"%t.nums"' %s -o %t.O3 %adlibs && %t.O3

#include "ad.h"
#include "adcheck.h"
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

// Coefficients parsed from a string: constants.
double parse_scale(double x) {
  std::istringstream in("2.5 3 name");
  double a;
  int k;
  std::string word;
  in >> a >> k >> word;
  return a * sin(x) * k + word.size() * x;
}

// Read from a file over a variable that held an active value: the
// derivative through it is gone.
double overwrite_from_file(double x) {
  std::ifstream in(NUMS);
  double a = x * x, b = 0;
  float c = static_cast<float>(x);
  in >> a >> b >> c;
  return a * b * sin(x) + c * x;
}

// Writing values: to a string stream, a file and std::cerr, with std::endl.
double log_values(double x) {
  std::ostringstream os;
  double y = exp(x);
  os << "y=" << y << ", x=" << x << std::endl;
  std::ofstream out("/dev/null");
  out << os.str() << y * y << '\n';
  if (os.str().empty())
    std::cerr << "empty\n";
  return y * x;
}

int main() {
  double x = 0.4;
  ad_deriv("parse_scale", __ad_gradient(parse_scale, x),
           2.5 * 3 * cos(x) + 4, AD_FD(x, parse_scale(x)), AD_TOL_D);
  ad_check("parse_scale forward", __ad_derivative(parse_scale, x, 1.0),
           2.5 * 3 * cos(x) + 4, 1e-12, 1e-12);
  ad_deriv("overwrite_from_file", __ad_gradient(overwrite_from_file, x),
           1.5 * 2.5 * cos(x) + 7, AD_FD(x, overwrite_from_file(x)), AD_TOL_D);
  ad_check("overwrite_from_file forward",
           __ad_derivative(overwrite_from_file, x, 1.0),
           1.5 * 2.5 * cos(x) + 7, 1e-12, 1e-12);
  ad_deriv("log_values", __ad_gradient(log_values, x), exp(x) * (1 + x),
           AD_FD(x, log_values(x)), AD_TOL_D);
  ad_check("log_values forward", __ad_derivative(log_values, x, 1.0),
           exp(x) * (1 + x), 1e-12, 1e-12);
  return ad_finish();
}
