// Loop and memory patterns of ordinary numerical C, each checked against
// central finite differences (and analytic values where short): triangular
// nested loops, an early return from a loop, a do/while with break, a
// pointer walking the input, a scatter through an AD_CONST index array
// (the output shadow keeps its cotangent: y is only added to), an update
// in place through aliased pointers, a helper
// with a loop called inside a loop, float arrays, and a struct holding an
// array (a neuron: sigmoid(w . x + b)).
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O2 -ffast-math %s -o %t.fm %adlibs && %t.fm
// RUN: %adcc -O3 %s -o %t.O3 %adlibs && %t.O3
#include "ad.h"
#include "adcheck.h"
#include <math.h>
#include <string.h>

#define N 7

double tri(const double *a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++)
      s += a[i] * a[j] * (j + 1);
  return s;
}

double early(const double *a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    if (a[i] > 0.95)
      return s * a[i];
    s += sin(a[i]) * a[i];
  }
  return s;
}

double walk(const double *a, int n) {
  double s = 1;
  for (const double *p = a; p < a + n; p++)
    s = s * 0.5 + *p * *p;
  return s;
}

double dowhile(const double *a, int n) {
  double s = 0;
  int i = 0;
  do {
    s += exp(-a[i]) * s + a[i];
    if (s > 50)
      break;
    i++;
  } while (i < n);
  return s;
}

void scatter(const double *x, const int *idx, double *y, int n) {
  for (int i = 0; i < n; i++)
    y[idx[i]] += x[i] * x[i];
}

static double inner(const double *a, int n, double w) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += tanh(a[i] * w);
  return s;
}
double outer(const double *a, int n) {
  double s = 0;
  for (int k = 0; k < n; k++)
    s += inner(a, n, 0.3 * (k + 1)) * a[k];
  return s;
}

float floats(const float *a, int n) {
  float s = 0;
  for (int i = 0; i < n; i++)
    s += sqrtf(a[i] * a[i] + 1.0f) * a[i];
  return s;
}

// In place through aliased pointers: smooth(v, v, n).
static void smooth(const double *x, double *y, int n) {
  for (int i = 1; i < n; i++)
    y[i] = 0.5 * (x[i] + x[i - 1]) * x[i];
}
double aliased(const double *a, int n) {
  double v[N];
  for (int i = 0; i < n; i++)
    v[i] = a[i];
  smooth(v, v, n);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += v[i] * v[i];
  return s;
}

typedef struct {
  double w[N];
  double b;
  int n;
} neuron;
double fire(const neuron *u, const double *x) {
  double s = u->b;
  for (int i = 0; i < u->n; i++)
    s += u->w[i] * x[i];
  return 1 / (1 + exp(-s));
}

typedef double (*vector_fn)(const double *, int);

static void check_vector(const char *name, vector_fn f, double *a, int n,
                         const double *grad) {
  for (int k = 0; k < n; k++)
    ad_check(ad_fmt("%s d/da%d vs finite difference", name, k), grad[k],
             AD_FD(a[k], f(a, n)), 1e-6, 1e-9);
}

int main(void) {
  volatile int vn = N;
  int n = vn;
  double a[N] = {0.3, -0.7, 0.5, 0.99, 0.2, -0.1, 0.8}, g[N];
  // Each request names its function (a marker must): one block per kernel.
  memset(g, 0, sizeof g);
  __ad_gradient(tri, a, g, n);
  check_vector("tri", tri, a, n, g);
  memset(g, 0, sizeof g);
  __ad_gradient(early, a, g, n);
  check_vector("early", early, a, n, g);
  memset(g, 0, sizeof g);
  __ad_gradient(walk, a, g, n);
  check_vector("walk", walk, a, n, g);
  memset(g, 0, sizeof g);
  __ad_gradient(dowhile, a, g, n);
  check_vector("dowhile", dowhile, a, n, g);
  memset(g, 0, sizeof g);
  __ad_gradient(outer, a, g, n);
  check_vector("outer", outer, a, n, g);
  memset(g, 0, sizeof g);
  __ad_gradient(aliased, a, g, n);
  check_vector("aliased", aliased, a, n, g);

  int idx[N] = {2, 0, 2, 1, 0, 2, 1};
  double y[3] = {0}, dy[3] = {1, 2, 3};
  memset(g, 0, sizeof g);
  __ad_gradient_void(scatter, a, g, AD_CONST, idx, y, dy, n);
  for (int k = 0; k < n; k++)
    ad_check(ad_fmt("scatter d/da%d", k), g[k], 2 * a[k] * (idx[k] + 1), 1e-12, 0);
  for (int k = 0; k < 3; k++)
    ad_check(ad_fmt("scatter: output shadow %d keeps its cotangent", k), dy[k],
             k + 1, 0, 0);

  float af[N] = {0.3f, -0.7f, 0.5f, 0.9f, 0.2f, -0.1f, 0.6f}, gf[N] = {0};
  __ad_gradient(floats, af, gf, n);
  for (int k = 0; k < n; k++) {
    double x = af[k];
    ad_check(ad_fmt("floats d/da%d", k), gf[k],
             sqrt(x * x + 1) + x * x / sqrt(x * x + 1), 1e-5, 0);
  }

  neuron u = {{0.1, -0.2, 0.3, 0.4, -0.5, 0.6, -0.05}, 0.05, N}, du;
  memset(&du, 0, sizeof du);
  double x[N] = {1, 2, 3, -1, 0.5, 0.25, -2}, dx[N] = {0};
  __ad_gradient(fire, &u, &du, x, dx);
  double s = u.b;
  for (int i = 0; i < N; i++)
    s += u.w[i] * x[i];
  double sg = 1 / (1 + exp(-s)), ds = sg * (1 - sg);
  for (int i = 0; i < N; i++) {
    ad_check(ad_fmt("fire d/dw%d", i), du.w[i], ds * x[i], 1e-12, 0);
    ad_check(ad_fmt("fire d/dx%d", i), dx[i], ds * u.w[i], 1e-12, 0);
  }
  ad_check("fire d/db", du.b, ds, 1e-12, 0);
  return ad_finish();
}
