// Memory that the differentiated function writes, and memory laid out as
// structs. API.md: for memory fn writes, the shadow on entry is the
// cotangent of the final contents and on return the cotangent of the
// initial contents; read-only memory's shadow receives +=.
//   - in-place elementwise update x[i] = g(x[i]) followed by a reduction,
//     with a zero and a non-zero seed in the shadow, and the primal side
//     effect (x ends as g(x0));
//   - an in-place prefix sum (later iterations read earlier writes);
//   - a void in-place kernel used as a VJP;
//   - struct of arrays as separate pointer arguments (pointers stored inside
//     structs are not supported): positions updated in place from constant
//     or active velocities, then a pairwise potential;
//   - an array of structs { double pos, vel; float mass; }: an energy
//     (read-only, mixed float/double fields) and an in-place step
//     (pos, vel written, mass read) with seeded shadows;
//   - nested structs (vec3 inside body, with an int field and an array
//     field) and a struct mixing float and double arithmetic.
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O3 %s -o %t.O3 %adlibs && %t.O3

#include "ad.h"
#include "adcheck.h"
#include <math.h>

#define N 6

/*--- In-place arrays -------------------------------------------------------*/

static double g(double u) { return u * sin(u) + 0.5; }
static double dg(double u) { return sin(u) + u * cos(u); }

double inplace_reduce(double *x, int n) {
  for (int i = 0; i < n; i++)
    x[i] = x[i] * sin(x[i]) + 0.5;
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i] * (i + 1);
  return s;
}

// x[i] <- x[0] + ... + x[i] in place; returns sum c_i x_i^2 (c_i = i - 2).
double inplace_cumsum(double *x, int n) {
  for (int i = 1; i < n; i++)
    x[i] += x[i - 1];
  double s = 0;
  for (int i = 0; i < n; i++)
    s += (i - 2) * x[i] * x[i];
  return s;
}

void inplace_square(double *x, int n) {
  for (int i = 0; i < n; i++)
    x[i] = x[i] * x[i] * x[i] - x[i];
}

/*--- Struct of arrays ------------------------------------------------------*/

// Move by dt * v, then sum_{i<j} 1/r_ij over the 2-D points (x_i, y_i).
double soa_step(double *x, double *y, const double *vx, const double *vy,
                double dt, int n) {
  for (int i = 0; i < n; i++) {
    x[i] += dt * vx[i];
    y[i] += dt * vy[i];
  }
  double e = 0;
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      double ddx = x[i] - x[j], ddy = y[i] - y[j];
      e += 1 / sqrt(ddx * ddx + ddy * ddy);
    }
  return e;
}

/*--- Array of structs ------------------------------------------------------*/

struct particle {
  double pos, vel;
  float mass;
};

// sum 0.5 m v^2 + 0.5 k sum (pos_i - pos_{i-1})^2.
double aos_energy(const struct particle *p, int n, double k) {
  double e = 0;
  for (int i = 0; i < n; i++)
    e += 0.5 * p[i].mass * p[i].vel * p[i].vel;
  for (int i = 1; i < n; i++) {
    double d = p[i].pos - p[i - 1].pos;
    e += 0.5 * k * d * d;
  }
  return e;
}

// Symplectic Euler in place: v -= dt k pos / m; pos += dt v.
void aos_step(struct particle *p, int n, double dt, double k) {
  for (int i = 0; i < n; i++) {
    p[i].vel -= dt * k * p[i].pos / p[i].mass;
    p[i].pos += dt * p[i].vel;
  }
}

/*--- Nested structs --------------------------------------------------------*/

struct vec3 {
  double x, y, z;
};
struct body {
  struct vec3 p;
  int id;
  struct vec3 v;
  float m;
  double q[2];
};

static double charge(const struct body *b) { return b->q[0] + b->q[1] * b->q[1]; }

// sum_i 0.5 m |v|^2 (id + 1) + sum_{i<j} c_i c_j / |p_i - p_j|.
double bodies_energy(const struct body *b, int n) {
  double e = 0;
  for (int i = 0; i < n; i++) {
    const struct vec3 *v = &b[i].v;
    e += 0.5 * b[i].m * (v->x * v->x + v->y * v->y + v->z * v->z) *
         (b[i].id + 1);
  }
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      struct vec3 d = {b[i].p.x - b[j].p.x, b[i].p.y - b[j].p.y,
                       b[i].p.z - b[j].p.z};
      e += charge(&b[i]) * charge(&b[j]) / sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
    }
  return e;
}

struct mixed {
  float a;
  double b;
  float c[3];
};

