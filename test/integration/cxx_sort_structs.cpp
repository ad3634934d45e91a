// std::sort of a copied std::vector of structs by a lambda comparator; the
// gradient follows the permutation. At -O1 the plugin crashed planning
// __introsort_loop's tape: a loop read a value computed after another,
// uncounted loop from that loop's counter, and the planner asked for the
// counter while iterating over its requests. At -O0 the elements move by
// memcpy between the references two iterators' operator* return, which
// nothing in the function types; the iterator's operator+ steps the same
// field over Particle (ShadowMemory.cpp, fieldElementType). Before, a
// compile error at -O0.
// RUN: %adcxx -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcxx -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcxx -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcxx -O3 %s -o %t.O3 %adlibs && %t.O3
#include "ad.h"
#include "adcheck.h"
#include <algorithm>
#include <vector>
struct Particle {
  double x, v;
};
double sort_particles(const std::vector<Particle> *in, double s) {
  std::vector<Particle> p(*in);
  p[0].x *= s;
  std::sort(p.begin(), p.end(),
            [](const Particle &a, const Particle &b) { return a.x < b.x; });
  double t = 0;
  for (size_t i = 0; i < p.size(); i++)
    t += (i + 1) * p[i].x * p[i].v;
  return t;
}
int main() {
  // x0 s = 0.28 sorts second of three: t = 2 s x0 v0 - 0.3 * 0.5 + 3 x2 v2.
  std::vector<Particle> ps = {{0.7, 0.1}, {-0.3, 0.5}, {1.1, -0.2}},
                        dps(3, Particle{0, 0});
  double ds = __ad_gradient((void *)sort_particles, &ps, &dps, 0.4);
  ad_check("d/ds", ds, 2 * 0.7 * 0.1, 1e-12, 0);
  double wantx[3] = {2 * 0.4 * 0.1, 1 * 0.5, 3 * -0.2};
  double wantv[3] = {2 * 0.4 * 0.7, 1 * -0.3, 3 * 1.1};
  for (int i = 0; i < 3; i++) {
    ad_check(ad_fmt("d/dx%d", i), dps[i].x, wantx[i], 1e-12, 0);
    ad_check(ad_fmt("d/dv%d", i), dps[i].v, wantv[i], 1e-12, 0);
  }
  // Twenty particles: the sort's introsort loop runs (more than 16).
  std::vector<Particle> many, dmany(20, Particle{0, 0});
  for (int i = 0; i < 20; i++)
    many.push_back({(i * 7 % 20) * 0.1, 1.0 + 0.05 * i});
  double s = 0.4;
  double dsm = __ad_gradient((void *)sort_particles, &many, &dmany, s);
  ad_check("twenty d/ds", dsm, AD_FD(s, sort_particles(&many, s)), 1e-6, 0);
  for (int i = 0; i < 20; i += 3) {
    double &xi = many[i].x;
    ad_check(ad_fmt("twenty d/dx%d", i), dmany[i].x,
             AD_FD(xi, sort_particles(&many, s)), 1e-6, 1e-9);
  }
  return ad_finish();
}
