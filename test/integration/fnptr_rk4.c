// Calls through function pointers: a classical RK4 integrator receives its
// right-hand side as a function pointer chosen at run time (from argc and a
// volatile), so the plugin differentiates the indirect calls through its
// dispatcher over the module's address-taken functions of that signature.
// The function pointer itself is passed AD_CONST; the program logic runs
// once per choice in the same run.
//   - 2-state system rhs(t, y, dy, k): the initial state through a pointer
//     with a shadow, the scalar k active. Choices: linear decay (checked
//     against the exact RK4 discrete solution R(z)^n and the continuous
//     exact solution) and a forced pendulum (finite differences, and the
//     forward-mode directional derivative against the gradient);
//   - the same with the parameters read through a pointer with a shadow,
//     rhs(t, y, dy, p);
//   - the right-hand side stored in a struct passed AD_CONST;
//   - a scalar ODE y' = f(t, y, k) picked from a table of three functions,
//     y0 and k both active (struct result);
//   - a table of unary functions mixing libm's (sin, exp, tanh) with the
//     file's own, called in a loop (libm functions were no dispatch
//     candidates: the derivative aborted at run time at -O0).
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2

#include "ad.h"
#include "adcheck.h"
#include <math.h>

typedef struct {
  double dy0, dk;
} grad2;
grad2 __ad_gradient_2(void *fn, ...) AD_MARKER;

#define T_END 2.0

typedef void (*rhs_t)(double t, const double *y, double *dy, double k);
typedef void (*prhs_t)(double t, const double *y, double *dy, const double *p);
typedef double (*srhs_t)(double t, double y, double k);

// ---------------------------------------------------------------------------
// 2-state right-hand sides, scalar parameter k.

// y0' = -k y0, y1' = -2k y1.
void decay(double t, const double *y, double *dy, double k) {
  (void)t;
  dy[0] = -k * y[0];
  dy[1] = -2 * k * y[1];
}

// theta' = omega, omega' = -k sin(theta) - 0.1 omega + 0.3 cos(t).
void pendulum(double t, const double *y, double *dy, double k) {
  dy[0] = y[1];
  dy[1] = -k * sin(y[0]) - 0.1 * y[1] + 0.3 * cos(t);
}

// L = y0(T) + y1(T)^2 after n RK4 steps.
double integrate(rhs_t f, const double *y0, double k, int n) {
  double h = T_END / n;
  double y[2] = {y0[0], y0[1]}, k1[2], k2[2], k3[2], k4[2], tmp[2];
  for (int i = 0; i < n; i++) {
    double t = i * h;
    f(t, y, k1, k);
    for (int j = 0; j < 2; j++)
      tmp[j] = y[j] + 0.5 * h * k1[j];
    f(t + 0.5 * h, tmp, k2, k);
    for (int j = 0; j < 2; j++)
      tmp[j] = y[j] + 0.5 * h * k2[j];
    f(t + 0.5 * h, tmp, k3, k);
    for (int j = 0; j < 2; j++)
      tmp[j] = y[j] + h * k3[j];
    f(t + h, tmp, k4, k);
    for (int j = 0; j < 2; j++)
      y[j] += h / 6 * (k1[j] + 2 * k2[j] + 2 * k3[j] + k4[j]);
  }
  return y[0] + y[1] * y[1];
}

// ---------------------------------------------------------------------------
// 2-state right-hand sides, parameters through a pointer.

// y0' = -p0 y0, y1' = -p1 y1.
void pdecay(double t, const double *y, double *dy, const double *p) {
  (void)t;
  dy[0] = -p[0] * y[0];
  dy[1] = -p[1] * y[1];
}

// Van der Pol-like: y0' = y1, y1' = p0 (1 - y0^2) y1 - p1 y0.
void pvdp(double t, const double *y, double *dy, const double *p) {
  (void)t;
  dy[0] = y[1];
  dy[1] = p[0] * (1 - y[0] * y[0]) * y[1] - p[1] * y[0];
}

