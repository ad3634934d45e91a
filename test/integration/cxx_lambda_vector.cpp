// C++ closures and containers: pointers stored in memory (closure captures
// by reference, std::vector's heap storage, std::array) followed through
// their shadows.
//   - a lambda capturing active parameters by reference, called twice with
//     different arguments inside the differentiated function; a lambda
//     capturing a pointer parameter (an array) by reference; a lambda
//     capturing by value; a lambda passed to a template helper;
//   - std::vector<double> losses: the caller passes a shadow vector of the
//     same size filled with zeros, by pointer (&w, &dw); the data vector x
//     AD_CONST. Softplus over w[i] x[i] through operator[], logsumexp
//     through range-for and through iterators, std::inner_product and
//     std::accumulate; a vector modified in place (VJP); a vector returned
//     by value from a helper;
//   - std::array<double, N> through operator[] and range-for;
//   - a struct whose members point to arrays (shadow: same shape, pointing
//     to the shadow arrays), plus an active double member;
//   - forward mode on a vector loss.
//
// RUN: %adcxx -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcxx -O2 %s -o %t.O2 %adlibs && %t.O2

#include "ad.h"
#include "adcheck.h"
#include <array>
#include <cmath>
#include <numeric>
#include <vector>

struct grad2 {
  double da, db;
};
extern "C" grad2 __ad_gradient_2(...) AD_MARKER;

using vec = std::vector<double>;

// ---------------------------------------------------------------------------
// Lambdas.

// f(t) = a sin(t) + b t^2, captured by reference; L = f(a) f(2b) + f(a b).
double lam_ref(double a, double b) {
  auto f = [&](double t) { return a * std::sin(t) + b * t * t; };
  return f(a) * f(2 * b) + f(a * b);
}

// Captures the pointer parameter w (by reference, so the closure holds the
// address of the pointer variable) and n.
double lam_array(const double *w, int n, double s) {
  auto dot_shift = [&](double shift) {
    double acc = 0;
    for (int i = 0; i < n; i++)
      acc += (w[i] + shift) * (w[i] + shift) * (i + 1);
    return acc;
  };
  return dot_shift(s) - dot_shift(-0.5 * s) * s;
}

// Capture by value, and a lambda passed to a template.
template <typename F> static double twice(F f, double x) { return f(f(x)); }
double lam_value(double a, double x) {
  auto g = [a](double t) { return std::exp(-a * t) + t; };
  return twice(g, x) * a;
}

// ---------------------------------------------------------------------------
// std::vector<double>.

static double softplus(double z) { return z > 0 ? z + std::log1p(std::exp(-z)) : std::log1p(std::exp(z)); }
static double sigmoid(double z) { return 1 / (1 + std::exp(-z)); }

// sum_i softplus(w[i] x[i]) + 0.1 sum_i w[i]^2, through operator[].
double softplus_loss(const vec &w, const vec &x) {
  double s = 0;
  for (size_t i = 0; i < w.size(); i++)
    s += softplus(w[i] * x[i]);
  double r = 0;
  for (size_t i = 0; i < w.size(); i++)
    r += w[i] * w[i];
  return s + 0.1 * r;
}

// logsumexp_i(w[i] x[i]) with the max subtracted, range-for and iterators.
double lse_loss(const vec &w, const vec &x) {
  double m = -1e300;
  auto xi = x.begin();
  for (double wi : w) {
    double z = wi * *xi++;
    m = z > m ? z : m;
  }
  double s = 0;
  for (auto it = w.begin(), jt = x.begin(); it != w.end(); ++it, ++jt)
    s += std::exp(*it * *jt - m);
  return m + std::log(s);
}

// <w, x>^2 / 2 + sum w, through the <numeric> algorithms.
double numeric_loss(const vec &w, const vec &x) {
  double d = std::inner_product(w.begin(), w.end(), x.begin(), 0.0);
  double t = std::accumulate(w.begin(), w.end(), 0.0);
  return 0.5 * d * d + t;
}

// In place: v[i] <- v[i]^2 * c + v[i+1] (in order, so v[i+1] is old).
void vec_update(vec &v, double c) {
  for (size_t i = 0; i + 1 < v.size(); i++)
    v[i] = v[i] * v[i] * c + v[i + 1];
}

