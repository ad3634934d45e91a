// Bundle adjustment in ADBench's form (Srajer, Kukelova & Fitzgibbon 2018),
// written here from the formulas, at the size of ADBench's ba1: n = 49
// cameras, m = 7776 points, p = 31843 observations.
//
// A camera has 11 parameters: Rodrigues rotation vector r (3), centre C (3),
// focal length f, principal point x0 (2), radial distortion kappa (2).
// Observation i sees point X of camera cam through
//   Xcam = R(r) (X - C)         (Rodrigues; X - C + r x (X - C) when r = 0)
//   q = Xcam[0:2] / Xcam[2],  q *= 1 + kappa1 |q|^2 + kappa2 |q|^4,
//   proj = f q + x0,
// with residuals w_i (proj - feature_i) (2) and 1 - w_i^2 (ADBench's Zach
// weight residual). The objective is the sum of the squares of all 3 p
// residuals. Gradient w.r.t. cameras, points and weights; features and the
// observation indices (camera, point per observation) are constant.
#include "harness.h"

enum { BA_CAM = 11, BA_ROT = 0, BA_C = 3, BA_F = 6, BA_X0 = 7, BA_RAD = 9 };

static void cross3(const double *a, const double *b, double *out) {
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

static double dot3(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* out = R(rot) pt, R the rotation by |rot| about rot / |rot|. */
static void rodrigues_rotate_point(const double *rot, const double *pt,
                                   double *out) {
  double sqtheta = dot3(rot, rot);
  if (sqtheta != 0) {
    double theta = sqrt(sqtheta), costheta = cos(theta), sintheta = sin(theta),
           theta_inverse = 1 / theta;
    double axis[3], axis_cross_pt[3];
    for (int j = 0; j < 3; ++j)
      axis[j] = rot[j] * theta_inverse;
    cross3(axis, pt, axis_cross_pt);
    double tmp = dot3(axis, pt) * (1 - costheta);
    for (int j = 0; j < 3; ++j)
      out[j] = pt[j] * costheta + axis_cross_pt[j] * sintheta + axis[j] * tmp;
  } else {
    double rot_cross_pt[3];
    cross3(rot, pt, rot_cross_pt);
    for (int j = 0; j < 3; ++j)
      out[j] = pt[j] + rot_cross_pt[j];
  }
}

static void radial_distort(const double *kappa, double *q) {
  double rsq = q[0] * q[0] + q[1] * q[1];
  double l = 1 + kappa[0] * rsq + kappa[1] * rsq * rsq;
  q[0] *= l;
  q[1] *= l;
}

static void project(const double *cam, const double *X, double *proj) {
  double xo[3], xcam[3];
  for (int j = 0; j < 3; ++j)
    xo[j] = X[j] - cam[BA_C + j];
  rodrigues_rotate_point(cam + BA_ROT, xo, xcam);
  double q[2] = {xcam[0] / xcam[2], xcam[1] / xcam[2]};
  radial_distort(cam + BA_RAD, q);
  for (int j = 0; j < 2; ++j)
    proj[j] = q[j] * cam[BA_F] + cam[BA_X0 + j];
}

double ba_objective(const double *cams, const double *X, const double *w,
                    const double *feats, const int *obs, int p) {
  double total = 0;
  for (int i = 0; i < p; ++i) {
    double proj[2];
    project(cams + (size_t)obs[2 * i] * BA_CAM, X + (size_t)obs[2 * i + 1] * 3,
            proj);
    for (int j = 0; j < 2; ++j) {
      double e = w[i] * (proj[j] - feats[2 * i + j]);
      total += e * e;
    }
    double we = 1 - w[i] * w[i];
    total += we * we;
  }
  return total;
}

/*--- Hand-written gradient --------------------------------------------------*/
/* Observation by observation: the forward values of one projection stay in
 * a local record and are propagated back at once, so nothing is kept across
 * observations. With d = X - C, theta = |r|, u = r / theta, c = cos theta,
 * s = sin theta, t = (u . d)(1 - c), y = c d + s (u x d) + t u = Xcam,
 * q = y[0:2] / y[2], rho = |q|^2, L = 1 + k1 rho + k2 rho^2, pd = L q,
 * proj = f pd + x0, and bars for adjoints:
 *   pd_ = f proj_,  f_ += proj_ . pd,  x0_ += proj_,
 *   L_ = pd_ . q,  k1_ += L_ rho,  k2_ += L_ rho^2,
 *   q_ = L pd_ + 2 L_ (k1 + 2 k2 rho) q,
 *   y_ = (q_0, q_1, -(q_ . q)) / y[2],
 *   t_ = y_ . u,  d_ = c y_ + s (y_ x u) + t_ (1 - c) u,
 *   u_ = s (d x y_) + t y_ + t_ (1 - c) d,
 *   theta_ = -s (y_ . d - t_ (u . d)) + c (y_ . (u x d)),
 *   r_ = (u_ - (u_ . u) u) / theta + theta_ u,
 *   X_ += d_,  C_ -= d_;
 * at r = 0 (y = d + r x d): d_ = y_ + y_ x r, r_ = d x y_. */

/* What the adjoint of one projection needs from its forward sweep. */
typedef struct {
  int at_zero; /* r = 0: y = d + r x d */
  double d[3], u[3], u_cross_d[3], theta_inverse, c, s, ud, t, y[3], q[2];
  double rho, l;
} ba_forward;

static void project_forward(const double *cam, const double *X, ba_forward *v,
                            double *proj) {
  const double *r = cam + BA_ROT;
  for (int j = 0; j < 3; ++j)
    v->d[j] = X[j] - cam[BA_C + j];
  double sqtheta = dot3(r, r);
  v->at_zero = sqtheta == 0;
  if (v->at_zero) {
    cross3(r, v->d, v->y);
    for (int j = 0; j < 3; ++j)
      v->y[j] += v->d[j];
  } else {
    double theta = sqrt(sqtheta);
    v->c = cos(theta);
    v->s = sin(theta);
    v->theta_inverse = 1 / theta;
    for (int j = 0; j < 3; ++j)
      v->u[j] = r[j] * v->theta_inverse;
    cross3(v->u, v->d, v->u_cross_d);
    v->ud = dot3(v->u, v->d);
    v->t = v->ud * (1 - v->c);
    for (int j = 0; j < 3; ++j)
      v->y[j] = v->c * v->d[j] + v->s * v->u_cross_d[j] + v->t * v->u[j];
  }
  v->q[0] = v->y[0] / v->y[2];
  v->q[1] = v->y[1] / v->y[2];
  v->rho = v->q[0] * v->q[0] + v->q[1] * v->q[1];
  v->l = 1 + cam[BA_RAD] * v->rho + cam[BA_RAD + 1] * v->rho * v->rho;
  for (int j = 0; j < 2; ++j)
    proj[j] = v->l * v->q[j] * cam[BA_F] + cam[BA_X0 + j];
}

/* Adds to rbar and returns in dbar the adjoints of the rotation vector and
 * of d for the adjoint ybar of the rotated point. */
static void rodrigues_adjoint(const double *r, const ba_forward *v,
                              const double *ybar, double *rbar, double *dbar) {
  double tmp[3];
  if (v->at_zero) {
    cross3(ybar, r, tmp);
    for (int j = 0; j < 3; ++j)
      dbar[j] = ybar[j] + tmp[j];
    cross3(v->d, ybar, tmp);
    for (int j = 0; j < 3; ++j)
      rbar[j] += tmp[j];
    return;
  }
  double c = v->c, s = v->s, tbar = dot3(ybar, v->u), ubar[3];
  double ybar_cross_u[3], d_cross_ybar[3];
  cross3(ybar, v->u, ybar_cross_u);
  cross3(v->d, ybar, d_cross_ybar);
  for (int j = 0; j < 3; ++j) {
    dbar[j] = c * ybar[j] + s * ybar_cross_u[j] + tbar * (1 - c) * v->u[j];
    ubar[j] = s * d_cross_ybar[j] + v->t * ybar[j] + tbar * (1 - c) * v->d[j];
  }
  double cbar = dot3(ybar, v->d) - tbar * v->ud;
  double thetabar = -s * cbar + c * dot3(ybar, v->u_cross_d);
  double ubar_u = dot3(ubar, v->u);
  for (int j = 0; j < 3; ++j)
    rbar[j] +=
        (ubar[j] - ubar_u * v->u[j]) * v->theta_inverse + thetabar * v->u[j];
}

/* Adds the adjoints of the camera and the point of one projection for the
 * adjoint projbar of its result. */
static void project_adjoint(const double *cam, const ba_forward *v,
                            const double *projbar, double *camb, double *Xb) {
  double k1 = cam[BA_RAD], k2 = cam[BA_RAD + 1], f = cam[BA_F];
  double pdbar[2] = {f * projbar[0], f * projbar[1]};
  camb[BA_F] += v->l * (projbar[0] * v->q[0] + projbar[1] * v->q[1]);
  camb[BA_X0] += projbar[0];
  camb[BA_X0 + 1] += projbar[1];
  double lbar = pdbar[0] * v->q[0] + pdbar[1] * v->q[1];
  camb[BA_RAD] += lbar * v->rho;
  camb[BA_RAD + 1] += lbar * v->rho * v->rho;
  double rhobar2 = 2 * lbar * (k1 + 2 * k2 * v->rho);
  double qbar[2] = {v->l * pdbar[0] + rhobar2 * v->q[0],
                    v->l * pdbar[1] + rhobar2 * v->q[1]};
  double ybar[3] = {qbar[0] / v->y[2], qbar[1] / v->y[2],
                    -(qbar[0] * v->q[0] + qbar[1] * v->q[1]) / v->y[2]};
  double dbar[3];
  rodrigues_adjoint(cam + BA_ROT, v, ybar, camb + BA_ROT, dbar);
  for (int j = 0; j < 3; ++j) {
    Xb[j] += dbar[j];
    camb[BA_C + j] -= dbar[j];
  }
}

void ba_grad_hand(const double *cams, const double *X, const double *w,
                  const double *feats, const int *obs, int n, int m, int p,
                  double *dcams, double *dX, double *dw) {
  memset(dcams, 0, (size_t)n * BA_CAM * sizeof(double));
  memset(dX, 0, (size_t)m * 3 * sizeof(double));
  for (int i = 0; i < p; ++i) {
    size_t ci = (size_t)obs[2 * i] * BA_CAM, pi = (size_t)obs[2 * i + 1] * 3;
    ba_forward v;
    double proj[2], projbar[2], wi = w[i], we = 1 - wi * wi, sq = 0;
    project_forward(cams + ci, X + pi, &v, proj);
    for (int j = 0; j < 2; ++j) {
      double r = proj[j] - feats[2 * i + j];
      sq += r * r;
      projbar[j] = 2 * wi * wi * r;
    }
    dw[i] = 2 * wi * sq - 4 * wi * we;
    project_adjoint(cams + ci, &v, projbar, dcams + ci, dX + pi);
  }
}

/*--- Benchmark --------------------------------------------------------------*/

typedef struct {
  int n, m, p;
  double *cams, *X, *w, *feats;
  int *obs;
  double *g_ad, *g_hand; /* d cams (11 n), d X (3 m), d w (p) */
} ctx_t;

static size_t grad_len(const ctx_t *c) {
  return (size_t)c->n * BA_CAM + (size_t)c->m * 3 + (size_t)c->p;
}

static void run_primal(void *p) {
  ctx_t *c = p;
  do_not_optimize_double(
      ba_objective(c->cams, c->X, c->w, c->feats, c->obs, c->p));
}

static void run_ad(void *p) {
  ctx_t *c = p;
  double *dcams = c->g_ad, *dX = dcams + (size_t)c->n * BA_CAM,
         *dw = dX + (size_t)c->m * 3;
  memset(c->g_ad, 0, grad_len(c) * sizeof(double));
  __ad_gradient_void(ba_objective, c->cams, dcams, c->X, dX, c->w, dw, AD_CONST,
                     c->feats, AD_CONST, c->obs, c->p);
  do_not_optimize(c->g_ad);
}

static void run_hand(void *p) {
  ctx_t *c = p;
  double *dcams = c->g_hand, *dX = dcams + (size_t)c->n * BA_CAM,
         *dw = dX + (size_t)c->m * 3;
  ba_grad_hand(c->cams, c->X, c->w, c->feats, c->obs, c->n, c->m, c->p, dcams,
               dX, dw);
  do_not_optimize(c->g_hand);
}

/* Synthetic scene: points in [-1, 1]^3; each camera is turned by an angle
 * in [0.3, 1.3] about a random axis and placed 6 to 10 units from the
 * origin, looking at it (so every point is well in front of every camera);
 * features are the projections plus up to 2 pixels of noise. */
static void ba_make_scene(ctx_t *c, uint64_t seed) {
  for (int k = 0; k < c->n; ++k) {
    double *cam = c->cams + (size_t)k * BA_CAM, axis[3], norm = 0;
    for (int j = 0; j < 3; ++j) {
      axis[j] = bench_uniform(&seed, -1, 1);
      norm += axis[j] * axis[j];
    }
    double angle = bench_uniform(&seed, 0.3, 1.3) / sqrt(norm);
    double back[3], ahead[3] = {0, 0, -bench_uniform(&seed, 6, 10)};
    for (int j = 0; j < 3; ++j)
      back[j] = -axis[j] * angle; /* R(-r) = R(r)^T */
    rodrigues_rotate_point(back, ahead, cam + BA_C);
    for (int j = 0; j < 3; ++j) {
      cam[BA_ROT + j] = axis[j] * angle;
      cam[BA_C + j] += bench_uniform(&seed, -0.3, 0.3);
    }
    cam[BA_F] = bench_uniform(&seed, 400, 600);
    cam[BA_X0] = bench_uniform(&seed, -5, 5);
    cam[BA_X0 + 1] = bench_uniform(&seed, -5, 5);
    cam[BA_RAD] = bench_uniform(&seed, -0.1, 0.1);
    cam[BA_RAD + 1] = bench_uniform(&seed, -0.1, 0.1);
  }
  for (size_t i = 0; i < (size_t)c->m * 3; ++i)
    c->X[i] = bench_uniform(&seed, -1, 1);
  for (int i = 0; i < c->p; ++i) {
    int cam = (int)bench_uniform(&seed, 0, c->n), pt = i % c->m;
    c->obs[2 * i] = cam;
    c->obs[2 * i + 1] = pt;
    c->w[i] = bench_uniform(&seed, 0.8, 1.2);
    double proj[2];
    project(c->cams + (size_t)cam * BA_CAM, c->X + (size_t)pt * 3, proj);
    for (int j = 0; j < 2; ++j)
      c->feats[2 * i + j] = proj[j] + bench_uniform(&seed, -2, 2);
  }
}

int main(int argc, char **argv) {
  if (bench_wants_header(argc, argv))
    return 0;
  ctx_t c = {.n = bench_opaque_int(49),
             .m = bench_opaque_int(7776),
             .p = bench_opaque_int(31843)};
  c.cams = bench_alloc((size_t)c.n * BA_CAM);
  c.X = bench_alloc((size_t)c.m * 3);
  c.w = bench_alloc((size_t)c.p);
  c.feats = bench_alloc((size_t)c.p * 2);
  c.obs = malloc((size_t)c.p * 2 * sizeof(int));
  if (!c.obs)
    return 2;
  c.g_ad = bench_alloc(grad_len(&c));
  c.g_hand = bench_alloc(grad_len(&c));
  ba_make_scene(&c, 11);
  /* Per observation; the observation-fused hand-written gradient keeps
   * nothing. */
  bench_spec s = {"ba",
                  "n 49, m 7776, p 31843",
                  &c,
                  run_primal,
                  run_ad,
                  run_hand,
                  c.g_ad,
                  c.g_hand,
                  grad_len(&c),
                  c.p,
                  0};
  return bench_row(&s);
}