// Float arithmetic on the float fields, double on the rest.
double mixed_fn(const struct mixed *s, int n) {
  double r = 0;
  for (int i = 0; i < n; i++) {
    float t = s[i].a * s[i].c[0] + s[i].c[1] * s[i].c[2];
    r += t * s[i].b + sin(s[i].b) * s[i].a;
  }
  return r;
}

/*--- Inputs ----------------------------------------------------------------*/

static volatile int vn = N;
static volatile double vx[N] = {0.7, -1.3, 2.1, 0.45, -0.6, 1.15};
static volatile double vy[N] = {0.2, 0.9, -0.8, 1.7, -1.4, 0.35};
static volatile double vs[N] = {0.3, -0.55, 1.2, 0.8, -0.25, 0.65};

static const ad_tol TOL_MIXED = {1e-5, 1e-6, 1e-3, 1e-4}; /* float parts */

int main(int argc, char **argv) {
  (void)argv;
  int n = vn + (argc - 1);
  double x0[N], x[N], dx[N], seed[N];
  for (int i = 0; i < N; i++)
    x0[i] = vx[i], seed[i] = vs[i];

  // In-place update + reduction, zero and non-zero seeds.
  for (int seeded = 0; seeded <= 1; seeded++) {
    for (int i = 0; i < N; i++)
      x[i] = x0[i], dx[i] = seeded ? seed[i] : 0;
    __ad_gradient(inplace_reduce, x, dx, n);
    for (int i = 0; i < N; i++) {
      ad_check(ad_fmt("inplace_reduce primal x[%d]", i), x[i], g(x0[i]), 1e-15,
               0);
      double xc[N], xs = x0[i];
      double want = 2 * (i + 1) * g(xs) * dg(xs) + (seeded ? seed[i] * dg(xs) : 0);
      // FD of f(x) + <seed, final x> w.r.t. the initial x[i].
#define OBJ_R()                                                                \
  (memcpy(xc, x0, sizeof xc), xc[i] = xs, inplace_reduce(xc, n) +              \
   (seeded ? seed[0] * xc[0] + seed[1] * xc[1] + seed[2] * xc[2] +             \
             seed[3] * xc[3] + seed[4] * xc[4] + seed[5] * xc[5] : 0))
      double fd = AD_FD(xs, OBJ_R());
      ad_deriv(ad_fmt("inplace_reduce (seeded %d) d/dx0[%d]", seeded, i), dx[i],
               want, fd, AD_TOL_D);
    }
  }

  // In-place prefix sum: dx0[j] = sum_{i>=j} (2 c_i X_i + seed_i).
  for (int seeded = 0; seeded <= 1; seeded++) {
    double X[N];
    for (int i = 0; i < N; i++) {
      x[i] = x0[i], dx[i] = seeded ? seed[i] : 0;
      X[i] = x0[i] + (i ? X[i - 1] : 0);
    }
    __ad_gradient(inplace_cumsum, x, dx, n);
    for (int j = 0; j < N; j++) {
      ad_check(ad_fmt("inplace_cumsum primal x[%d]", j), x[j], X[j], 1e-15,
               1e-15);
      double want = 0, xc[N], xs = x0[j];
      for (int i = j; i < N; i++)
        want += 2 * (i - 2) * X[i] + (seeded ? seed[i] : 0);
#define OBJ_C()                                                                \
  (memcpy(xc, x0, sizeof xc), xc[j] = xs, inplace_cumsum(xc, n) +              \
   (seeded ? seed[0] * xc[0] + seed[1] * xc[1] + seed[2] * xc[2] +             \
             seed[3] * xc[3] + seed[4] * xc[4] + seed[5] * xc[5] : 0))
      double fd = AD_FD(xs, OBJ_C());
      ad_deriv(ad_fmt("inplace_cumsum (seeded %d) d/dx0[%d]", seeded, j), dx[j],
               want, fd, AD_TOL_D);
    }
  }

  // Void in-place kernel as a VJP: dx ends as seed * (3 x0^2 - 1). Only the
  // first n-2 entries are touched; the other shadows stay as seeded.
  {
    int m = n - 2;
    for (int i = 0; i < N; i++)
      x[i] = x0[i], dx[i] = seed[i];
    __ad_gradient_void(inplace_square, x, dx, m);
    for (int i = 0; i < N; i++) {
      double xs = x0[i];
      double fd = AD_FD(xs, xs * xs * xs - xs) * seed[i];
      if (i < m) {
        ad_deriv(ad_fmt("inplace_square vjp d/dx0[%d]", i), dx[i],
                 seed[i] * (3 * xs * xs - 1), fd, AD_TOL_D);
        ad_check(ad_fmt("inplace_square primal x[%d]", i), x[i],
                 xs * xs * xs - xs, 1e-15, 0);
      } else {
        ad_check(ad_fmt("inplace_square untouched dx[%d]", i), dx[i], seed[i], 0, 0);
        ad_check(ad_fmt("inplace_square untouched x[%d]", i), x[i], xs, 0, 0);
      }
    }
  }

  // Struct of arrays.
  for (int vconst = 0; vconst <= 1; vconst++) {
    double xx[N], yy[N], vxx[N], vyy[N], dxx[N], dyy[N], dvx[N], dvy[N];
    double X[N], Y[N], gX[N], gY[N], dt = 0.125;
    for (int i = 0; i < N; i++) {
      xx[i] = x0[i];
      yy[i] = vy[i];
      vxx[i] = seed[i];
      vyy[i] = 0.5 - 0.3 * i;
      dxx[i] = dyy[i] = 0;
      dvx[i] = dvy[i] = 0;
      X[i] = xx[i] + dt * vxx[i];
      Y[i] = yy[i] + dt * vyy[i];
    }
    double ddt;
    if (vconst)
      ddt = __ad_gradient(soa_step, xx, dxx, yy, dyy, AD_CONST, vxx, AD_CONST,
                          vyy, dt, n);
    else
      ddt = __ad_gradient(soa_step, xx, dxx, yy, dyy, vxx, dvx, vyy, dvy, dt, n);
    double want_dt = 0;
    for (int i = 0; i < N; i++) {
      gX[i] = gY[i] = 0;
      for (int j = 0; j < N; j++) {
        if (j == i)
          continue;
        double ddx = X[i] - X[j], ddy = Y[i] - Y[j];
        double r = sqrt(ddx * ddx + ddy * ddy);
        gX[i] -= ddx / (r * r * r);
        gY[i] -= ddy / (r * r * r);
      }
      want_dt += gX[i] * vxx[i] + gY[i] * vyy[i];
    }
    const char *tag = vconst ? "soa (v const)" : "soa";
    for (int i = 0; i < N; i++) {
      ad_check(ad_fmt("%s primal x[%d]", tag, i), xx[i], X[i], 1e-15, 1e-15);
      double xa[N], ya[N], va[N], wa[N];
#define SOA()                                                                  \
  (memcpy(xa, x0, sizeof xa), memcpy(wa, vxx, sizeof wa),                      \
   ya[0] = vy[0], ya[1] = vy[1], ya[2] = vy[2], ya[3] = vy[3], ya[4] = vy[4],  \
   ya[5] = vy[5], memcpy(va, vyy, sizeof va), xa[i] = px, ya[i] = py,          \
   wa[i] = pvx, va[i] = pvy, soa_step(xa, ya, wa, va, pdt, n))
      double px = x0[i], py = vy[i], pvx = vxx[i], pvy = vyy[i], pdt = dt;
      ad_deriv(ad_fmt("%s d/dx[%d]", tag, i), dxx[i], gX[i], AD_FD(px, SOA()),
               AD_TOL_D);
      ad_deriv(ad_fmt("%s d/dy[%d]", tag, i), dyy[i], gY[i], AD_FD(py, SOA()),
               AD_TOL_D);
      if (!vconst) {
        ad_deriv(ad_fmt("%s d/dvx[%d]", tag, i), dvx[i], dt * gX[i],
                 AD_FD(pvx, SOA()), AD_TOL_D);
        ad_deriv(ad_fmt("%s d/dvy[%d]", tag, i), dvy[i], dt * gY[i],
                 AD_FD(pvy, SOA()), AD_TOL_D);
      }
      if (i == 0)
        ad_deriv(ad_fmt("%s d/ddt", tag), ddt, want_dt, AD_FD(pdt, SOA()),
                 AD_TOL_D);
    }
  }

  // Array of structs: energy (read-only).
  {
    struct particle p[N], dp[N];
    double k = 1.75;
    for (int i = 0; i < N; i++) {
      p[i].pos = x0[i];
      p[i].vel = vy[i];
      p[i].mass = (float)(1.0 + 0.25 * i);
      dp[i].pos = 0.5, dp[i].vel = -1.0, dp[i].mass = 2.0f; // += onto these
    }
    double dk = __ad_gradient(aos_energy, p, dp, n, k);
    double want_dk = 0;
    for (int i = 1; i < N; i++)
      want_dk += 0.5 * (p[i].pos - p[i - 1].pos) * (p[i].pos - p[i - 1].pos);
    ad_deriv("aos_energy d/dk", dk, want_dk, AD_FD(k, aos_energy(p, n, k)),
             AD_TOL_D);
    for (int i = 0; i < N; i++) {
      double gpos = (i > 0 ? k * (p[i].pos - p[i - 1].pos) : 0) -
                    (i < N - 1 ? k * (p[i + 1].pos - p[i].pos) : 0);
      ad_deriv(ad_fmt("aos_energy d/dpos[%d] (+0.5)", i), dp[i].pos, 0.5 + gpos,
               0.5 + AD_FD(p[i].pos, aos_energy(p, n, k)), AD_TOL_D);
      ad_deriv(ad_fmt("aos_energy d/dvel[%d] (-1)", i), dp[i].vel,
               -1.0 + p[i].mass * p[i].vel,
               -1.0 + AD_FD(p[i].vel, aos_energy(p, n, k)), AD_TOL_D);
      ad_deriv(ad_fmt("aos_energy d/dmass[%d] (+2, float)", i), dp[i].mass,
               2.0 + 0.5 * p[i].vel * p[i].vel,
               2.0 + AD_FD(p[i].mass, aos_energy(p, n, k)), TOL_MIXED);
    }
  }

  // Array of structs: in-place step with seeded shadows (cotangents of the
  // final pos and vel; mass is only read, so its shadow accumulates).
  {
    struct particle p[N], dp[N], p0[N];
    double dt = 0.1, k = 2.5;
    for (int i = 0; i < N; i++) {
      p[i].pos = x0[i];
      p[i].vel = vy[i];
      p[i].mass = (float)(0.75 + 0.5 * i);
      dp[i].pos = seed[i];
      dp[i].vel = 1.0 - 0.4 * i;
      dp[i].mass = 0.25f;
      p0[i] = p[i];
    }
    struct particle sd[N];
    memcpy(sd, dp, sizeof sd);
    __ad_gradient_void(aos_step, p, dp, n, AD_CONST, dt, AD_CONST, k);
    for (int i = 0; i < N; i++) {
      double pos = p0[i].pos, vel = p0[i].vel, m = p0[i].mass;
      double sp = sd[i].pos, sv = sd[i].vel, sm = sd[i].mass;
      double v1 = vel - dt * k * pos / m;
      ad_check(ad_fmt("aos_step primal vel[%d]", i), p[i].vel, v1, 1e-15, 1e-15);
      ad_check(ad_fmt("aos_step primal pos[%d]", i), p[i].pos, pos + dt * v1,
               1e-15, 1e-15);
      ad_check(ad_fmt("aos_step primal mass[%d]", i), p[i].mass, m, 0, 0);
      struct particle q[N];
      double qp = pos, qv = vel;
      float qm = p0[i].mass;
#define STEP()                                                                 \
  (memcpy(q, p0, sizeof q), q[i].pos = qp, q[i].vel = qv, q[i].mass = qm,      \
   aos_step(q, n, dt, k), sp * q[i].pos + sv * q[i].vel)
      ad_deriv(ad_fmt("aos_step vjp d/dpos0[%d]", i), dp[i].pos,
               sp * (1 - dt * dt * k / m) - sv * dt * k / m, AD_FD(qp, STEP()),
               AD_TOL_D);
      ad_deriv(ad_fmt("aos_step vjp d/dvel0[%d]", i), dp[i].vel, sp * dt + sv,
               AD_FD(qv, STEP()), AD_TOL_D);
      ad_deriv(ad_fmt("aos_step vjp d/dmass[%d] (float, +0.25)", i), dp[i].mass,
               sm + (sp * dt * dt + sv * dt) * k * pos / (m * m),
               sm + AD_FD(qm, STEP()), TOL_MIXED);
    }
  }

  // Nested structs.
  {
    struct body b[4], db[4];
    int nb = n - 2;
    for (int i = 0; i < 4; i++) {
      b[i].p = (struct vec3){x0[i], vy[i], seed[i] + i};
      b[i].v = (struct vec3){vy[i + 1], -x0[i + 1], 0.3 * i - 0.4};
      b[i].m = (float)(0.5 + 0.75 * i);
      b[i].id = i % 3;
      b[i].q[0] = 0.8 - 0.35 * i;
      b[i].q[1] = 0.4 + 0.2 * i;
      memset(&db[i], 0, sizeof db[i]);
      db[i].id = 12345;
    }
    __ad_gradient(bodies_energy, b, db, nb);
    for (int i = 0; i < 4; i++) {
      double c[4], gp[3] = {0, 0, 0}, gc = 0;
      for (int j = 0; j < 4; j++)
        c[j] = b[j].q[0] + b[j].q[1] * b[j].q[1];
      for (int j = 0; j < 4; j++) {
        if (j == i)
          continue;
        double d[3] = {b[i].p.x - b[j].p.x, b[i].p.y - b[j].p.y,
                       b[i].p.z - b[j].p.z};
        double r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        for (int a = 0; a < 3; a++)
          gp[a] -= c[i] * c[j] * d[a] / (r * r * r);
        gc += c[j] / r;
      }
      double w = b[i].id + 1;
      const struct vec3 *v = &b[i].v;
#define BE() bodies_energy(b, nb)
      ad_deriv(ad_fmt("bodies d/dp[%d].x", i), db[i].p.x, gp[0],
               AD_FD(b[i].p.x, BE()), AD_TOL_D);
      ad_deriv(ad_fmt("bodies d/dp[%d].y", i), db[i].p.y, gp[1],
               AD_FD(b[i].p.y, BE()), AD_TOL_D);
      ad_deriv(ad_fmt("bodies d/dp[%d].z", i), db[i].p.z, gp[2],
               AD_FD(b[i].p.z, BE()), AD_TOL_D);
      ad_deriv(ad_fmt("bodies d/dv[%d].x", i), db[i].v.x, b[i].m * v->x * w,
               AD_FD(b[i].v.x, BE()), AD_TOL_D);
      ad_deriv(ad_fmt("bodies d/dv[%d].y", i), db[i].v.y, b[i].m * v->y * w,
               AD_FD(b[i].v.y, BE()), AD_TOL_D);
      ad_deriv(ad_fmt("bodies d/dv[%d].z", i), db[i].v.z, b[i].m * v->z * w,
               AD_FD(b[i].v.z, BE()), AD_TOL_D);
      ad_deriv(ad_fmt("bodies d/dm[%d] (float)", i), db[i].m,
               0.5 * (v->x * v->x + v->y * v->y + v->z * v->z) * w,
               AD_FD(b[i].m, BE()), TOL_MIXED);
      ad_deriv(ad_fmt("bodies d/dq[%d][0]", i), db[i].q[0], gc,
               AD_FD(b[i].q[0], BE()), AD_TOL_D);
      ad_deriv(ad_fmt("bodies d/dq[%d][1]", i), db[i].q[1],
               2 * b[i].q[1] * gc, AD_FD(b[i].q[1], BE()), AD_TOL_D);
      ad_check(ad_fmt("bodies shadow of int id[%d] untouched", i), db[i].id,
               12345, 0, 0);
    }
  }

  // Mixed float/double fields with float arithmetic.
  {
    struct mixed s[3], ds[3];
    for (int i = 0; i < 3; i++) {
      s[i].a = (float)x0[i];
      s[i].b = vy[i];
      for (int j = 0; j < 3; j++)
        s[i].c[j] = (float)(seed[(i + j) % N] + 0.1 * j);
      memset(&ds[i], 0, sizeof ds[i]);
    }
    __ad_gradient(mixed_fn, s, ds, 3);
    for (int i = 0; i < 3; i++) {
      double a = s[i].a, b = s[i].b, c0 = s[i].c[0], c1 = s[i].c[1],
             c2 = s[i].c[2];
      double t = a * c0 + c1 * c2;
#define MX() mixed_fn(s, 3)
      ad_deriv(ad_fmt("mixed d/da[%d] (float)", i), ds[i].a,
               c0 * b + sin(b), AD_FD(s[i].a, MX()), TOL_MIXED);
      ad_deriv(ad_fmt("mixed d/db[%d]", i), ds[i].b, t + cos(b) * a,
               AD_FD(s[i].b, MX()), TOL_MIXED);
      ad_deriv(ad_fmt("mixed d/dc0[%d] (float)", i), ds[i].c[0], a * b,
               AD_FD(s[i].c[0], MX()), TOL_MIXED);
      ad_deriv(ad_fmt("mixed d/dc1[%d] (float)", i), ds[i].c[1], c2 * b,
               AD_FD(s[i].c[1], MX()), TOL_MIXED);
      ad_deriv(ad_fmt("mixed d/dc2[%d] (float)", i), ds[i].c[2], c1 * b,
               AD_FD(s[i].c[2], MX()), TOL_MIXED);
    }
  }

  return ad_finish();
}
