// Global variables that the differentiated code writes and reads back are
// differentiated through (API.md), with shadow globals the pass provides;
// globals it only reads are constant data. Covers:
//   scratch  a static scratch array written in a loop, read back
//   cache    a global scalar written by f, read and updated by helpers it
//            calls, two of which take no arguments
//   accum    a global accumulator whose old value (set before the request)
//            is a constant: repeated requests give the same gradient, and
//            the primal side effect happens once per request
//   state    a struct with double, float and int fields, written through a
//            pointer a helper receives (the global's address escapes)
//   table    data main fills in and f only reads (inactive)
//   tls      a _Thread_local scratch value
//   memcpy   copies into and out of a global array; a value overwritten
//   getter   a pointer into a global returned by a helper, used both ways
//   rec      a global updated by every activation of a recursion
//   fnptr    a global written by a function picked at run time
//   forward  __ad_derivative through the scratch array
//   repeat   requests repeated, reverse after forward, for shadows f.rev
//            reaches only through an address f.fwd put on the tape (a
//            pointer chosen between two globals; a _Thread_local array):
//            those shadows were not cleared, and the previous request's
//            cotangents or tangents were added in (found by probing)
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O3 -ffast-math %s -o %t.O3 %adlibs && %t.O3
#include "ad.h"
#include "adcheck.h"

#define N 5

static double scratch[N];

double scratch_f(const double *x, int n) {
  for (int i = 0; i < n; i++)
    scratch[i] = sin(x[i]) * x[(i + 1) % n];
  double s = 0;
  for (int i = 0; i < n; i++)
    s += scratch[i] * scratch[(i + 2) % n];
  return s;
}

double cache;

__attribute__((noinline)) static double use_cache(double y) {
  return cache * y + cache * cache;
}

// Helpers without arguments: only the global carries the derivative.
__attribute__((noinline)) static void halve_cache(void) { cache *= 0.5; }
__attribute__((noinline)) static double read_cache(void) { return cache; }

double cache_f(double x, double y) {
  cache = exp(x) * y;
  double r = use_cache(y);
  halve_cache();
  return r + read_cache() + 2.0 * sin(read_cache()) - 2.0 * sin(cache);
}

double accum;

double accum_f(double x) {
  accum += x * x;
  return accum * x;
}

struct state {
  double pos;
  float gain;
  int steps;
  double hist[3];
} st;

__attribute__((noinline)) static void step(struct state *s, double u) {
  s->hist[s->steps % 3] = s->pos;
  s->pos = s->pos * s->gain + u;
  s->steps++;
}

double state_f(double u, double p0) {
  st.pos = p0;
  st.gain = 0.5f;
  st.steps = 0;
  for (int k = 0; k < 4; k++)
    step(&st, u * k);
  return st.pos + st.hist[0] * st.hist[2];
}

double table[N];

double table_f(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += table[i] * x[i] * x[i];
  return s;
}

// memcpy into and out of a global; a value overwritten in a global.
static double staging[N];

double memcpy_f(const double *x, int n) {
  memcpy(staging, x, n * sizeof(double));
  for (int i = 0; i < n; i++)
    staging[i] *= staging[(i + 1) % n];
  double y[N];
  memcpy(y, staging, sizeof y);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += y[i] * y[i];
  return s;
}

double overwrite_f(double x, double y) {
  staging[0] = x * y;
  double a = staging[0];
  staging[0] = y; // the old value's cotangent must not leak into x
  return a * staging[0];
}

// A getter returning a pointer into a global, read and written through.
__attribute__((noinline)) static double *staging_at(int k) {
  return &staging[k];
}

double getter_f(double x) {
  staging[0] = x * x;
  *staging_at(1) = sin(x);
  return *staging_at(0) * 3 + staging[1] * x;
}

// A global updated by every activation of a recursion.
static double depth_acc;

__attribute__((noinline)) double rec(double x, int d) {
  if (d == 0)
    return depth_acc;
  depth_acc = depth_acc * x + 1.0;
  return rec(x, d - 1) * x;
}

double rec_f(double x) {
  depth_acc = x;
  return rec(x, 5);
}

