// Partials that are infinite at a finite point (sqrt, cbrt, asin, acos and
// pow with an exponent below 1, where their argument is 0 or 1) meeting a
// zero tangent or cotangent: the argument does not move there, and the
// derivative is finite. Forward mode gave NaN (0 / 0 in the tangent
// quotient) for every case below; reverse mode gave NaN for pow, whose
// partial was a product (0 * inf).
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O2 -ffast-math %s -o %t.fm %adlibs && %t.fm
#include "ad.h"
#include "adcheck.h"
#include <math.h>

// A clamped standard deviation, the usual guard against a slightly
// negative variance: at v < 0 it is sqrt(0) + v, slope 1.
double std_plus(double v) { return sqrt(fmax(v, 0.0)) + v; }
double std_plus_branch(double v) {
  double u = v > 0 ? v : 0;
  return sqrt(u) + v;
}
double cbrt_plus(double v) { return cbrt(fmax(v, 0.0)) + v; }
double pow_plus(double v) { return pow(fmax(v, 0.0), 0.5) + v; }
// The clamped angle between two directions: acos(1) where c > 1.
double angle_plus(double c) {
  return acos(fmin(c, 1.0)) + asin(fmin(c, 1.0)) * 2 + c;
}
// |v| v, as sqrt and as pow: 2|v|, 0 at 0.
double abs_times_sqrt(double v) { return sqrt(v * v) * v; }
double abs_times_pow(double v) { return pow(v * v, 0.5) * v; }
// The signed distance to a box, for a point inside it: the first term is 0
// near the point (max(q, 0) is 0 there); the nearest face is z.
double box_sdf(double px, double py, double pz) {
  double qx = fabs(px) - 0.3, qy = fabs(py) - 0.4, qz = fabs(pz) - 0.5;
  double mx = fmax(qx, 0.0), my = fmax(qy, 0.0), mz = fmax(qz, 0.0);
  return sqrt(mx * mx + my * my + mz * mz) + fmin(fmax(qx, fmax(qy, qz)), 0.0);
}

typedef struct {
  double dx, dy, dz;
} grad3;
grad3 __ad_gradient_3(void *, ...) AD_MARKER;

int main(void) {
  volatile double zero = 0.0;
  double v = -1e-3 + zero, c = 1.25 + zero, z = zero;
  ad_check("std_plus rev", __ad_gradient(std_plus, v), 1, 0, 0);
  ad_check("std_plus fwd", __ad_derivative(std_plus, v, 1.0), 1, 0, 0);
  ad_check("std_plus_branch rev", __ad_gradient(std_plus_branch, v), 1, 0, 0);
  ad_check("std_plus_branch fwd", __ad_derivative(std_plus_branch, v, 1.0), 1,
           0, 0);
  ad_check("cbrt_plus rev", __ad_gradient(cbrt_plus, v), 1, 0, 0);
  ad_check("cbrt_plus fwd", __ad_derivative(cbrt_plus, v, 1.0), 1, 0, 0);
  ad_check("pow_plus rev", __ad_gradient(pow_plus, v), 1, 0, 0);
  ad_check("pow_plus fwd", __ad_derivative(pow_plus, v, 1.0), 1, 0, 0);
  ad_check("angle_plus rev", __ad_gradient(angle_plus, c), 1, 0, 0);
  ad_check("angle_plus fwd", __ad_derivative(angle_plus, c, 1.0), 1, 0, 0);
  ad_check("abs_times_sqrt rev", __ad_gradient(abs_times_sqrt, z), 0, 0, 0);
  ad_check("abs_times_sqrt fwd", __ad_derivative(abs_times_sqrt, z, 1.0), 0, 0,
           0);
  ad_check("abs_times_pow rev", __ad_gradient(abs_times_pow, z), 0, 0, 0);
  ad_check("abs_times_pow fwd", __ad_derivative(abs_times_pow, z, 1.0), 0, 0,
           0);
  grad3 g = __ad_gradient_3(box_sdf, 0.1, -0.2, 0.45);
  ad_check("box_sdf d/dx", g.dx, 0, 0, 0);
  ad_check("box_sdf d/dy", g.dy, 0, 0, 0);
  ad_check("box_sdf d/dz", g.dz, 1, 0, 0);
  ad_check("box_sdf fwd d/dz",
           __ad_derivative(box_sdf, 0.1, 0.0, -0.2, 0.0, 0.45, 1.0), 1, 0, 0);

  // Away from the edge the slopes are the ordinary ones, through the same
  // code (pow's partial is now a quotient by its reciprocal).
  double p = 0.7 + zero;
  ad_deriv("pow_plus at 0.7", __ad_gradient(pow_plus, p), 0.5 / sqrt(0.7) + 1,
           ad_fd1(pow_plus, p), AD_TOL_D);
  ad_deriv("pow_plus fwd at 0.7", __ad_derivative(pow_plus, p, 1.0),
           0.5 / sqrt(0.7) + 1, ad_fd1(pow_plus, p), AD_TOL_D);
  ad_deriv("abs_times_pow at -0.7", __ad_gradient(abs_times_pow, -p), 1.4,
           ad_fd1(abs_times_pow, -p), AD_TOL_D);
  ad_deriv("abs_times_pow fwd at -0.7", __ad_derivative(abs_times_pow, -p, 1.0),
           1.4, ad_fd1(abs_times_pow, -p), AD_TOL_D);
#ifndef __FAST_MATH__
  // An argument that moves at the edge still has the infinite slope.
  ad_check("sqrt'(0) fwd is +inf",
           isinf(__ad_derivative(std_plus, z, 1.0)) ? 1 : 0, 1, 0, 0);
#endif
  return ad_finish();
}