// L = y0(T) + y1(T)^2 after n RK4 steps (stepping helper through f).
static void rk4_step_p(prhs_t f, double t, double h, double *y, const double *p) {
  double k1[2], k2[2], k3[2], k4[2], tmp[2];
  f(t, y, k1, p);
  for (int j = 0; j < 2; j++)
    tmp[j] = y[j] + 0.5 * h * k1[j];
  f(t + 0.5 * h, tmp, k2, p);
  for (int j = 0; j < 2; j++)
    tmp[j] = y[j] + 0.5 * h * k2[j];
  f(t + 0.5 * h, tmp, k3, p);
  for (int j = 0; j < 2; j++)
    tmp[j] = y[j] + h * k3[j];
  f(t + h, tmp, k4, p);
  for (int j = 0; j < 2; j++)
    y[j] += h / 6 * (k1[j] + 2 * k2[j] + 2 * k3[j] + k4[j]);
}

double integrate_p(prhs_t f, const double *y0, const double *p, int n) {
  double h = T_END / n, y[2] = {y0[0], y0[1]};
  for (int i = 0; i < n; i++)
    rk4_step_p(f, i * h, h, y, p);
  return y[0] + y[1] * y[1];
}

// ---------------------------------------------------------------------------
// The right-hand side inside a struct that carries no derivative.

struct ode {
  rhs_t f;
  int n;
};

double integrate_sys(const struct ode *sys, const double *y0, double k) {
  return integrate(sys->f, y0, k, sys->n);
}

// ---------------------------------------------------------------------------
// Scalar ODEs y' = f(t, y, k), picked from a table.

double logistic(double t, double y, double k) {
  (void)t;
  return k * y * (1 - y);
}
double forced(double t, double y, double k) { return -k * y + sin(t); }
double cubic(double t, double y, double k) { return k * y * y * y - t * y; }

static srhs_t const table[3] = {logistic, forced, cubic};

double integrate1(srhs_t f, double y, double k, int n) {
  double h = T_END / n;
  for (int i = 0; i < n; i++) {
    double t = i * h;
    double a = f(t, y, k);
    double b = f(t + 0.5 * h, y + 0.5 * h * a, k);
    double c = f(t + 0.5 * h, y + 0.5 * h * b, k);
    double d = f(t + h, y + h * c, k);
    y += h / 6 * (a + 2 * b + 2 * c + d);
  }
  return y * y + y;
}

// ---------------------------------------------------------------------------

static volatile int vsel[3] = {0, 1, 2};
static volatile int vsteps = 400;
static volatile double vy0a = 0.9, vy0b = -0.45, vk = 0.7;
static volatile double vp0 = 0.35, vp1 = 1.3;
static volatile double vs0 = 0.3, vsk = 0.8;

// RK4 stability polynomial R(z) and R'(z): one step of y' = lambda y is
// y <- R(h lambda) y exactly, so n steps give R(h lambda)^n y0.
static double R(double z) { return 1 + z + z * z / 2 + z * z * z / 6 + z * z * z * z / 24; }
static double dR(double z) { return 1 + z + z * z / 2 + z * z * z / 6; }

