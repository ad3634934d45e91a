// Third derivatives by every combination of forward and reverse mode,
// three requests deep, of a function whose while loop keeps per-iteration
// values with derivatives on the runtime tape. Reverse over forward in the
// middle differentiates f.rev of a forward derivative, which takes the
// cotangent of the {value, tangent} result as one struct. Checked against
// the hand derivative and central differences of the second derivative.
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O3 %s -o %t.O3 %adlibs && %t.O3

#include "ad.h"
#include "adcheck.h"

// sum_{t=1..n} sin(x t) / t, through a loop SCEV cannot count.
double g(double x, int n) {
  double s = 0, t = 1;
  while (t <= n) {
    s += sin(x * t) / t;
    t += 1;
  }
  return s;
}

// Named outermost first: rfr is reverse over forward over reverse.
double fff1(double x, int n) { return __ad_derivative(g, x, 1.0, n); }
double fff2(double x, int n) { return __ad_derivative(fff1, x, 1.0, n); }
double fff3(double x, int n) { return __ad_derivative(fff2, x, 1.0, n); }
double ffr1(double x, int n) { return __ad_gradient(g, x, n); }
double ffr2(double x, int n) { return __ad_derivative(ffr1, x, 1.0, n); }
double ffr3(double x, int n) { return __ad_derivative(ffr2, x, 1.0, n); }
double frf1(double x, int n) { return __ad_derivative(g, x, 1.0, n); }
double frf2(double x, int n) { return __ad_gradient(frf1, x, n); }
double frf3(double x, int n) { return __ad_derivative(frf2, x, 1.0, n); }
double frr1(double x, int n) { return __ad_gradient(g, x, n); }
double frr2(double x, int n) { return __ad_gradient(frr1, x, n); }
double frr3(double x, int n) { return __ad_derivative(frr2, x, 1.0, n); }
double rff1(double x, int n) { return __ad_derivative(g, x, 1.0, n); }
double rff2(double x, int n) { return __ad_derivative(rff1, x, 1.0, n); }
double rff3(double x, int n) { return __ad_gradient(rff2, x, n); }
double rfr1(double x, int n) { return __ad_gradient(g, x, n); }
double rfr2(double x, int n) { return __ad_derivative(rfr1, x, 1.0, n); }
double rfr3(double x, int n) { return __ad_gradient(rfr2, x, n); }
double rrf1(double x, int n) { return __ad_derivative(g, x, 1.0, n); }
double rrf2(double x, int n) { return __ad_gradient(rrf1, x, n); }
double rrf3(double x, int n) { return __ad_gradient(rrf2, x, n); }
double rrr1(double x, int n) { return __ad_gradient(g, x, n); }
double rrr2(double x, int n) { return __ad_gradient(rrr1, x, n); }
double rrr3(double x, int n) { return __ad_gradient(rrr2, x, n); }

int main(void) {
  volatile int vn = 5;
  int n = vn;
  double x = 0.7, d3 = 0; // -sum t^2 cos(x t)
  for (int t = 1; t <= n; t++)
    d3 -= t * t * cos(x * t);
  ad_deriv("forward over forward over forward", fff3(x, n), d3,
           AD_FD(x, fff2(x, n)), AD_TOL_D);
  ad_deriv("forward over forward over reverse", ffr3(x, n), d3,
           AD_FD(x, ffr2(x, n)), AD_TOL_D);
  ad_deriv("forward over reverse over forward", frf3(x, n), d3,
           AD_FD(x, frf2(x, n)), AD_TOL_D);
  ad_deriv("forward over reverse over reverse", frr3(x, n), d3,
           AD_FD(x, frr2(x, n)), AD_TOL_D);
  ad_deriv("reverse over forward over forward", rff3(x, n), d3,
           AD_FD(x, rff2(x, n)), AD_TOL_D);
  ad_deriv("reverse over forward over reverse", rfr3(x, n), d3,
           AD_FD(x, rfr2(x, n)), AD_TOL_D);
  ad_deriv("reverse over reverse over forward", rrf3(x, n), d3,
           AD_FD(x, rrf2(x, n)), AD_TOL_D);
  ad_deriv("reverse over reverse over reverse", rrr3(x, n), d3,
           AD_FD(x, rrr2(x, n)), AD_TOL_D);
  return ad_finish();
}
