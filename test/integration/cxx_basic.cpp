// C++: the function may be passed by plain name or as (void *)f; mangled
// names; namespace functions, static member functions, template
// instantiations (double and float), inline/constexpr functions, an
// overload picked with static_cast, an extern "C" function; std:: math
// (std::sin, std::exp, std::pow, std::sqrt, std::fabs, std::hypot,
// std::atan2, and the float overloads std::sin(float) / std::exp(float));
// struct results declared by the test with C linkage.
//
// RUN: %adcxx -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcxx -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcxx -O2 -ffast-math %s -o %t.fm %adlibs && %t.fm

#include "ad.h"
#include "adcheck.h"
#include <cmath>

struct grad2 {
  double dx, dy;
};
extern "C" grad2 __ad_gradient_2(...) AD_MARKER;
// The same variant declared without extern "C", as for C: its name is
// mangled, and it went unrecognised (clang's "compile with -fpass-plugin"
// error, with the plugin loaded).
grad2 __ad_gradient_pair(...) AD_MARKER;

double sin_x(double x) { return std::sin(x) * x; }

namespace ns {
double poly(double x) { return 2 * x * x * x - x; }
// A custom rule named by qualified names (AD_CUSTOM_JVP pasted the name
// into its registration's: an error for ns::quantize).
double quantize(double x) { return std::floor(4 * x) / 4; }
double quantize_jvp(double, double dx) { return dx; }
} // namespace ns
AD_CUSTOM_JVP(ns::quantize, ns::quantize_jvp)
double quantized(double x) { return 3 * ns::quantize(x); }

struct S {
  static double exp_x(double x) { return 2 * x * std::exp(x); }
};

template <typename T> T cube_plus(T x) { return x * x * x + static_cast<T>(2) * x; }

inline double inl(double x) { return std::sqrt(x * x + 1); }
constexpr double cexpr(double x) { return x > 0 ? x * x : -x; }

double over(double x) { return std::pow(x, 3.0) + std::fabs(x); }
double over(double x, double y) { return x * y; }

extern "C" double c_linkage(double x) { return std::pow(2.0, x) * x; }

double hyp_atan(double x, double y) { return std::hypot(x, y) + std::atan2(y, x); }

float fsin(float x) { return std::sin(x) * std::exp(x); }

static volatile double pts[] = {-1.8, -0.55, 0.4, 1.3, 2.7};

template <typename F> static void check1(const char *name, double x, double got,
                                         double want, F f) {
  double fd = AD_FD(x, f(x));
  ad_deriv(ad_fmt("%s'(%g)", name, x), got, want, fd, AD_TOL_D);
}

int main() {
  for (unsigned i = 0; i < sizeof pts / sizeof pts[0]; i++) {
    double x = pts[i];
    double w = std::cos(x) * x + std::sin(x);
    check1("sin_x by name", x, __ad_gradient(sin_x, x), w, sin_x);
    check1("sin_x by (void*)", x, __ad_gradient((void *)sin_x, x), w, sin_x);
    check1("sin_x by &", x, __ad_gradient(&sin_x, x), w, sin_x);
    check1("ns::poly", x, __ad_gradient(ns::poly, x), 6 * x * x - 1, ns::poly);
    check1("S::exp_x", x, __ad_gradient(S::exp_x, x), 2 * std::exp(x) * (1 + x),
           S::exp_x);
    check1("cube_plus<double>", x, __ad_gradient(cube_plus<double>, x),
           3 * x * x + 2, cube_plus<double>);
    check1("inl", x, __ad_gradient(inl, x), x / std::sqrt(x * x + 1), inl);
    check1("cexpr", x, __ad_gradient(cexpr, x), x > 0 ? 2 * x : -1.0, cexpr);
    double (*over1)(double) = over;
    check1("over(double)", x,
           __ad_gradient(static_cast<double (*)(double)>(over), x),
           3 * x * x + (x < 0 ? -1.0 : 1.0), over1);
    check1("c_linkage", x, __ad_gradient(c_linkage, x),
           std::pow(2.0, x) * (std::log(2.0) * x + 1), c_linkage);

    double y = 1.1 - x * 0.5, r = std::hypot(x, y);
    grad2 g = __ad_gradient_2(hyp_atan, x, y);
    double fdx = AD_FD(x, hyp_atan(x, y)), fdy = AD_FD(y, hyp_atan(x, y));
    ad_deriv(ad_fmt("hyp_atan dx (%g,%g)", x, y), g.dx, x / r - y / (r * r), fdx,
             AD_TOL_D);
    ad_deriv(ad_fmt("hyp_atan dy (%g,%g)", x, y), g.dy, y / r + x / (r * r), fdy,
             AD_TOL_D);

    ad_check(ad_fmt("namespace rule (%g)", x),
             __ad_gradient((void *)quantized, x), 3, 0, 0);
    grad2 gm = __ad_gradient_pair(hyp_atan, x, y);
    ad_check(ad_fmt("mangled variant dx (%g,%g)", x, y), gm.dx, g.dx, 0, 0);
    ad_check(ad_fmt("mangled variant dy (%g,%g)", x, y), gm.dy, g.dy, 0, 0);

    float xf = static_cast<float>(x);
    double X = xf;
    float gf = __ad_gradient_f(fsin, xf);
    double fdf = AD_FD(xf, fsin(xf));
    ad_deriv(ad_fmt("fsin'(%g)", X), gf, std::exp(X) * (std::cos(X) + std::sin(X)),
             fdf, AD_TOL_F);
    gf = __ad_gradient_f(cube_plus<float>, xf);
    fdf = AD_FD(xf, cube_plus<float>(xf));
    ad_deriv(ad_fmt("cube_plus<float>'(%g)", X), gf, 3 * X * X + 2, fdf, AD_TOL_F);
  }
  return ad_finish();
}