static void run_k(int choice, int n) {
  rhs_t f = choice ? pendulum : decay;
  const char *name = choice ? "pendulum" : "decay";
  double y0[2] = {vy0a, vy0b}, dy0[2] = {0.25, -0.5}, k = vk;
  double dk = __ad_gradient(integrate, AD_CONST, f, y0, dy0, k, n);
  double fd0 = AD_FD(y0[0], integrate(f, y0, k, n));
  double fd1 = AD_FD(y0[1], integrate(f, y0, k, n));
  double fdk = AD_FD(k, integrate(f, y0, k, n));
  double g0 = dy0[0] - 0.25, g1 = dy0[1] + 0.5; // shadows accumulate (+=)
  if (choice == 0) {
    double h = T_END / n, z1 = -k * h, z2 = -2 * k * h;
    double R1 = pow(R(z1), n), R2 = pow(R(z2), n);
    double y1 = y0[0] * R1, y2 = y0[1] * R2;
    ad_check("decay primal = R(z)^n y0", integrate(f, y0, k, n), y1 + y2 * y2, 1e-12, 0);
    ad_check("decay primal ~ exact ODE solution", integrate(f, y0, k, n),
             y0[0] * exp(-k * T_END) + pow(y0[1] * exp(-2 * k * T_END), 2), 1e-9, 0);
    double w0 = R1, w1 = 2 * y2 * R2;
    double wk = y0[0] * n * pow(R(z1), n - 1) * dR(z1) * -h +
                2 * y2 * y0[1] * n * pow(R(z2), n - 1) * dR(z2) * -2 * h;
    ad_deriv("decay d/dy0[0]", g0, w0, fd0, AD_TOL_D);
    ad_deriv("decay d/dy0[1]", g1, w1, fd1, AD_TOL_D);
    ad_deriv("decay d/dk", dk, wk, fdk, AD_TOL_D);
    // Continuous solution: L = a e^{-kT} + b^2 e^{-4kT}.
    double T = T_END;
    ad_check("decay d/dy0[0] ~ exact ODE", g0, exp(-k * T), 1e-8, 0);
    ad_check("decay d/dy0[1] ~ exact ODE", g1, 2 * y0[1] * exp(-4 * k * T), 1e-8, 0);
    ad_check("decay d/dk ~ exact ODE", dk,
             -T * y0[0] * exp(-k * T) - 4 * T * y0[1] * y0[1] * exp(-4 * k * T), 1e-8, 0);
  } else {
    ad_check("pendulum d/dy0[0] vs FD", g0, fd0, 1e-6, 1e-8);
    ad_check("pendulum d/dy0[1] vs FD", g1, fd1, 1e-6, 1e-8);
    ad_check("pendulum d/dk vs FD", dk, fdk, 1e-6, 1e-8);
  }
  // Forward mode through the same pointer: tangent (0.3, -1.1) on y0, 0.6 on k.
  double ty0[2] = {0.3, -1.1};
  double jvp = __ad_derivative(integrate, AD_CONST, f, y0, ty0, k, 0.6, n);
  ad_check(ad_fmt("%s forward = <gradient, tangent>", name), jvp,
           0.3 * g0 - 1.1 * g1 + 0.6 * dk, 1e-10, 1e-13);
  ad_check(ad_fmt("%s forward vs FD", name), jvp, 0.3 * fd0 - 1.1 * fd1 + 0.6 * fdk,
           1e-6, 1e-8);
  ad_check(ad_fmt("%s forward leaves the tangent input alone", name),
           ty0[0] + ty0[1], 0.3 - 1.1, 0, 0);

  // The same function pointer inside a struct passed AD_CONST.
  struct ode sys = {f, n};
  double dz[2] = {0, 0};
  double dk2 = __ad_gradient(integrate_sys, AD_CONST, &sys, y0, dz, k);
  ad_check(ad_fmt("%s via struct d/dy0[0]", name), dz[0], g0, 1e-12, 1e-15);
  ad_check(ad_fmt("%s via struct d/dy0[1]", name), dz[1], g1, 1e-12, 1e-15);
  ad_check(ad_fmt("%s via struct d/dk", name), dk2, dk, 1e-12, 1e-15);
}

