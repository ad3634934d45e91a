// C++ classes: a hierarchy with a virtual `double energy() const` and a
// virtual `double work(double s) const`, differentiated through a
// base-class pointer or reference (the call goes through the plugin's
// dispatcher over the address-taken overriders); the shadow object is the
// same derived type with zero members, so its members receive the
// gradient. Also: a two-level hierarchy whose override calls the base
// version non-virtually, member functions (non-virtual helpers, const),
// `const double&` parameters (passed as pointer + shadow), a template
// function instantiated for float and double, std::max / std::min,
// std::sin / std::exp / std::cos / std::sqrt, structs returned by value from
// helpers (two doubles in registers and three doubles through sret), an
// overloaded operator on such a struct, an array of base pointers (with an
// array of pointers to the shadow objects), and the object passed AD_CONST
// (its virtual call is still differentiated w.r.t. the active scalar).
// An object made and deleted inside the function: `delete` through the
// base pointer is a virtual call of the deleting destructor, whose
// candidates include the abstract base's, a trap that never returns (an
// internal error at -O0 before).
//
// RUN: %adcxx -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcxx -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcxx -fno-exceptions -O0 %s -o %t.noexc %adlibs && %t.noexc

#include "ad.h"
#include "adcheck.h"
#include <algorithm>
#include <cmath>

struct grad2 {
  double da, db;
};
extern "C" grad2 __ad_gradient_2(...) AD_MARKER;

// ---------------------------------------------------------------------------
// Hierarchy.

struct Body {
  virtual ~Body() = default;
  virtual double energy() const = 0;
  // Work done along a path parameter s.
  virtual double work(double s) const { return s * energy(); }
};

struct Spring : Body {
  double k, x;
  Spring(double k_, double x_) : k(k_), x(x_) {}
  double energy() const override { return 0.5 * k * x * x; }
  double work(double s) const override { return 0.5 * k * (x + s) * (x + s); }
};

struct Pendulum : Body {
  double m, len, theta;
  Pendulum(double m_, double l_, double t_) : m(m_), len(l_), theta(t_) {}
  double height() const { return len * (1 - std::cos(theta)); }
  double energy() const override { return m * 9.81 * height(); }
};

struct Particle : Body {
  double m, vx, vy;
  Particle(double m_, double vx_, double vy_) : m(m_), vx(vx_), vy(vy_) {}
  double speed2() const { return vx * vx + vy * vy; }
  double energy() const override { return 0.5 * m * speed2(); }
};

// Two levels: the override adds to the base version, called non-virtually.
struct Charged : Particle {
  double q, phi;
  Charged(double m_, double vx_, double vy_, double q_, double phi_)
      : Particle(m_, vx_, vy_), q(q_), phi(phi_) {}
  double energy() const override {
    return Particle::energy() + q * phi * std::exp(-0.5 * phi);
  }
};

double total(const Body *b) { return b->energy(); }
double total_ref(const Body &b) { return b.energy() * b.energy() + b.energy(); }
double work_at(const Body *b, double s) { return b->work(s) + std::sin(s) * b->energy(); }
// An array of base pointers (its shadow: an array of pointers to the shadow
// objects).
double total_all(const Body *const *bs, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += bs[i]->energy();
  return s * s;
}

// ---------------------------------------------------------------------------
// References, templates, std::max / std::min, structs by value.

static double sq_sin(const double &a, const double &b) { return a * a * std::sin(b); }
double refs(const double &x, const double &y) { return sq_sin(x, y) + sq_sin(y, x); }

template <typename T> T soft_clamp(T x, T lo, T hi) {
  T c = std::min(std::max(x, lo), hi);
  return c * c + std::sin(x) * std::exp(-x * x / 4);
}

