// More C++: a small vector class with overloaded operators (Vec3 returned
// by value through sret), std::sort on active data (the gradient follows
// the permutation: at -O0 the sort copies iterators, structs holding only
// a pointer, with memcpy, whose shadow copy was transposed as if it held
// doubles and the program crashed), std::swap of structs (at -O0 through a
// local of the struct's type; the copy between the two references was of
// unknown type), and std::function. Structs sorted: cxx_sort_structs.cpp.
// RUN: %adcxx -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcxx -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcxx -O2 %s -o %t.O2 %adlibs && %t.O2
#include "ad.h"
#include "adcheck.h"
#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>
struct Vec3 {
  double x, y, z;
};
static Vec3 operator+(Vec3 a, Vec3 b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
static Vec3 operator*(double s, Vec3 a) { return {s * a.x, s * a.y, s * a.z}; }
static Vec3 cross(Vec3 a, Vec3 b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static double dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
double vecf(double t) {
  Vec3 a{t, 2 * t, 0.5}, b{std::sin(t), 1.0, t * t};
  Vec3 c = cross(a, b) + 3.0 * a;
  return std::sqrt(dot(c, c));
}
double sortf(const std::vector<double> &v) {
  std::vector<double> w = v;
  std::sort(w.begin(), w.end());
  double s = 0;
  for (size_t i = 0; i < w.size(); i++)
    s += w[i] * (i + 1);
  return s;
}
struct Particle {
  double x, v;
};
double swapped(Particle *p, double s) {
  p[0].x *= s;
  std::swap(p[0], p[1]);
  return p[0].x * p[1].v + p[0].v; // p1.x p0.v + p1.v
}
double funcf(double x) {
  std::function<double(double)> g = [](double y) { return y * y * y; };
  return g(x) + g(2 * x);
}
int main() {
  double t = 0.7;
  ad_check("vec3", __ad_gradient((void *)vecf, t), AD_FD(t, vecf(t)), 1e-6,
           1e-8);
  std::vector<double> v = {0.5, -1.2, 2.0, 0.1}, dv(4, 0.0);
  __ad_gradient((void *)sortf, &v, &dv);
  // sorted order: -1.2, 0.1, 0.5, 2.0 -> weights 1..4
  double want[4] = {3, 1, 4, 2};
  for (int i = 0; i < 4; i++)
    ad_check(ad_fmt("sort %d", i), dv[i], want[i], 1e-12, 0);
  Particle pp[2] = {{1, 2}, {3, 4}}, dpp[2] = {};
  ad_check("swapped d/ds", __ad_gradient((void *)swapped, pp, dpp, 0.5), 0,
           0, 0);
  double wantp[4] = {0, 3, 2, 1}; // d/d(x0, v0, x1, v1)
  for (int i = 0; i < 4; i++)
    ad_check(ad_fmt("swapped %d", i), i % 2 ? dpp[i / 2].v : dpp[i / 2].x,
             wantp[i], 1e-12, 0);
  ad_check("std::function", __ad_gradient((void *)funcf, t),
           3 * t * t + 24 * t * t, 1e-12, 0);
  return ad_finish();
}
