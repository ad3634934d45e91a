// Structs that mix floating-point and other fields, copied by assignment
// (memcpy): once into a local and on into an array of structs, with an int
// field read (at -O0, SROA cut such copies into untyped byte slices and
// the derivative through them was silently zero); a C99 variable-length
// 2-D array parameter; an array of structs with padding and float fields.
// Copies with memcpy between buffers that structs point to (fieldcopy: a
// workspace from a helper; bodycopy: a local world whose bodies a helper
// updates): at -O0 each side is a pointer loaded from, or stored into, a
// struct field, whose other loads are what type the memory ("what it
// moves cannot be told" before).
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
#include "ad.h"
#include "adcheck.h"
#include <stdlib.h>
#include <string.h>
typedef struct {
  int n;
  double w[3];
  char tag;
} item;
double structcopy(const item *in, int k) {
  item local = *in; // memcpy of a mixed struct
  item arr[2];
  arr[0] = local;
  arr[1] = local;
  arr[1].w[k] *= 2;
  return arr[0].w[0] * arr[1].w[k] + arr[1].w[2] * local.n;
}
double copied_on(const item *in, int k) {
  item local = *in;
  item arr[2];
  arr[0] = local;
  arr[1] = local;
  return arr[0].w[0] * arr[1].w[k] + arr[1].w[2] * local.n;
}
double vla2d(int n, double a[n][n]) {
  double s = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      s += a[i][j] * a[j][i] * (i + 1);
  return s;
}
typedef struct {
  char c;
  double v;
  short s;
  float f;
} padded;
double pad(const padded *p, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += p[i].v * p[i].f + p[i].s;
  return s;
}
typedef struct {
  double *a, *b;
} workspace;
static workspace *workspace_new(int n) {
  workspace *w = malloc(sizeof *w);
  w->a = malloc(n * sizeof(double));
  w->b = malloc(n * sizeof(double));
  return w;
}
// sum_i x_i^2 (i + 1)
double fieldcopy(const double *x, int n) {
  workspace *w = workspace_new(n);
  for (int i = 0; i < n; i++)
    w->a[i] = x[i] * x[i];
  memcpy(w->b, w->a, n * sizeof(double));
  double s = 0;
  for (int i = 0; i < n; i++)
    s += w->b[i] * (i + 1);
  free(w->a);
  free(w->b);
  free(w);
  return s;
}

typedef struct {
  double pos;
  int tag;
} body;
typedef struct {
  int n;
  body *b;
} world;
__attribute__((noinline)) static void square_all(world *w) {
  for (int i = 0; i < w->n; i++)
    w->b[i].pos *= w->b[i].pos * (w->b[i].tag + 1);
}
// sum_i pos_i^2 (tag_i + 1)
double bodycopy(const body *init, int n) {
  world w = {n, malloc(n * sizeof(body))};
  memcpy(w.b, init, n * sizeof(body));
  square_all(&w);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += w.b[i].pos;
  free(w.b);
  return s;
}

// Doubles copied into the array field of a struct that also has an int
// field, by a helper that then sets the int: from -O1 the helper sees only
// an argument, a copy and an int store 24 bytes on, and the copy was typed
// by that store as integers: a zero derivative, silently. Accesses outside
// the copied bytes no longer type it (the caller's struct does).
typedef struct {
  double v[3];
  int n;
} buf3;
__attribute__((noinline)) static void fill_buf(buf3 *b, const double *src) {
  memcpy(b->v, src, 2 * sizeof(double));
  b->n = 2;
}
double bufprod(const double *p) {
  buf3 b;
  fill_buf(&b, p);
  return b.v[0] * b.v[1];
}

// A copy of only the doubles at the start of a struct that also holds a
// pointer: typed by the whole struct, it moved "data of more than one
// kind", an error at every level (a probe). Copying the doubles into
// the struct's initialised array at -O0, and from a helper that sees only
// references to such structs from -O1, the bytes copied are doubles.
typedef struct {
  double v[4];
  int *count;
} tracked;
__attribute__((noinline)) static void copy_vals(tracked *dst,
                                                const tracked *src) {
  memcpy(dst->v, src->v, sizeof dst->v);
}
double tracked_copy(double a) {
  int c = 0;
  tracked t = {{a, 2 * a, 3 * a, 4 * a}, &c}, u = {{0, 0, 0, 0}, &c};
  copy_vals(&u, &t);
  return u.v[3] * u.v[1];
}

int main(void) {
  item it = {3, {0.5, -1.2, 0.8}, 'x'}, dit = {0};
  __ad_gradient(structcopy, &it, &dit, 1);
  for (int k = 0; k < 3; k++)
    ad_check(ad_fmt("structcopy w%d", k), dit.w[k],
             AD_FD(it.w[k], structcopy(&it, 1)), 1e-6, 1e-8);
  item dcp = {0};
  __ad_gradient(copied_on, &it, &dcp, 1);
  for (int k = 0; k < 3; k++)
    ad_check(ad_fmt("copied_on w%d", k), dcp.w[k],
             AD_FD(it.w[k], copied_on(&it, 1)), 1e-6, 1e-8);
  volatile int vn = 3;
  int n = vn;
  double a[3][3] = {{1, 2, 3}, {0.5, -1, 2}, {0.1, 0.2, 0.3}}, da[3][3] = {{0}};
  __ad_gradient(vla2d, n, a, da);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      ad_check(ad_fmt("vla %d%d", i, j), da[i][j], AD_FD(a[i][j], vla2d(n, a)),
               1e-6, 1e-8);
  padded p[3] = {{'a', 0.5, 2, 1.5f},
                 {'b', -0.3, 1, 2.5f},
                 {'c', 1.1, 3, -0.5f}},
         dp[3] = {{0}};
  __ad_gradient(pad, p, dp, n);
  for (int i = 0; i < 3; i++) {
    ad_check(ad_fmt("pad v%d", i), dp[i].v, AD_FD(p[i].v, pad(p, n)), 1e-6,
             1e-8);
    ad_check(ad_fmt("pad f%d", i), dp[i].f, AD_FD(p[i].f, pad(p, n)), 1e-3,
             1e-4);
  }
  double x[4] = {0.5, -1.5, 2.0, 0.25}, dx[4] = {0};
  __ad_gradient(fieldcopy, x, dx, 4);
  for (int i = 0; i < 4; i++)
    ad_check(ad_fmt("fieldcopy %d", i), dx[i], 2 * x[i] * (i + 1), 1e-12, 0);
  body bs[3] = {{1.5, 0}, {-0.5, 1}, {2.0, 2}}, dbs[3] = {{0, 0}};
  __ad_gradient(bodycopy, bs, dbs, 3);
  for (int i = 0; i < 3; i++)
    ad_check(ad_fmt("bodycopy %d", i), dbs[i].pos,
             2 * bs[i].pos * (bs[i].tag + 1), 1e-12, 0);
  double q[2] = {0.3, -0.4}, dq[2] = {0, 0}, tq[2] = {1, 0};
  __ad_gradient(bufprod, q, dq);
  ad_check("bufprod d/dq0", dq[0], -0.4, 0, 0);
  ad_check("bufprod d/dq1", dq[1], 0.3, 0, 0);
  ad_check("bufprod forward", __ad_derivative(bufprod, q, tq), -0.4, 0, 0);
  ad_check("tracked_copy", __ad_gradient(tracked_copy, 0.5), 16 * 0.5, 1e-15,
           0);
  return ad_finish();
}
