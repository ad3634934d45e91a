// Pointers moved as integers by optimised code: std::unique_ptr moved into
// a growing std::vector, and a std::vector<T *> relocating its storage,
// copy pointers as i64 (their TBAA tag says "any pointer"). The shadow
// pointers move with them (before, the derivative followed an unset shadow
// pointer: a segfault at -O1 to -O3). At -O0 the relocation of a
// std::vector<T *> is still an error (what the copy moves cannot be told).
// RUN: %adcxx -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcxx -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcxx -O3 %s -o %t.O3 %adlibs && %t.O3
#include "ad.h"
#include "adcheck.h"
#include <cmath>
#include <memory>
#include <vector>

struct Layer {
  virtual ~Layer() = default;
  virtual double apply(double) const = 0;
};
struct Scale : Layer {
  double w;
  explicit Scale(double w) : w(w) {}
  double apply(double x) const override { return w * x; }
};
struct Tanh : Layer {
  double apply(double x) const override { return std::tanh(x); }
};

// Owned layers: moving a std::unique_ptr into a growing vector moves its
// pointer as an integer in optimised code.
double owned_layers(double x, double w) {
  std::vector<std::unique_ptr<Layer>> net;
  net.push_back(std::make_unique<Scale>(w));
  net.push_back(std::make_unique<Tanh>());
  net.push_back(std::make_unique<Scale>(-0.5));
  double h = x;
  for (const auto &l : net)
    h = l->apply(h);
  return h;
}

// Raw pointers in a vector that grows (relocation copies the pointers).
struct Lin {
  double w;
  double apply(double x) const { return w * x; }
};
double raw_layers(double x, double w) {
  std::vector<Lin *> net;
  for (int i = 0; i < 5; i++)
    net.push_back(new Lin{w + i});
  double h = x;
  for (Lin *l : net)
    h = l->apply(h);
  for (Lin *l : net)
    delete l;
  return h;
}

struct grad2 {
  double dx, dw;
};
extern "C" grad2 __ad_gradient_2(...) AD_MARKER;

int main() {
  double x = 0.7, w = 1.3;
  grad2 g = __ad_gradient_2(owned_layers, x, w);
  double t = std::tanh(w * x), s = 1 - t * t;
  ad_deriv("owned_layers d/dx", g.dx, -0.5 * s * w, AD_FD(x, owned_layers(x, w)), AD_TOL_D);
  ad_deriv("owned_layers d/dw", g.dw, -0.5 * s * x, AD_FD(w, owned_layers(x, w)), AD_TOL_D);
  grad2 r = __ad_gradient_2(raw_layers, x, w);
  double p = 1, dp = 0;
  for (int i = 0; i < 5; i++) {
    dp = dp * (w + i) + p;
    p *= w + i;
  }
  ad_deriv("raw_layers d/dx", r.dx, p, AD_FD(x, raw_layers(x, w)), AD_TOL_D);
  ad_deriv("raw_layers d/dw", r.dw, x * dp, AD_FD(w, raw_layers(x, w)), AD_TOL_D);
  return ad_finish();
}