static void run_p(int choice, int n) {
  prhs_t f = choice ? pvdp : pdecay;
  const char *name = choice ? "van der Pol" : "pdecay";
  double y0[2] = {vy0a, vy0b}, dy0[2] = {0, 0};
  double p[2] = {vp0, vp1}, dp[2] = {0, 0};
  __ad_gradient_void(integrate_p, AD_CONST, f, y0, dy0, p, dp, n);
  double fd[4] = {AD_FD(y0[0], integrate_p(f, y0, p, n)),
                  AD_FD(y0[1], integrate_p(f, y0, p, n)),
                  AD_FD(p[0], integrate_p(f, y0, p, n)),
                  AD_FD(p[1], integrate_p(f, y0, p, n))};
  double got[4] = {dy0[0], dy0[1], dp[0], dp[1]};
  static const char *const what[4] = {"d/dy0[0]", "d/dy0[1]", "d/dp[0]", "d/dp[1]"};
  if (choice == 0) {
    double h = T_END / n, z1 = -p[0] * h, z2 = -p[1] * h;
    double y2 = y0[1] * pow(R(z2), n);
    double want[4] = {pow(R(z1), n), 2 * y2 * pow(R(z2), n),
                      y0[0] * n * pow(R(z1), n - 1) * dR(z1) * -h,
                      2 * y2 * y0[1] * n * pow(R(z2), n - 1) * dR(z2) * -h};
    for (int i = 0; i < 4; i++)
      ad_deriv(ad_fmt("%s %s", name, what[i]), got[i], want[i], fd[i], AD_TOL_D);
  } else {
    for (int i = 0; i < 4; i++)
      ad_check(ad_fmt("%s %s vs FD", name, what[i]), got[i], fd[i], 1e-6, 1e-8);
  }
}

static void run_scalar(int choice, int n) {
  srhs_t f = table[choice];
  double y0 = vs0, k = vsk;
  grad2 g = __ad_gradient_2(integrate1, AD_CONST, f, y0, k, n);
  double fdy = AD_FD(y0, integrate1(f, y0, k, n));
  double fdk = AD_FD(k, integrate1(f, y0, k, n));
  if (choice == 0) {
    // Logistic: y(T) = y0 E / (1 + y0 (E - 1)), E = e^{kT}; L = y^2 + y.
    double T = T_END, E = exp(k * T), D = 1 + y0 * (E - 1), y = y0 * E / D;
    double Ly = 2 * y + 1;
    ad_check("logistic primal ~ closed form", integrate1(f, y0, k, n), y * y + y, 1e-9, 0);
    ad_deriv("scalar logistic d/dy0", g.dy0, Ly * E / (D * D), fdy,
             (ad_tol){1e-8, 1e-10, 1e-6, 1e-8});
    ad_deriv("scalar logistic d/dk", g.dk, Ly * T * E * y0 * (1 - y0) / (D * D), fdk,
             (ad_tol){1e-8, 1e-10, 1e-6, 1e-8});
  } else {
    ad_check(ad_fmt("scalar table[%d] d/dy0 vs FD", choice), g.dy0, fdy, 1e-6, 1e-8);
    ad_check(ad_fmt("scalar table[%d] d/dk vs FD", choice), g.dk, fdk, 1e-6, 1e-8);
  }
  double t = __ad_derivative(integrate1, AD_CONST, f, y0, 0.7, k, -0.4, n);
  ad_check(ad_fmt("scalar table[%d] forward = <gradient, tangent>", choice), t,
           0.7 * g.dy0 - 0.4 * g.dk, 1e-10, 1e-13);
}

static double cube(double v) { return v * v * v; }
static double (*const unary_ops[4])(double) = {sin, cube, exp, tanh};
double apply_all(double x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += unary_ops[i](x) * (i + 1);
  return s;
}

int main(int argc, char **argv) {
  (void)argv;
  int n = vsteps;
  for (int i = 0; i < 2; i++) {
    int choice = (vsel[i] + argc - 1) & 1; // 0 then 1 when run without arguments
    run_k(choice, n);
    run_p(choice, n);
  }
  for (int i = 0; i < 3; i++)
    run_scalar((vsel[i] + argc - 1) % 3, n);
  double x = 0.6, th = tanh(x);
  double want = cos(x) + 2 * 3 * x * x + 3 * exp(x) + 4 * (1 - th * th);
  ad_deriv("apply_all d/dx", __ad_gradient(apply_all, x, 4), want,
           AD_FD(x, apply_all(x, 4)), AD_TOL_D);
  ad_check("apply_all forward", __ad_derivative(apply_all, x, 1.0, 4), want,
           1e-12, 0);
  return ad_finish();
}
