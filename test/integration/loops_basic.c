// Loops reading arrays through pointer arguments with shadows: sum of
// squares; a dot product with one vector AD_CONST (either one); a
// matrix-vector product followed by its 2-norm (both the matrix and the
// vector active); logsumexp with the max trick (the argmax is piecewise
// constant; inputs have no ties); a data-dependent `break` (first negative
// element) and a `break` on a running sum crossing a threshold; `do`/`while`
// loops (Horner with an active scalar next to an active array, and repeated
// squaring until a bound); `continue`; a count-down loop with a loop-carried
// recurrence. Trip counts and inputs come from volatiles, so -O2 cannot fold
// them; every gradient entry is checked against a hand-derived formula and
// central finite differences.
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O3 %s -o %t.O3 %adlibs && %t.O3

#include "ad.h"
#include "adcheck.h"
#include <math.h>

#define MAXN 16

double sumsq(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return s;
}

double dot(const double *a, const double *b, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}

// ||A x||_2 with A row-major m x n.
double matvec_norm(const double *A, const double *x, int m, int n) {
  double s = 0;
  for (int i = 0; i < m; i++) {
    double yi = 0;
    for (int j = 0; j < n; j++)
      yi += A[i * n + j] * x[j];
    s += yi * yi;
  }
  return sqrt(s);
}

double logsumexp(const double *x, int n) {
  int k = 0;
  for (int i = 1; i < n; i++)
    if (x[i] > x[k])
      k = i;
  double s = 0;
  for (int i = 0; i < n; i++)
    s += exp(x[i] - x[k]);
  return x[k] + log(s);
}

// Product of the elements before the first negative one, times that one's
// square (if any).
double prod_until_neg(const double *x, int n) {
  double p = 1;
  int i;
  for (i = 0; i < n; i++) {
    if (x[i] < 0)
      break;
    p *= x[i];
  }
  return i < n ? p * x[i] * x[i] : p;
}

// Sum of cubes until the running sum of squares exceeds lim.
double cubes_until(const double *x, int n, double lim) {
  double s = 0, q = 0;
  for (int i = 0; i < n; i++) {
    q += x[i] * x[i];
    if (q > lim)
      break;
    s += x[i] * x[i] * x[i];
  }
  return s;
}

// Horner: c[0] + c[1] t + ... + c[n-1] t^(n-1), as a do/while.
double horner(const double *c, int n, double t) {
  int i = n - 1;
  double p = 0;
  do {
    p = p * t + c[i];
    i--;
  } while (i >= 0);
  return p;
}

// Square p[0] until it exceeds lim (data-dependent count k); return v * p[1].
double square_until(const double *p, double lim) {
  double v = p[0];
  do {
    v = v * v;
  } while (v < lim);
  return v * p[1];
}

// Sum of x[i]^3 over the non-negative entries with an even index.
double skip_neg(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    if (x[i] < 0)
      continue;
    if (i & 1)
      continue;
    s += x[i] * x[i] * x[i];
  }
  return s;
}

// r_{i} = sin(r_{i+1}) * x[i] + x[i]^2, counting down from r = 0.5.
double countdown(const double *x, int n) {
  double r = 0.5;
  for (int i = n - 1; i >= 0; i--)
    r = sin(r) * x[i] + x[i] * x[i];
  return r;
}

static volatile int vn = 7, vm = 3, vn2 = 4;
static volatile double vx[MAXN] = {0.7, -1.3, 2.1, 0.45, -0.6, 1.15, -2.4,
                                   0.9, 1.6, -0.25, 0.35, 1.8, -1.1, 0.55,
                                   2.3, -0.8};
static volatile double vw[MAXN] = {1.5, -0.4, 0.8, 2.2, -1.7, 0.3, 0.95,
                                   -0.65, 1.25, 0.1, -2.05, 0.75, 1.45, -0.35,
                                   0.6, -1.9};

static void load(double *d, const volatile double *s, int n) {
  for (int i = 0; i < n; i++)
    d[i] = s[i];
}
static void zero(double *d, int n) {
  for (int i = 0; i < n; i++)
    d[i] = 0;
}