// A global written by whichever function a pointer picks at run time.
static double hidden;
double via_sin(double x) {
  hidden = sin(x);
  return hidden * hidden;
}
double via_square(double x) {
  hidden = x * x;
  return hidden + hidden * x;
}
double (*volatile pick)(double);

double fnptr_f(double x) {
  double (*g)(double) = pick;
  double r = g(x);
  return r + hidden;
}

_Thread_local double tls;

double tls_f(double x) {
  tls = x * x;
  tls = tls * tls + x;
  return tls;
}

typedef struct { double dx, dy; } grad_xy;
grad_xy __ad_gradient_xy(void *fn, ...) AD_MARKER;
typedef struct { double du, dp; } grad_up;
grad_up __ad_gradient_up(void *fn, ...) AD_MARKER;

static double buf_a[4], buf_b[4];
__attribute__((noinline)) static double refill(double *p, double x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += p[i]; // the previous contents: constants
  for (int i = 0; i < n; i++)
    p[i] = x * (i + 1);
  for (int i = 0; i < n; i++)
    s += p[i] * p[n - 1 - i];
  return s;
}
double chosen_f(double x, int n, int k) {
  return refill(k ? buf_a : buf_b, x, n);
}

static _Thread_local double tls_work[8];
double tls_work_f(double x) {
  double s = 0;
  for (int i = 0; i < 8; i++)
    s += 0.5 * tls_work[i];
  for (int i = 0; i < 8; i++)
    tls_work[i] = sin(x * i);
  for (int i = 1; i < 8; i++)
    s += tls_work[i] * tls_work[i - 1];
  return s;
}