// ---------------------------------------------------------------------------
// std::array.

constexpr int N = 5;
double array_loss(const std::array<double, N> &a, double k) {
  double s = 0;
  for (int i = 0; i < N; i++)
    s += std::sin(k * a[i]) * a[(i + 1) % N];
  for (double v : a)
    s += 0.5 * v * v * v;
  return s;
}

// ---------------------------------------------------------------------------
// A struct whose members point to arrays (its shadow: a struct of the same
// shape pointing to the shadow arrays).

struct Model {
  const double *coef;
  const double *xs;
  int n;
  double bias;
};
double model_loss(const Model *m) {
  double s = 0;
  for (int i = 0; i < m->n; i++) {
    double r = m->coef[i] * m->xs[i] + m->bias;
    s += r * r;
  }
  return std::sqrt(s);
}

// ---------------------------------------------------------------------------

static volatile double vin[12] = {0.8,  -0.3, 1.1, 0.45, -0.7, 0.25,
                                  -1.2, 0.9,  0.6, -0.15, 1.4, 0.35};
static volatile int vn = 7;

// A vector built and returned by value by a helper (its storage pointers
// start out null), then summed: d/dv_i = 2 v_i.
std::vector<double> squares(const std::vector<double> &v) {
  std::vector<double> r(v.size());
  for (size_t i = 0; i < v.size(); i++)
    r[i] = v[i] * v[i];
  return r;
}
double sum_of_squares(const std::vector<double> &v) {
  std::vector<double> r = squares(v);
  double s = 0;
  for (double e : r)
    s += e;
  return s;
}