int main(int argc, char **argv) {
  (void)argv;
  int n = vn + (argc - 1); // 7
  int m = vm, n2 = vn2;
  double x[MAXN], w[MAXN], dx[MAXN], dw[MAXN];
  load(x, vx, MAXN);
  load(w, vw, MAXN);

  // Sum of squares.
  zero(dx, MAXN);
  __ad_gradient(sumsq, x, dx, n);
  for (int i = 0; i < MAXN; i++) {
    double fd = AD_FD(x[i], sumsq(x, n));
    ad_deriv(ad_fmt("sumsq d/dx[%d]", i), dx[i], i < n ? 2 * x[i] : 0, fd,
             AD_TOL_D);
  }

  // Dot product, one side constant.
  zero(dx, MAXN);
  __ad_gradient(dot, x, dx, AD_CONST, w, n);
  for (int i = 0; i < MAXN; i++) {
    double fd = AD_FD(x[i], dot(x, w, n));
    ad_deriv(ad_fmt("dot d/da[%d], b const", i), dx[i], i < n ? w[i] : 0, fd,
             AD_TOL_D);
  }
  zero(dw, MAXN);
  __ad_gradient(dot, AD_CONST, x, w, dw, n);
  for (int i = 0; i < MAXN; i++) {
    double fd = AD_FD(w[i], dot(x, w, n));
    ad_deriv(ad_fmt("dot d/db[%d], a const", i), dw[i], i < n ? x[i] : 0, fd,
             AD_TOL_D);
  }

  // ||A x||: d/dx = A^T y / |y|, d/dA_ij = y_i x_j / |y|.
  {
    double A[MAXN], dA[MAXN], y[4] = {0}, nrm = 0;
    load(A, vw, m * n2);
    zero(dA, MAXN);
    zero(dx, MAXN);
    __ad_gradient(matvec_norm, A, dA, x, dx, m, n2);
    for (int i = 0; i < m; i++) {
      for (int j = 0; j < n2; j++)
        y[i] += A[i * n2 + j] * x[j];
      nrm += y[i] * y[i];
    }
    nrm = sqrt(nrm);
    for (int j = 0; j < n2; j++) {
      double want = 0;
      for (int i = 0; i < m; i++)
        want += A[i * n2 + j] * y[i] / nrm;
      double fd = AD_FD(x[j], matvec_norm(A, x, m, n2));
      ad_deriv(ad_fmt("matvec_norm d/dx[%d]", j), dx[j], want, fd, AD_TOL_D);
    }
    for (int i = 0; i < m; i++)
      for (int j = 0; j < n2; j++) {
        double fd = AD_FD(A[i * n2 + j], matvec_norm(A, x, m, n2));
        ad_deriv(ad_fmt("matvec_norm d/dA[%d][%d]", i, j), dA[i * n2 + j],
                 y[i] * x[j] / nrm, fd, AD_TOL_D);
      }
    ad_check("matvec_norm dx beyond n untouched", dx[n2], 0, 0, 0);
    ad_check("matvec_norm dA beyond m*n untouched", dA[m * n2], 0, 0, 0);
  }

  // logsumexp: softmax. Argmax at index 2 (2.1) for the first 7 entries,
  // at index 14 (2.3) for all 16; the runner-up is 0.2 below.
  for (int len = n; len <= MAXN; len += MAXN - n) {
    double mx = x[0], s = 0;
    for (int i = 1; i < len; i++)
      mx = x[i] > mx ? x[i] : mx;
    for (int i = 0; i < len; i++)
      s += exp(x[i] - mx);
    zero(dx, MAXN);
    __ad_gradient(logsumexp, x, dx, len);
    for (int i = 0; i < MAXN; i++) {
      double fd = AD_FD(x[i], logsumexp(x, len));
      ad_deriv(ad_fmt("logsumexp(n=%d) d/dx[%d]", len, i), dx[i],
               i < len ? exp(x[i] - mx) / s : 0, fd, AD_TOL_D);
    }
  }

  // break at the first negative element: index 1 for x, none for |x|+0.1
  // over the first 4.
  for (int variant = 0; variant < 3; variant++) {
    double xv[MAXN];
    int len = variant == 2 ? 4 : n;
    for (int i = 0; i < MAXN; i++)
      xv[i] = variant == 0 ? x[i] : variant == 1 ? x[(i + 2) % MAXN]
                                                 : fabs(x[i]) + 0.1;
    int k = 0;
    double p = 1;
    while (k < len && xv[k] >= 0)
      p *= xv[k++];
    zero(dx, MAXN);
    __ad_gradient(prod_until_neg, xv, dx, len);
    for (int i = 0; i < MAXN; i++) {
      double want;
      if (i < k)
        want = (k < len ? p * xv[k] * xv[k] : p) / xv[i];
      else if (i == k && k < len)
        want = 2 * p * xv[k];
      else
        want = 0;
      double fd = AD_FD(xv[i], prod_until_neg(xv, len));
      ad_deriv(ad_fmt("prod_until_neg(v%d, break at %d) d/dx[%d]", variant, k,
                      i),
               dx[i], want, fd, AD_TOL_D);
    }
  }

  // break when the running sum of squares passes lim: x^2 partial sums are
  // 0.49, 2.18, 6.59, 6.79, 7.15, 8.47, 14.23 -> with lim 7.0 the loop
  // breaks at i = 4 (|7.15 - 7.0| is far beyond the FD step).
  {
    double lim = 7.0;
    int k = 0;
    double q = 0;
    for (k = 0; k < n; k++) {
      q += x[k] * x[k];
      if (q > lim)
        break;
    }
    zero(dx, MAXN);
    double dlim = __ad_gradient(cubes_until, x, dx, n, lim);
    ad_check("cubes_until breaks at 4", k, 4, 0, 0);
    for (int i = 0; i < MAXN; i++) {
      double fd = AD_FD(x[i], cubes_until(x, n, lim));
      ad_deriv(ad_fmt("cubes_until d/dx[%d]", i), dx[i],
               i < k ? 3 * x[i] * x[i] : 0, fd, AD_TOL_D);
    }
    double fd = AD_FD(lim, cubes_until(x, n, lim));
    ad_deriv("cubes_until d/dlim", dlim, 0, fd, AD_TOL_D);
  }

  // Horner (do/while) with the coefficients in memory and t a scalar.
  for (int len = 1; len <= n; len += 3) {
    double t = x[3] + 0.2 * len; // 0.65, 1.25, 1.85
    double want_t = 0, tp = 1;
    zero(dx, MAXN);
    double dt = __ad_gradient(horner, x, dx, len, t);
    for (int i = 1; i < len; i++) {
      want_t += i * x[i] * tp;
      tp *= t;
    }
    double fdt = AD_FD(t, horner(x, len, t));
    ad_deriv(ad_fmt("horner(n=%d) d/dt", len), dt, want_t, fdt, AD_TOL_D);
    tp = 1;
    for (int i = 0; i < MAXN; i++) {
      double fd = AD_FD(x[i], horner(x, len, t));
      ad_deriv(ad_fmt("horner(n=%d) d/dc[%d]", len, i), dx[i],
               i < len ? tp : 0, fd, AD_TOL_D);
      if (i < len)
        tp *= t;
    }
  }

  // Repeated squaring until the bound: 1.3 -> 1.69 -> 2.86 -> 8.16 -> 66.5
  // -> 4427 (k = 5 squarings for lim 1000, 3 for lim 5, 1 for lim 1.5).
  {
    static const double lims[] = {1000, 5, 1.5};
    static const int ks[] = {5, 3, 1};
    for (int j = 0; j < 3; j++) {
      double p[2] = {x[5] + 0.15, x[2]}, dp[2] = {0, 0}; // {1.3, 2.1}
      double lim = lims[j];
      double e = ldexp(1.0, ks[j]); // v = p0^e
      double dlim = __ad_gradient(square_until, p, dp, lim);
      double fd0 = AD_FD(p[0], square_until(p, lim));
      double fd1 = AD_FD(p[1], square_until(p, lim));
      ad_deriv(ad_fmt("square_until(lim %g) d/dp0", lim), dp[0],
               e * pow(p[0], e - 1) * p[1], fd0, AD_TOL_D);
      ad_deriv(ad_fmt("square_until(lim %g) d/dp1", lim), dp[1],
               pow(p[0], e), fd1, AD_TOL_D);
      ad_check(ad_fmt("square_until(lim %g) d/dlim", lim), dlim, 0, 0, 0);
    }
  }

  // continue.
  zero(dx, MAXN);
  __ad_gradient(skip_neg, x, dx, MAXN);
  for (int i = 0; i < MAXN; i++) {
    double fd = AD_FD(x[i], skip_neg(x, MAXN));
    ad_deriv(ad_fmt("skip_neg d/dx[%d]", i), dx[i],
             (x[i] >= 0 && !(i & 1)) ? 3 * x[i] * x[i] : 0, fd, AD_TOL_D);
  }

  // Count-down recurrence: forward tangents by hand, in the loop's order.
  {
    double r = 0.5, dr[MAXN] = {0};
    for (int i = n - 1; i >= 0; i--) {
      double c = cos(r);
      for (int j = 0; j < MAXN; j++)
        dr[j] = c * dr[j] * x[i];
      dr[i] += sin(r) + 2 * x[i];
      r = sin(r) * x[i] + x[i] * x[i];
    }
    zero(dx, MAXN);
    __ad_gradient(countdown, x, dx, n);
    for (int i = 0; i < MAXN; i++) {
      double fd = AD_FD(x[i], countdown(x, n));
      ad_deriv(ad_fmt("countdown d/dx[%d]", i), dx[i], dr[i], fd, AD_TOL_D);
    }
  }

  return ad_finish();
}