int main(void) {
  volatile int vn = N;
  int n = vn;
  double x[N] = {0.3, -0.8, 1.1, 0.45, -0.2};

  // scratch: compared with finite differences only (the formula is a
  // double sum over wrapped indices).
  double dx[N] = {0};
  __ad_gradient(scratch_f, x, dx, n);
  for (int k = 0; k < n; k++) {
    double fd = AD_FD(x[k], scratch_f(x, n));
    ad_check(ad_fmt("scratch d/dx%d vs FD", k), dx[k], fd, 1e-6, 1e-8);
  }
  // The same request again: the shadow starts from zero each time.
  double dx_again[N] = {0};
  __ad_gradient(scratch_f, x, dx_again, n);
  for (int k = 0; k < n; k++)
    ad_check(ad_fmt("scratch again d/dx%d", k), dx_again[k], dx[k], 0, 0);

  // forward: directional derivative along t equals dx . t
  double t[N] = {1.0, -0.5, 0.25, 2.0, 0.0}, dt[N];
  memcpy(dt, t, sizeof t);
  double dir = 0;
  for (int k = 0; k < n; k++)
    dir += dx[k] * t[k];
  double fwd = __ad_derivative(scratch_f, x, dt, n);
  ad_check("scratch forward", fwd, dir, 1e-12, 1e-12);

  // cache: f = c y + c^2 + c/2 with c = e^x y (the sines cancel)
  volatile double vx = 0.4, vy = -1.3;
  double cx = vx, cy = vy, c = exp(cx) * cy;
  grad_xy g = __ad_gradient_xy(cache_f, cx, cy);
  ad_check("cache holds the primal value", cache, c / 2, 1e-15, 0);
  ad_deriv("cache d/dx", g.dx, c * cy + 2 * c * c + c / 2,
           AD_FD(cx, cache_f(cx, cy)), AD_TOL_D);
  ad_deriv("cache d/dy", g.dy, exp(cx) * cy + c + 2 * c * exp(cx) + exp(cx) / 2,
           AD_FD(cy, cache_f(cx, cy)), AD_TOL_D);
  double fc = __ad_derivative(cache_f, cx, 1.0, cy, 0.0);
  ad_check("cache forward d/dx", fc, g.dx, 1e-12, 1e-12);

  // accum: f = (a0 + x^2) x; a0 is whatever accum held before.
  double ax = 0.7;
  accum = 2.5;
  double ga = __ad_gradient(accum_f, ax);
  double after = accum;
  ad_deriv("accum d/dx", ga, 2.5 + 3 * ax * ax,
           AD_FD(ax, (accum = 2.5, accum_f(ax))), AD_TOL_D);
  ad_check("accum updated once", after, 2.5 + ax * ax, 1e-15, 0);
  accum = -1.0; // another constant a0: another gradient
  double ga2 = __ad_gradient(accum_f, ax);
  ad_check("accum d/dx, a0 = -1", ga2, -1.0 + 3 * ax * ax, 1e-12, 0);

  // state: compared with finite differences.
  volatile double vu = 0.3, vp = 1.7;
  double u = vu, p0 = vp;
  grad_up gs = __ad_gradient_up(state_f, u, p0);
  ad_check("state d/du vs FD", gs.du, AD_FD(u, state_f(u, p0)), 1e-6, 1e-8);
  ad_check("state d/dp0 vs FD", gs.dp, AD_FD(p0, state_f(u, p0)), 1e-6, 1e-8);
  ad_check("state steps", st.steps, 4, 0, 0);

  // table: d/dx_k = 2 table_k x_k
  for (int k = 0; k < n; k++)
    table[k] = 0.5 + k;
  double dtab[N] = {0};
  __ad_gradient(table_f, x, dtab, n);
  for (int k = 0; k < n; k++)
    ad_deriv(ad_fmt("table d/dx%d", k), dtab[k], 2 * table[k] * x[k],
             AD_FD(x[k], table_f(x, n)), AD_TOL_D);

  // tls: f = x^4 + x
  double tx = 0.9;
  ad_deriv("tls d/dx", __ad_gradient(tls_f, tx), 4 * tx * tx * tx + 1,
           AD_FD(tx, tls_f(tx)), AD_TOL_D);
  // memcpy, overwrite, recursion, function pointer: finite differences.
  double dm[N] = {0};
  __ad_gradient(memcpy_f, x, dm, n);
  for (int k = 0; k < n; k++)
    ad_check(ad_fmt("memcpy d/dx%d vs FD", k), dm[k],
             AD_FD(x[k], memcpy_f(x, n)), 1e-6, 1e-8);
  double oy = -1.2;
  ad_check("overwrite d/dx", __ad_gradient(overwrite_f, tx, AD_CONST, oy),
           oy * oy, 1e-12, 0);
  double gx = 0.8;
  ad_deriv("getter d/dx", __ad_gradient(getter_f, gx),
           6 * gx + cos(gx) * gx + sin(gx), AD_FD(gx, getter_f(gx)), AD_TOL_D);
  double rx = 0.7;
  ad_check("recursion d/dx vs FD", __ad_gradient(rec_f, rx),
           AD_FD(rx, rec_f(rx)), 1e-6, 1e-8);
  pick = via_sin;
  ad_deriv("fnptr sin d/dx", __ad_gradient(fnptr_f, rx),
           2 * sin(rx) * cos(rx) + cos(rx), AD_FD(rx, fnptr_f(rx)), AD_TOL_D);
  pick = via_square;
  ad_deriv("fnptr square d/dx", __ad_gradient(fnptr_f, rx),
           2 * rx + 3 * rx * rx + 2 * rx, AD_FD(rx, fnptr_f(rx)), AD_TOL_D);
  // repeat: d/dx of sum x^2 (i+1)(4-i) at x = 2 is 80, every time.
  for (int k = 0; k < 3; k++)
    ad_check(ad_fmt("chosen global, request %d", k),
             __ad_gradient(chosen_f, 2.0, 4, k & 1), 80, 1e-12, 0);
  double xw = 1.0, want = 0;
  for (int i = 1; i < 8; i++)
    want += i * cos(xw * i) * sin(xw * (i - 1)) +
            (i - 1) * cos(xw * (i - 1)) * sin(xw * i);
  for (int k = 0; k < 2; k++)
    ad_check(ad_fmt("thread-local scratch, request %d", k),
             __ad_gradient(tls_work_f, xw), want, 1e-12, 1e-12);
  ad_check("thread-local scratch, forward", __ad_derivative(tls_work_f, xw, 1.0),
           want, 1e-12, 1e-12);
  ad_check("thread-local scratch, reverse after forward",
           __ad_gradient(tls_work_f, xw), want, 1e-12, 1e-12);
  return ad_finish();
}
