// Lotka-Volterra predator-prey model integrated with classical RK4:
//   x' = a x - b x y,   y' = d x y - c y,   p = (a, b, c, d),
// 10^5 steps of h = 1e-4 from (x0, y0). Output: x(T)^2 + y(T)^2. Gradient
// w.r.t. the initial state (2) and the parameters (4).
#include "harness.h"

static void lotka_volterra(const double *u, const double *p, double *du) {
  du[0] = p[0] * u[0] - p[1] * u[0] * u[1];
  du[1] = p[3] * u[0] * u[1] - p[2] * u[1];
}

double lv_rk4(const double *u0, const double *p, double h, int nsteps) {
  double u[2] = {u0[0], u0[1]};
  double k1[2], k2[2], k3[2], k4[2], t[2];
  for (int s = 0; s < nsteps; ++s) {
    lotka_volterra(u, p, k1);
    for (int i = 0; i < 2; ++i)
      t[i] = u[i] + 0.5 * h * k1[i];
    lotka_volterra(t, p, k2);
    for (int i = 0; i < 2; ++i)
      t[i] = u[i] + 0.5 * h * k2[i];
    lotka_volterra(t, p, k3);
    for (int i = 0; i < 2; ++i)
      t[i] = u[i] + h * k3[i];
    lotka_volterra(t, p, k4);
    for (int i = 0; i < 2; ++i)
      u[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
  }
  return u[0] * u[0] + u[1] * u[1];
}

/*--- Hand-written discrete adjoint ----------------------------------------*/
/* The forward sweep stores the state before every step in traj (a caller
 * workspace of 2 * (nsteps + 1) doubles); the reverse sweep recomputes the
 * four stages of a step from its stored state and propagates the adjoint
 * through them in reverse order. */

/* ub += J_u(u)^T v, pb += J_p(u)^T v for the Lotka-Volterra field. */
static void lv_vjp(const double *u, const double *p, const double *v,
                   double *ub, double *pb) {
  double x = u[0], y = u[1];
  ub[0] += (p[0] - p[1] * y) * v[0] + p[3] * y * v[1];
  ub[1] += -p[1] * x * v[0] + (p[3] * x - p[2]) * v[1];
  pb[0] += x * v[0];
  pb[1] += -x * y * v[0];
  pb[2] += -y * v[1];
  pb[3] += x * y * v[1];
}

void lv_rk4_grad_hand(const double *u0, const double *p, double h, int nsteps,
                      double *traj, double *u0b, double *pb) {
  double u[2] = {u0[0], u0[1]};
  double k1[2], k2[2], k3[2], k4[2], t[2];
  for (int s = 0; s < nsteps; ++s) {
    traj[2 * s] = u[0];
    traj[2 * s + 1] = u[1];
    lotka_volterra(u, p, k1);
    for (int i = 0; i < 2; ++i)
      t[i] = u[i] + 0.5 * h * k1[i];
    lotka_volterra(t, p, k2);
    for (int i = 0; i < 2; ++i)
      t[i] = u[i] + 0.5 * h * k2[i];
    lotka_volterra(t, p, k3);
    for (int i = 0; i < 2; ++i)
      t[i] = u[i] + h * k3[i];
    lotka_volterra(t, p, k4);
    for (int i = 0; i < 2; ++i)
      u[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
  }
  double lam[2] = {2 * u[0], 2 * u[1]};
  for (int i = 0; i < 4; ++i)
    pb[i] = 0;
  for (int s = nsteps - 1; s >= 0; --s) {
    const double *us = traj + 2 * s;
    double t2[2], t3[2], t4[2];
    lotka_volterra(us, p, k1);
    for (int i = 0; i < 2; ++i)
      t2[i] = us[i] + 0.5 * h * k1[i];
    lotka_volterra(t2, p, k2);
    for (int i = 0; i < 2; ++i)
      t3[i] = us[i] + 0.5 * h * k2[i];
    lotka_volterra(t3, p, k3);
    for (int i = 0; i < 2; ++i)
      t4[i] = us[i] + h * k3[i];
    double k1b[2], k2b[2], k3b[2], k4b[2], ub[2], tb[2];
    for (int i = 0; i < 2; ++i) {
      ub[i] = lam[i];
      k1b[i] = h / 6 * lam[i];
      k2b[i] = h / 3 * lam[i];
      k3b[i] = h / 3 * lam[i];
      k4b[i] = h / 6 * lam[i];
    }
    tb[0] = tb[1] = 0;
    lv_vjp(t4, p, k4b, tb, pb); /* stage 4: t4 = u + h k3 */
    for (int i = 0; i < 2; ++i) {
      ub[i] += tb[i];
      k3b[i] += h * tb[i];
    }
    tb[0] = tb[1] = 0;
    lv_vjp(t3, p, k3b, tb, pb); /* stage 3: t3 = u + h/2 k2 */
    for (int i = 0; i < 2; ++i) {
      ub[i] += tb[i];
      k2b[i] += 0.5 * h * tb[i];
    }
    tb[0] = tb[1] = 0;
    lv_vjp(t2, p, k2b, tb, pb); /* stage 2: t2 = u + h/2 k1 */
    for (int i = 0; i < 2; ++i) {
      ub[i] += tb[i];
      k1b[i] += 0.5 * h * tb[i];
    }
    lv_vjp(us, p, k1b, ub, pb); /* stage 1 */
    lam[0] = ub[0];
    lam[1] = ub[1];
  }
  u0b[0] = lam[0];
  u0b[1] = lam[1];
}

typedef struct {
  double u0[2], p[4], h;
  int nsteps;
  double g_ad[6], g_hand[6]; /* d/du0 (2), then d/dp (4) */
  double *traj;
} ctx_t;

static void run_primal(void *q) {
  ctx_t *c = q;
  do_not_optimize_double(lv_rk4(c->u0, c->p, c->h, c->nsteps));
}

static void run_ad(void *q) {
  ctx_t *c = q;
  memset(c->g_ad, 0, sizeof c->g_ad);
  __ad_gradient_void(lv_rk4, c->u0, c->g_ad, c->p, c->g_ad + 2, AD_CONST, c->h,
                     c->nsteps);
  do_not_optimize(c->g_ad);
}

static void run_hand(void *q) {
  ctx_t *c = q;
  lv_rk4_grad_hand(c->u0, c->p, c->h, c->nsteps, c->traj, c->g_hand,
                   c->g_hand + 2);
  do_not_optimize(c->g_hand);
}

int main(int argc, char **argv) {
  if (bench_wants_header(argc, argv))
    return 0;
  ctx_t c = {.u0 = {1.0, 1.0}, .p = {1.5, 1.0, 3.0, 1.0}, .h = 1e-4,
             .nsteps = bench_opaque_int(100000)};
  c.traj = bench_alloc(2 * (size_t)(c.nsteps + 1));
  bench_spec s = {"rk4 (Lotka-Volterra)", "10^5 steps", &c, run_primal,
                  run_ad, run_hand, c.g_ad, c.g_hand, 6,
                  c.nsteps, 16}; /* per step; the state, 2 doubles */
  return bench_row(&s);
}
