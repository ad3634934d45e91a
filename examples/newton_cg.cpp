// Minimising the extended Rosenbrock function of 40 variables by Newton's
// method with conjugate gradients (Newton-CG), with ad.hpp:
//
//   ad::gradient(f, x)   the gradient, by reverse mode;
//   ad::hvp(f, x, v)     the Hessian times v, by nested derivatives.
//
// Newton-CG never forms the 40 x 40 Hessian: each Newton step solves
// H p = -g approximately by conjugate gradients, which only needs products
// H v. Before starting, one product is compared with central differences
// of the gradient.
//
//   clang++ -O2 -fpass-plugin=build/pass/libADPass.so -Iinclude \
//           examples/newton_cg.cpp build/runtime/libADRuntime.a -lm
#include <ad.hpp>
#include <cmath>
#include <cstdio>
#include <vector>

using Vector = std::vector<double>;

// sum over pairs (x_{2i}, x_{2i+1}) of 100 (x_{2i+1} - x_{2i}^2)^2 +
// (1 - x_{2i})^2; its minimum is 0, at x = (1, ..., 1).
double rosenbrock(const Vector &x) {
  double sum = 0;
  for (size_t i = 0; i + 1 < x.size(); i += 2) {
    double a = x[i + 1] - x[i] * x[i], b = 1 - x[i];
    sum += 100 * a * a + b * b;
  }
  return sum;
}

static double dot(const Vector &a, const Vector &b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i)
    s += a[i] * b[i];
  return s;
}

// Conjugate gradients on (H + shift I) p = -g, stopped when the residual
// is small relative to |g|. Returns false when a direction of negative
// curvature shows up: then H + shift I is not positive definite, and the
// caller retries with a larger shift.
static bool newton_direction(const Vector &x, const Vector &g, double shift,
                             Vector &p, int &iters) {
  size_t n = x.size();
  Vector r(n), d(n);
  p.assign(n, 0.0);
  for (size_t i = 0; i < n; ++i)
    d[i] = r[i] = -g[i];
  double rr = dot(r, r);
  double tol = std::fmin(0.5, std::sqrt(std::sqrt(rr))) * std::sqrt(rr);
  for (iters = 0; iters < 2 * (int)n && std::sqrt(rr) > tol; ++iters) {
    Vector hd = ad::hvp(rosenbrock, x, d);
    for (size_t i = 0; i < n; ++i)
      hd[i] += shift * d[i];
    double curvature = dot(d, hd);
    if (curvature <= 0)
      return false;
    double alpha = rr / curvature;
    for (size_t i = 0; i < n; ++i) {
      p[i] += alpha * d[i];
      r[i] -= alpha * hd[i];
    }
    double rr_next = dot(r, r);
    for (size_t i = 0; i < n; ++i)
      d[i] = r[i] + rr_next / rr * d[i];
    rr = rr_next;
  }
  return true;
}

// One Hessian-vector product against central differences of the gradient
// along v; true if they agree.
static bool check_hvp(const Vector &x) {
  size_t n = x.size();
  Vector v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = std::cos(1.0 + i);
  Vector hv = ad::hvp(rosenbrock, x, v);
  const double h = 1e-6;
  Vector up(x), down(x);
  for (size_t i = 0; i < n; ++i) {
    up[i] += h * v[i];
    down[i] -= h * v[i];
  }
  Vector g_up = ad::gradient(rosenbrock, up);
  Vector g_down = ad::gradient(rosenbrock, down);
  double worst = 0;
  std::printf("%4s %18s %18s\n", "i", "(H v)_i ADPass", "finite diff.");
  for (size_t i = 0; i < n; ++i) {
    double fd = (g_up[i] - g_down[i]) / (2 * h);
    worst =
        std::fmax(worst, std::fabs(hv[i] - fd) / std::fmax(std::fabs(fd), 1));
    if (i < 4)
      std::printf("%4zu %18.8f %18.8f\n", i, hv[i], fd);
  }
  std::printf("largest relative difference over %zu entries: %.1e\n", n, worst);
  return worst < 1e-6;
}

int main() {
  const size_t n = 40;
  Vector x(n);
  for (size_t i = 0; i < n; ++i)
    x[i] = i % 2 ? 1.0 : -1.2 + 0.01 * i; // near the classical (-1.2, 1)
  bool ok = check_hvp(x);

  std::printf("\n%5s %16s %12s %9s %9s\n", "iter", "f(x)", "|grad f|", "shift",
              "CG steps");
  double f = rosenbrock(x), gnorm = 0, shift = 0;
  for (int iter = 0; iter < 100; ++iter) {
    Vector g = ad::gradient(rosenbrock, x);
    gnorm = std::sqrt(dot(g, g));
    std::printf("%5d %16.10g %12.4e", iter, f, gnorm);
    if (gnorm < 1e-10)
      break;
    Vector p;
    int cg_steps;
    while (!newton_direction(x, g, shift, p, cg_steps))
      shift = std::fmax(1, 10 * shift);
    std::printf(" %9.1e %9d\n", shift, cg_steps);
    // Backtracking line search on the Newton step; a full step makes the
    // shift smaller, a shortened one larger.
    double t = 1, slope = dot(g, p);
    Vector trial(n);
    for (;;) {
      for (size_t i = 0; i < n; ++i)
        trial[i] = x[i] + t * p[i];
      double ft = rosenbrock(trial);
      if (ft <= f + 1e-4 * t * slope || t < 1e-10) {
        x = trial;
        f = ft;
        break;
      }
      t *= 0.5;
    }
    shift = t == 1 ? 0.1 * shift : std::fmax(1, 10 * shift);
  }
  std::printf("\n");
  double distance = 0;
  for (double e : x)
    distance = std::fmax(distance, std::fabs(e - 1));
  std::printf("f = %.3g, |grad f| = %.3g, max |x_i - 1| = %.3g\n", f, gnorm,
              distance);
  ok &= gnorm < 1e-10 && distance < 1e-8;
  std::printf("%s\n", ok ? "Hessian-vector product matches finite "
                           "differences; converged to the minimum"
                         : "FAILED: Hessian-vector product and finite "
                           "differences disagree, or no convergence");
  return ok ? 0 : 1;
}
