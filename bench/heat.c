// Explicit 1-D heat equation, zero (Dirichlet) boundaries, diffusion number
// k (dt D / dx^2) active, initial state u0 constant:
//   u_i <- u_i + k (u_{i-1} - 2 u_i + u_{i+1}),
// 2000 cells, 500 steps, in two heap buffers swapped every step, as a user
// writes it. Output: sum_i u_i(T)^2. Gradient: df/dk.
#include "harness.h"

/* One step from `a` into `b`; cells outside [0, n) are zero. */
static void heat_step(const double *a, double *b, double k, int n) {
  for (int i = 0; i < n; ++i) {
    double left = i > 0 ? a[i - 1] : 0;
    double right = i + 1 < n ? a[i + 1] : 0;
    b[i] = a[i] + k * (left - 2 * a[i] + right);
  }
}

double heat(double k, const double *u0, int ncells, int nsteps) {
  double *a = malloc((size_t)ncells * sizeof(double));
  double *b = malloc((size_t)ncells * sizeof(double));
  memcpy(a, u0, (size_t)ncells * sizeof(double));
  for (int s = 0; s < nsteps; ++s) {
    heat_step(a, b, k, ncells);
    double *t = a;
    a = b;
    b = t;
  }
  double f = 0;
  for (int i = 0; i < ncells; ++i)
    f += a[i] * a[i];
  free(a);
  free(b);
  return f;
}

/*--- Hand-written discrete adjoint ----------------------------------------*/
/* The step is linear in u, so the adjoint lam of the state needs no stored
 * values: lam <- lam + k L lam (L, the zero-boundary Laplacian, is
 * symmetric). But df/dk = sum over steps of lam_{s+1} . (L u_s) needs every
 * state u_s: the forward sweep keeps them in traj (a caller workspace of
 * ncells * nsteps doubles, 8 bytes per cell-step). */
double heat_grad_hand(double k, const double *u0, int ncells, int nsteps,
                      double *traj, double *lam, double *lam2) {
  size_t n = (size_t)ncells;
  memcpy(traj, u0, n * sizeof(double));
  for (int s = 0; s + 1 < nsteps; ++s)
    heat_step(traj + s * n, traj + (s + 1) * n, k, ncells);
  /* The final state, only to seed the adjoint: into lam. */
  heat_step(traj + (size_t)(nsteps - 1) * n, lam, k, ncells);
  for (size_t i = 0; i < n; ++i)
    lam[i] *= 2;
  double dk = 0;
  for (int s = nsteps - 1; s >= 0; --s) {
    const double *u = traj + (size_t)s * n;
    for (int i = 0; i < ncells; ++i) {
      double left = i > 0 ? u[i - 1] : 0;
      double right = i + 1 < ncells ? u[i + 1] : 0;
      dk += lam[i] * (left - 2 * u[i] + right);
    }
    heat_step(lam, lam2, k, ncells);
    double *t = lam;
    lam = lam2;
    lam2 = t;
  }
  return dk;
}

typedef struct {
  double k;
  int ncells, nsteps;
  double *u0, *traj, *lam, *lam2;
  double g_ad, g_hand;
} ctx_t;

static void run_primal(void *p) {
  ctx_t *c = p;
  do_not_optimize_double(heat(c->k, c->u0, c->ncells, c->nsteps));
}

static void run_ad(void *p) {
  ctx_t *c = p;
  c->g_ad = __ad_gradient(heat, c->k, AD_CONST, c->u0, c->ncells, c->nsteps);
  do_not_optimize(&c->g_ad);
}

static void run_hand(void *p) {
  ctx_t *c = p;
  c->g_hand = heat_grad_hand(c->k, c->u0, c->ncells, c->nsteps, c->traj,
                             c->lam, c->lam2);
  do_not_optimize(&c->g_hand);
}

int main(int argc, char **argv) {
  if (bench_wants_header(argc, argv))
    return 0;
  ctx_t c = {.k = 0.2, .ncells = bench_opaque_int(2000),
             .nsteps = bench_opaque_int(500)};
  size_t n = (size_t)c.ncells;
  c.u0 = bench_alloc(n);
  c.traj = bench_alloc(n * (size_t)c.nsteps);
  c.lam = bench_alloc(n);
  c.lam2 = bench_alloc(n);
  uint64_t seed = 7;
  for (size_t i = 0; i < n; ++i)
    c.u0[i] = bench_uniform(&seed, 0, 1);
  /* Per cell-step; the hand-written adjoint keeps every state. */
  bench_spec s = {"heat", "2000 cells × 500 steps", &c, run_primal, run_ad,
                  run_hand, &c.g_ad, &c.g_hand, 1,
                  (double)c.ncells * c.nsteps, 8};
  return bench_row(&s);
}
