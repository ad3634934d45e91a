// Newton's method for a small nonlinear system F(x) = 0, with the Jacobian
// from one __ad_linearize and one __ad_jvp per column: F runs once per
// Newton step, and each column costs only the linear part of its
// derivative. The first Jacobian is printed next to central finite
// differences, and checked against the rows __ad_vjp gives.
//
//   clang -O2 -fpass-plugin=build/pass/libADPass.so -Iinclude \
//         examples/jacobian.c build/runtime/libADRuntime.a -lm
#include <ad.h>
#include <math.h>
#include <stdio.h>

enum { N = 3 };

// A sphere, a paraboloid-like surface and a wave, which meet near
// (0.54, 0.75, 0.38).
void F(const double *x, double *r) {
  r[0] = x[0] * x[0] + x[1] * x[1] + x[2] * x[2] - 1.0;
  r[1] = x[2] - 0.5 * x[0] * x[0] - 0.3 * sin(3.0 * x[1]);
  r[2] = exp(x[0] - x[1]) - 1.1 + x[2] * x[1];
}

/// Solves A d = b in place by Gaussian elimination with partial pivoting.
static int solve(double A[N][N], double *b) {
  for (int k = 0; k < N; ++k) {
    int p = k;
    for (int i = k + 1; i < N; ++i)
      if (fabs(A[i][k]) > fabs(A[p][k]))
        p = i;
    if (A[p][k] == 0)
      return 0;
    for (int j = 0; j < N; ++j) {
      double t = A[k][j];
      A[k][j] = A[p][j];
      A[p][j] = t;
    }
    double t = b[k];
    b[k] = b[p];
    b[p] = t;
    for (int i = k + 1; i < N; ++i) {
      double m = A[i][k] / A[k][k];
      for (int j = k; j < N; ++j)
        A[i][j] -= m * A[k][j];
      b[i] -= m * b[k];
    }
  }
  for (int k = N - 1; k >= 0; --k) {
    for (int j = k + 1; j < N; ++j)
      b[k] -= A[k][j] * b[j];
    b[k] /= A[k][k];
  }
  return 1;
}

/// The Jacobian at x from a handle: column j is J e_j. Also returns F(x).
static void jacobian(const double *x, double J[N][N], double *r) {
  ad_linear *L = __ad_linearize(F, x, r);
  for (int j = 0; j < N; ++j) {
    double e[N] = {0}, col[N] = {0}, ignored[N];
    e[j] = 1;
    __ad_jvp_void(F, L, x, e, ignored, col);
    for (int i = 0; i < N; ++i)
      J[i][j] = col[i];
  }
  ad_linear_free(L);
}

/// Compares J with central differences and with the rows of __ad_vjp.
static int check_jacobian(const double *x, double J[N][N]) {
  double y[N];
  ad_linear *L = __ad_linearize(F, x, y);
  int ok = 1;
  printf("Jacobian at x0 (ADPass | finite differences):\n");
  for (int i = 0; i < N; ++i) {
    double seed[N] = {0}, row[N] = {0}, ignored[N];
    seed[i] = 1;
    __ad_vjp_void(F, L, x, row, ignored, seed);
    for (int j = 0; j < N; ++j) {
      double up[N] = {x[0], x[1], x[2]}, down[N] = {x[0], x[1], x[2]};
      double h = 1e-6 * fmax(fabs(x[j]), 1.0), rup[N], rdown[N];
      up[j] += h;
      down[j] -= h;
      F(up, rup);
      F(down, rdown);
      double fd = (rup[i] - rdown[i]) / (2 * h);
      ok &= fabs(J[i][j] - fd) <= 1e-7 * fmax(fabs(fd), 1.0);
      ok &= fabs(J[i][j] - row[j]) <= 1e-14 * fmax(fabs(row[j]), 1.0);
      printf("  %12.8f | %12.8f", J[i][j], fd);
    }
    printf("\n");
  }
  ad_linear_free(L);
  return ok;
}

int main(void) {
  double x[N] = {1.0, 0.2, 0.1}, J[N][N], r[N];
  jacobian(x, J, r);
  int ok = check_jacobian(x, J);
  double norm = 0;
  for (int step = 0; step < 20; ++step) {
    jacobian(x, J, r);
    norm = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    printf("step %2d  |F(x)| = %.3e  x = (%.12f, %.12f, %.12f)\n", step, norm,
           x[0], x[1], x[2]);
    if (norm < 1e-13)
      break;
    double d[N] = {-r[0], -r[1], -r[2]};
    if (!solve(J, d))
      break;
    for (int i = 0; i < N; ++i)
      x[i] += d[i];
  }
  ok &= norm < 1e-13;
  printf("%s\n", ok ? "Jacobian matches finite differences; Newton converged"
                    : "MISMATCH in the Jacobian, or Newton did not converge");
  return ok ? 0 : 1;
}