struct Vec2 {
  double x, y;
};
struct Vec3 {
  double x, y, z;
};
static Vec2 operator+(Vec2 a, Vec2 b) { return {a.x + b.x, a.y + b.y}; }
__attribute__((noinline)) static Vec2 rotate(Vec2 v, double ang) {
  double c = std::cos(ang), s = std::sin(ang);
  return {c * v.x - s * v.y, s * v.x + c * v.y};
}
__attribute__((noinline)) static Vec3 cross(const Vec3 &a, const Vec3 &b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
double structs(double a, double b) {
  Vec2 v = rotate(Vec2{a, 1.0}, b) + Vec2{b, a * b};
  Vec3 w = cross(Vec3{a, b, 1.0}, Vec3{v.x, v.y, a});
  return w.x * w.x + w.y * std::sqrt(1 + w.z * w.z) + std::max(v.x, v.y);
}

// A class with state and non-virtual const member functions.
class Poly {
public:
  Poly(double c0, double c1, double c2) : c_{c0, c1, c2} {}
  double operator()(double x) const { return c_[0] + x * (c_[1] + x * c_[2]); }
  double slope(double x) const { return c_[1] + 2 * x * c_[2]; }
  double coef(int i) const { return c_[i]; }

private:
  double c_[3];
};
double poly_obj(const Poly *p, double x) { return (*p)(x) * p->slope(x); }

// ---------------------------------------------------------------------------

static volatile double vin[8] = {1.7, 0.6, 0.45, 1.2, 0.8, 0.35, -0.9, 0.55};
static volatile int vsel = 0;

static const Body *make(int which, double a, double b, double c) {
  switch (which) {
  case 0: return new Spring(a, b);
  case 1: return new Pendulum(a, b, c);
  case 2: return new Particle(a, b, c);
  default: return new Charged(a, b, c, 0.9 * a, 0.7 * c);
  }
}

// A variable made static so that the object's type is not folded away.
static volatile int owned_kind = 0;
double owned(double k, double x) {
  const Body *b = owned_kind ? static_cast<const Body *>(new Particle(k, x, 1))
                             : new Spring(k, x);
  double e = b->energy();
  delete b;
  return e;
}

int main(int argc, char **) {
  int base = vsel + argc - 1; // 0 when run without arguments
  double a = vin[0], b = vin[1], c = vin[2];

  // energy() through a base pointer, for each derived type, the type picked
  // at run time.
  for (int w = 0; w < 4; w++) {
    int which = base + w;
    const Body *obj = make(which, a, b, c);
    double e = total(obj);
    switch (which) {
    case 0: {
      const Spring &s = *static_cast<const Spring *>(obj);
      Spring ds(0, 0);
      __ad_gradient_void(total, obj, static_cast<const Body *>(&ds));
      Spring t = s;
      ad_check("Spring energy", e, 0.5 * a * b * b, 1e-15, 0);
      ad_deriv("Spring d/dk", ds.k, 0.5 * b * b, AD_FD(t.k, total(&t)), AD_TOL_D);
      ad_deriv("Spring d/dx", ds.x, a * b, AD_FD(t.x, total(&t)), AD_TOL_D);
      Spring dr(0, 0);
      __ad_gradient_void(total_ref, obj, static_cast<const Body *>(&dr));
      ad_deriv("Spring total_ref d/dk", dr.k, (2 * e + 1) * 0.5 * b * b,
               AD_FD(t.k, total_ref(t)), AD_TOL_D);
      ad_deriv("Spring total_ref d/dx", dr.x, (2 * e + 1) * a * b,
               AD_FD(t.x, total_ref(t)), AD_TOL_D);
      // work(s) is overridden: 0.5 k (x+s)^2 + sin(s) E.
      double s_ = vin[3];
      Spring dw(0, 0);
      double ds_ = __ad_gradient(work_at, obj, static_cast<const Body *>(&dw), s_);
      ad_deriv("Spring work d/ds", ds_, a * (b + s_) + std::cos(s_) * e,
               AD_FD(s_, work_at(&t, s_)), AD_TOL_D);
      ad_deriv("Spring work d/dk", dw.k, 0.5 * (b + s_) * (b + s_) + std::sin(s_) * 0.5 * b * b,
               AD_FD(t.k, work_at(&t, s_)), AD_TOL_D);
      ad_deriv("Spring work d/dx", dw.x, a * (b + s_) + std::sin(s_) * a * b,
               AD_FD(t.x, work_at(&t, s_)), AD_TOL_D);
      // The object AD_CONST: only s is active, the virtual call still
      // differentiated.
      double dsc = __ad_gradient(work_at, AD_CONST, obj, s_);
      ad_check("Spring work d/ds, object AD_CONST", dsc, ds_, 1e-12, 0);
      break;
    }
    case 1: {
      Pendulum dp(0, 0, 0), t = *static_cast<const Pendulum *>(obj);
      __ad_gradient_void(total, obj, static_cast<const Body *>(&dp));
      double g = 9.81, h = b * (1 - std::cos(c));
      ad_check("Pendulum energy", e, a * g * h, 1e-14, 0);
      ad_deriv("Pendulum d/dm", dp.m, g * h, AD_FD(t.m, total(&t)), AD_TOL_D);
      ad_deriv("Pendulum d/dlen", dp.len, a * g * (1 - std::cos(c)),
               AD_FD(t.len, total(&t)), AD_TOL_D);
      ad_deriv("Pendulum d/dtheta", dp.theta, a * g * b * std::sin(c),
               AD_FD(t.theta, total(&t)), AD_TOL_D);
      // work(s) not overridden: Body::work = s E, plus sin(s) E.
      double s_ = vin[3];
      Pendulum dw(0, 0, 0);
      double ds_ = __ad_gradient(work_at, obj, static_cast<const Body *>(&dw), s_);
      ad_deriv("Pendulum work d/ds", ds_, e + std::cos(s_) * e, AD_FD(s_, work_at(&t, s_)),
               AD_TOL_D);
      ad_deriv("Pendulum work d/dtheta", dw.theta, (s_ + std::sin(s_)) * a * g * b * std::sin(c),
               AD_FD(t.theta, work_at(&t, s_)), AD_TOL_D);
      break;
    }
    case 2: {
      Particle dq(0, 0, 0), t = *static_cast<const Particle *>(obj);
      __ad_gradient_void(total, obj, static_cast<const Body *>(&dq));
      ad_deriv("Particle d/dm", dq.m, 0.5 * (b * b + c * c), AD_FD(t.m, total(&t)), AD_TOL_D);
      ad_deriv("Particle d/dvx", dq.vx, a * b, AD_FD(t.vx, total(&t)), AD_TOL_D);
      ad_deriv("Particle d/dvy", dq.vy, a * c, AD_FD(t.vy, total(&t)), AD_TOL_D);
      break;
    }
    default: {
      Charged dc(0, 0, 0, 0, 0), t = *static_cast<const Charged *>(obj);
      __ad_gradient_void(total, obj, static_cast<const Body *>(&dc));
      double q = 0.9 * a, phi = 0.7 * c, E = std::exp(-0.5 * phi);
      ad_check("Charged energy", e, 0.5 * a * (b * b + c * c) + q * phi * E, 1e-14, 0);
      ad_deriv("Charged d/dm", dc.m, 0.5 * (b * b + c * c), AD_FD(t.m, total(&t)), AD_TOL_D);
      ad_deriv("Charged d/dvx", dc.vx, a * b, AD_FD(t.vx, total(&t)), AD_TOL_D);
      ad_deriv("Charged d/dvy", dc.vy, a * c, AD_FD(t.vy, total(&t)), AD_TOL_D);
      ad_deriv("Charged d/dq", dc.q, phi * E, AD_FD(t.q, total(&t)), AD_TOL_D);
      ad_deriv("Charged d/dphi", dc.phi, q * E * (1 - 0.5 * phi), AD_FD(t.phi, total(&t)),
               AD_TOL_D);
      break;
    }
    }
    delete obj;
  }

  // An array of base pointers: L = (E_spring + E_pendulum + E_charged)^2.
  {
    Spring s(a, b), ds(0, 0);
    Pendulum p(c, b, a), dp(0, 0, 0);
    Charged q(b, c, a, vin[3], vin[4]), dq(0, 0, 0, 0, 0);
    const Body *bs[3] = {&s, &p, &q}, *dbs[3] = {&ds, &dp, &dq};
    __ad_gradient_void(total_all, bs, dbs, 3);
    double E = s.energy() + p.energy() + q.energy(), L2 = 2 * E;
    double eq = std::exp(-0.5 * q.phi);
    ad_deriv("total_all d/dSpring.k", ds.k, L2 * 0.5 * b * b, AD_FD(s.k, total_all(bs, 3)),
             AD_TOL_D);
    ad_deriv("total_all d/dSpring.x", ds.x, L2 * a * b, AD_FD(s.x, total_all(bs, 3)), AD_TOL_D);
    ad_deriv("total_all d/dPendulum.theta", dp.theta, L2 * c * 9.81 * b * std::sin(a),
             AD_FD(p.theta, total_all(bs, 3)), AD_TOL_D);
    ad_deriv("total_all d/dPendulum.len", dp.len, L2 * c * 9.81 * (1 - std::cos(a)),
             AD_FD(p.len, total_all(bs, 3)), AD_TOL_D);
    ad_deriv("total_all d/dCharged.vy", dq.vy, L2 * b * a, AD_FD(q.vy, total_all(bs, 3)),
             AD_TOL_D);
    ad_deriv("total_all d/dCharged.phi", dq.phi, L2 * q.q * eq * (1 - 0.5 * q.phi),
             AD_FD(q.phi, total_all(bs, 3)), AD_TOL_D);
  }

  // const double& parameters: pointer + shadow.
  {
    double x = vin[4], y = vin[5], dx = 0, dy = 0;
    __ad_gradient_void(refs, &x, &dx, &y, &dy);
    ad_deriv("refs d/dx", dx, 2 * x * std::sin(y) + y * y * std::cos(x),
             AD_FD(x, refs(x, y)), AD_TOL_D);
    ad_deriv("refs d/dy", dy, x * x * std::cos(y) + 2 * y * std::sin(x),
             AD_FD(y, refs(x, y)), AD_TOL_D);
  }

  // Template for double and float, across the three branches of the clamp.
  {
    static const double xs[3] = {-1.1, 0.3, 1.4}; // below lo, inside, above hi
    for (double x0 : xs) {
      double x = x0 + vin[7] - 0.55, lo = -0.5, hi = 1.0;
      double dclamp = (x > lo && x < hi) ? 2 * x : 0;
      double w = dclamp + std::exp(-x * x / 4) * (std::cos(x) - x / 2 * std::sin(x));
      ad_deriv(ad_fmt("soft_clamp<double>'(%g)", x),
               __ad_gradient(soft_clamp<double>, x, AD_CONST, lo, AD_CONST, hi), w,
               AD_FD(x, soft_clamp<double>(x, lo, hi)), AD_TOL_D);
      grad2 g = __ad_gradient_2(soft_clamp<double>, x, AD_CONST, lo, hi);
      ad_check(ad_fmt("soft_clamp<double> (x, hi) d/dx at %g", x), g.da, w, 1e-12, 0);
      ad_deriv(ad_fmt("soft_clamp<double> d/dhi at %g", x), g.db, x >= hi ? 2 * hi : 0,
               AD_FD(hi, soft_clamp<double>(x, lo, hi)), AD_TOL_D);
      float xf = static_cast<float>(x);
      double X = xf;
      double wf = ((X > lo && X < hi) ? 2 * X : 0) +
                  std::exp(-X * X / 4) * (std::cos(X) - X / 2 * std::sin(X));
      ad_deriv(ad_fmt("soft_clamp<float>'(%g)", X),
               __ad_gradient_f(soft_clamp<float>, xf, AD_CONST, -0.5f, AD_CONST, 1.0f), wf,
               AD_FD(xf, soft_clamp<float>(xf, -0.5f, 1.0f)), AD_TOL_F);
    }
  }

  // Structs returned by value.
  {
    double x = vin[5], y = vin[6];
    grad2 g = __ad_gradient_2(structs, x, y);
    // Analytic: v = (cos(y) x - sin(y) + y, sin(y) x + cos(y) + x y),
    // w = (y a - v.y, v.x - x a, x v.y - y v.x) with a = x, L as in structs().
    double C = std::cos(y), S = std::sin(y);
    double vx = C * x - S + y, vy = S * x + C + x * y;
    double vx_x = C, vx_y = -S * x - C + 1, vy_x = S + y, vy_y = C * x - S + x;
    double wx = y * x - vy, wy = vx - x * x, wz = x * vy - y * vx;
    double wx_x = y - vy_x, wx_y = x - vy_y;
    double wy_x = vx_x - 2 * x, wy_y = vx_y;
    double wz_x = vy + x * vy_x - y * vx_x, wz_y = x * vy_y - vx - y * vx_y;
    double r = std::sqrt(1 + wz * wz);
    bool xbig = vx > vy;
    double L_x = 2 * wx * wx_x + wy_x * r + wy * wz * wz_x / r + (xbig ? vx_x : vy_x);
    double L_y = 2 * wx * wx_y + wy_y * r + wy * wz * wz_y / r + (xbig ? vx_y : vy_y);
    ad_check("structs primal", structs(x, y), wx * wx + wy * r + std::max(vx, vy), 1e-13, 0);
    ad_deriv("structs d/da", g.da, L_x, AD_FD(x, structs(x, y)), AD_TOL_D);
    ad_deriv("structs d/db", g.db, L_y, AD_FD(y, structs(x, y)), AD_TOL_D);
  }

  // An object with private array state and const member functions.
  {
    Poly p(vin[0], vin[1], vin[2]), dp(0, 0, 0);
    double x = vin[3];
    double dx = __ad_gradient(poly_obj, &p, &dp, x);
    double c0 = vin[0], c1 = vin[1], c2 = vin[2];
    double P = c0 + x * (c1 + x * c2), D = c1 + 2 * x * c2;
    auto L = [&] {
      Poly q(c0, c1, c2);
      return poly_obj(&q, x);
    };
    ad_deriv("Poly d/dx", dx, D * D + P * 2 * c2, AD_FD(x, poly_obj(&p, x)), AD_TOL_D);
    ad_deriv("Poly d/dc0", dp.coef(0), D, AD_FD(c0, L()), AD_TOL_D);
    ad_deriv("Poly d/dc1", dp.coef(1), x * D + P, AD_FD(c1, L()), AD_TOL_D);
    ad_deriv("Poly d/dc2", dp.coef(2), x * x * D + P * 2 * x, AD_FD(c2, L()), AD_TOL_D);
  }

  {
    grad2 g = __ad_gradient_2(owned, a, b);
    ad_deriv("owned d/dk", g.da, 0.5 * b * b, AD_FD(a, owned(a, b)), AD_TOL_D);
    ad_deriv("owned d/dx", g.db, a * b, AD_FD(b, owned(a, b)), AD_TOL_D);
  }
  return ad_finish();
}