int main() {
  int n = vn;

  // Lambda capturing by reference.
  {
    double a = vin[0], b = vin[3];
    grad2 g = __ad_gradient_2(lam_ref, a, b);
    auto f = [&](double t) { return a * std::sin(t) + b * t * t; };
    // partials of f(t): f_a = sin t, f_b = t^2, f_t = a cos t + 2 b t
    auto ft = [&](double t) { return a * std::cos(t) + 2 * b * t; };
    double F1 = f(a), F2 = f(2 * b);
    double F1_a = std::sin(a) + ft(a), F1_b = a * a;
    double F2_a = std::sin(2 * b), F2_b = 4 * b * b + 2 * ft(2 * b);
    double F3_a = std::sin(a * b) + ft(a * b) * b, F3_b = a * a * b * b + ft(a * b) * a;
    ad_deriv("lam_ref d/da", g.da, F1_a * F2 + F1 * F2_a + F3_a, AD_FD(a, lam_ref(a, b)),
             AD_TOL_D);
    ad_deriv("lam_ref d/db", g.db, F1_b * F2 + F1 * F2_b + F3_b, AD_FD(b, lam_ref(a, b)),
             AD_TOL_D);
    double t = __ad_derivative(lam_ref, a, 0.4, b, -1.3);
    ad_check("lam_ref forward", t, 0.4 * g.da - 1.3 * g.db, 1e-12, 1e-14);
  }

  // Lambda capturing an array pointer by reference.
  {
    double w[5], dw[5] = {0}, s = vin[4];
    for (int i = 0; i < 5; i++)
      w[i] = vin[i + 5];
    double ds = __ad_gradient(lam_array, w, dw, 5, s);
    // L = A(s) - s A(-s/2), A(u) = sum (w_i+u)^2 (i+1).
    double A2 = 0, dA1 = 0, dA2 = 0;
    for (int i = 0; i < 5; i++) {
      A2 += (w[i] - 0.5 * s) * (w[i] - 0.5 * s) * (i + 1);
      dA1 += 2 * (w[i] + s) * (i + 1);
      dA2 += 2 * (w[i] - 0.5 * s) * (i + 1);
    }
    ad_deriv("lam_array d/ds", ds, dA1 - A2 + 0.5 * s * dA2, AD_FD(s, lam_array(w, 5, s)),
             AD_TOL_D);
    for (int i = 0; i < 5; i++)
      ad_deriv(ad_fmt("lam_array d/dw[%d]", i), dw[i],
               2 * (w[i] + s) * (i + 1) - s * 2 * (w[i] - 0.5 * s) * (i + 1),
               AD_FD(w[i], lam_array(w, 5, s)), AD_TOL_D);
  }

  // Lambda by value, through a template.
  {
    double a = vin[8], x = vin[9];
    grad2 g = __ad_gradient_2(lam_value, a, x);
    double y = std::exp(-a * x) + x, z = std::exp(-a * y) + y;
    double y_a = -x * std::exp(-a * x), y_x = 1 - a * std::exp(-a * x);
    double z_y = 1 - a * std::exp(-a * y);
    double z_a = -y * std::exp(-a * y) + z_y * y_a, z_x = z_y * y_x;
    ad_deriv("lam_value d/da", g.da, z + a * z_a, AD_FD(a, lam_value(a, x)), AD_TOL_D);
    ad_deriv("lam_value d/dx", g.db, a * z_x, AD_FD(x, lam_value(a, x)), AD_TOL_D);
  }

  // std::vector losses, x AD_CONST.
  {
    vec w(n), x(n);
    for (int i = 0; i < n; i++) {
      w[i] = vin[i];
      x[i] = vin[i + 4] * 1.5;
    }
    vec dw(n, 0.0);
    __ad_gradient_void(softplus_loss, &w, &dw, AD_CONST, &x);
    for (int i = 0; i < n; i++)
      ad_deriv(ad_fmt("softplus_loss d/dw[%d]", i), dw[i],
               sigmoid(w[i] * x[i]) * x[i] + 0.2 * w[i], AD_FD(w[i], softplus_loss(w, x)),
               AD_TOL_D);

    // logsumexp: softmax weights times x.
    vec dl(n, 0.0);
    __ad_gradient_void(lse_loss, &w, &dl, AD_CONST, &x);
    double m = -1e300, Z = 0;
    for (int i = 0; i < n; i++)
      m = std::fmax(m, w[i] * x[i]);
    for (int i = 0; i < n; i++)
      Z += std::exp(w[i] * x[i] - m);
    for (int i = 0; i < n; i++)
      ad_deriv(ad_fmt("lse_loss d/dw[%d]", i), dl[i], std::exp(w[i] * x[i] - m) / Z * x[i],
               AD_FD(w[i], lse_loss(w, x)), AD_TOL_D);

    // Accumulation into a nonzero shadow (+=), then <numeric>.
    vec dn(n, 1.0);
    __ad_gradient_void(numeric_loss, &w, &dn, AD_CONST, &x);
    double d = 0;
    for (int i = 0; i < n; i++)
      d += w[i] * x[i];
    for (int i = 0; i < n; i++)
      ad_deriv(ad_fmt("numeric_loss d/dw[%d] (+1)", i), dn[i], 1 + d * x[i] + 1,
               1 + AD_FD(w[i], numeric_loss(w, x)), AD_TOL_D);

    // Both vectors active.
    vec dw2(n, 0.0), dx2(n, 0.0);
    __ad_gradient_void(softplus_loss, &w, &dw2, &x, &dx2);
    for (int i = 0; i < n; i++) {
      ad_check(ad_fmt("softplus_loss (both) d/dw[%d]", i), dw2[i], dw[i], 1e-12, 1e-15);
      ad_deriv(ad_fmt("softplus_loss d/dx[%d]", i), dx2[i], sigmoid(w[i] * x[i]) * w[i],
               AD_FD(x[i], softplus_loss(w, x)), AD_TOL_D);
    }

    // Forward mode: tangent t on w, x constant.
    vec tw(n);
    double want = 0, fd = 0;
    for (int i = 0; i < n; i++) {
      tw[i] = 0.1 * (i + 1) - 0.3;
      want += tw[i] * dl[i];
    }
    double eps = 0; // directional FD along tw
    auto along = [&](double e) {
      vec v(w);
      for (int i = 0; i < n; i++)
        v[i] += e * tw[i];
      return lse_loss(v, x);
    };
    fd = AD_FD(eps, along(eps));
    double jvp = __ad_derivative(lse_loss, &w, &tw, AD_CONST, &x);
    ad_deriv("lse_loss forward along tw", jvp, want, fd, AD_TOL_D);
  }

  // In-place update of a vector: seed the final contents' cotangent, get the
  // initial contents' cotangent; c active.
  {
    vec v(n), v0(n);
    for (int i = 0; i < n; i++)
      v0[i] = v[i] = vin[i + 2];
    double c = vin[11];
    vec seed(n), dv(n);
    for (int i = 0; i < n; i++)
      dv[i] = seed[i] = 0.5 - 0.2 * i;
    double dc = __ad_gradient(vec_update, &v, &dv, c);
    double wc = 0;
    for (int i = 0; i + 1 < n; i++) {
      ad_check(ad_fmt("vec_update primal v[%d]", i), v[i], v0[i] * v0[i] * c + v0[i + 1], 1e-15, 0);
      wc += seed[i] * v0[i] * v0[i];
    }
    auto proj = [&](const vec &u, double cc) {
      vec t(u);
      vec_update(t, cc);
      double r = 0;
      for (int i = 0; i < n; i++)
        r += seed[i] * t[i];
      return r;
    };
    ad_deriv("vec_update d/dc", dc, wc, AD_FD(c, proj(v0, c)), AD_TOL_D);
    for (int i = 0; i < n; i++) {
      double want = (i + 1 < n ? seed[i] * 2 * v0[i] * c : seed[i]) + (i > 0 ? seed[i - 1] : 0);
      vec u(v0);
      ad_deriv(ad_fmt("vec_update d/dv0[%d]", i), dv[i], want, AD_FD(u[i], proj(u, c)),
               AD_TOL_D);
    }
  }

  // std::array.
  {
    std::array<double, N> a, da{};
    for (int i = 0; i < N; i++)
      a[i] = vin[i + 1];
    double k = vin[10];
    double dk = __ad_gradient(array_loss, &a, &da, k);
    double wk = 0;
    for (int i = 0; i < N; i++)
      wk += a[i] * std::cos(k * a[i]) * a[(i + 1) % N];
    ad_deriv("array_loss d/dk", dk, wk, AD_FD(k, array_loss(a, k)), AD_TOL_D);
    for (int i = 0; i < N; i++) {
      int p = (i + N - 1) % N;
      double want = k * std::cos(k * a[i]) * a[(i + 1) % N] + std::sin(k * a[p]) +
                    1.5 * a[i] * a[i];
      ad_deriv(ad_fmt("array_loss d/da[%d]", i), da[i], want, AD_FD(a[i], array_loss(a, k)),
               AD_TOL_D);
    }
  }

  // Struct members pointing to arrays.
  {
    double c[4], xs[4], dc[4] = {0}, dxs[4] = {0};
    for (int i = 0; i < 4; i++) {
      c[i] = vin[i + 3];
      xs[i] = vin[i] + 0.5;
    }
    Model m = {c, xs, 4, vin[11]}, dm = {dc, dxs, 4, 0.0};
    __ad_gradient_void(model_loss, &m, &dm);
    double S = model_loss(&m), wb = 0;
    for (int i = 0; i < 4; i++) {
      double r = c[i] * xs[i] + m.bias;
      wb += r / S;
      ad_deriv(ad_fmt("model_loss d/dcoef[%d]", i), dc[i], r * xs[i] / S,
               AD_FD(c[i], model_loss(&m)), AD_TOL_D);
      ad_deriv(ad_fmt("model_loss d/dxs[%d]", i), dxs[i], r * c[i] / S,
               AD_FD(xs[i], model_loss(&m)), AD_TOL_D);
    }
    ad_deriv("model_loss d/dbias", dm.bias, wb, AD_FD(m.bias, model_loss(&m)), AD_TOL_D);
  }

  {
    std::vector<double> v = {0.3, -0.7, 1.1}, dv(3, 0.0);
    __ad_gradient((void *)sum_of_squares, &v, &dv);
    for (int i = 0; i < 3; i++)
      ad_deriv(ad_fmt("vector returned by value d/dv%d", i), dv[i], 2 * v[i],
               AD_FD(v[i], sum_of_squares(v)), AD_TOL_D);
  }
  {
    // A capture-less lambda as the request's target, converted to a
    // function pointer: at -O0 a call of its conversion operator, which
    // was "the first argument must name a function".
    double u = 0.7;
    double g = __ad_gradient(+[](double v) { return v * std::sin(v); }, u);
    ad_check("lambda target", g, std::sin(u) + u * std::cos(u), 1e-15, 0);
  }
  return ad_finish();
}
