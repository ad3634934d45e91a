// Products of Eigen's dynamic-size matrices and vectors: A * v, A * B,
// A^T * v (through Eigen's GEMV and GEMM kernels, whose scratch buffers
// are chosen in place of the operands' data), a Map of the input as a
// matrix, and a least-squares objective |A x - b|^2; reverse and forward
// mode against central differences, with exceptions on (C++'s default).
// Sizes up to 9 reach the kernels' packed panels and their remainders. At
// -O0, A * B and A^T * v were a compile error: the GEMM blocking sizes go
// through std::max of references (ReferenceChoices.cpp), the scratch
// buffer through an alignment rounding of its address as an integer
// (IntegerAlignedAddresses.cpp), aligned_malloc's block and the null data()
// of a dynamic gemv_static_vector_if are chosen in place of the operand's
// data (Activity.cpp, LinearizeShadows.cpp), and the SSE2 broadcast
// shuffles halves of doubles as integers (VectorCombine, now at -O0 too).
// REQUIRES: eigen
// clang-format off
// RUN: %adcxx -O0 -I/usr/include/eigen3 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcxx -O1 -I/usr/include/eigen3 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcxx -O2 -I/usr/include/eigen3 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcxx -O3 -I/usr/include/eigen3 %s -o %t.O3 %adlibs && %t.O3
// clang-format on
#include "ad.h"
#include "adcheck.h"
#include <Eigen/Dense>
#include <cmath>

static const int MaxN = 9;

// A_ij = x_i x_j + (i + 1) x_j + sin(x_i) / (j + 1).
static Eigen::MatrixXd matrixOf(const double *x, int n) {
  Eigen::MatrixXd A(n, n);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      A(i, j) = x[i] * x[j] + (i + 1) * x[j] + std::sin(x[i]) / (j + 1);
  return A;
}

// Weighted sum, so that every entry of the result counts differently.
static double weighted(const Eigen::VectorXd &y) {
  double s = 0;
  for (int i = 0; i < y.size(); i++)
    s += (i + 1) * y[i];
  return s;
}

double matVec(const double *x, int n) {
  Eigen::MatrixXd A = matrixOf(x, n);
  Eigen::Map<const Eigen::VectorXd> v(x, n);
  Eigen::VectorXd y = A * v;
  return weighted(y);
}

double matMat(const double *x, int n) {
  Eigen::MatrixXd A = matrixOf(x, n);
  Eigen::MatrixXd B = A.transpose() + Eigen::MatrixXd::Identity(n, n) * x[0];
  Eigen::MatrixXd C = A * B;
  return C.sum() + C(n - 1, 0) * C(0, n - 1);
}

double transposedVec(const double *x, int n) {
  Eigen::MatrixXd A = matrixOf(x, n);
  Eigen::Map<const Eigen::VectorXd> v(x, n);
  Eigen::VectorXd y = A.transpose() * v;
  return weighted(y);
}

double squaredNormOfProduct(const double *x, int n) {
  Eigen::MatrixXd A = matrixOf(x, n);
  Eigen::Map<const Eigen::VectorXd> v(x, n);
  return (A * v).squaredNorm();
}

// The input read as a 2 x (n/2) matrix times its last n/2 entries.
double mappedMatrix(const double *x, int n) {
  int m = n / 2;
  Eigen::Map<const Eigen::MatrixXd> A(x, 2, m);
  Eigen::Map<const Eigen::VectorXd> v(x + n - m, m);
  return (A * v).squaredNorm();
}

// |A x - b|^2 for a data matrix A (rows x n) and data b: the gradient is
// 2 A^T (A x - b).
static const int Rows = 7;
static double data[Rows * MaxN], rhs[Rows];

double leastSquares(const double *x, int n) {
  Eigen::Map<const Eigen::MatrixXd> A(data, Rows, n);
  Eigen::Map<const Eigen::VectorXd> b(rhs, Rows), xv(x, n);
  return (A * xv - b).squaredNorm();
}

// Reverse mode against central differences, forward mode (one request
// per direction) against reverse mode.
#define CHECK_BOTH_MODES(name, f, x, n)                                        \
  do {                                                                         \
    double g[MaxN] = {0};                                                      \
    __ad_gradient_void(f, x, g, n);                                            \
    for (int i = 0; i < n; i++) {                                              \
      double dx[MaxN] = {0};                                                   \
      dx[i] = 1;                                                               \
      double fwd = __ad_derivative(f, x, dx, n);                               \
      ad_check(ad_fmt("%s n=%d reverse d/dx%d", name, n, i), g[i],             \
               AD_FD(x[i], f(x, n)), 1e-6, 1e-6);                              \
      ad_check(ad_fmt("%s n=%d forward d/dx%d", name, n, i), fwd, g[i], 1e-9,  \
               1e-9);                                                          \
    }                                                                          \
  } while (0)

int main() {
  double x[MaxN];
  for (int i = 0; i < MaxN; i++)
    x[i] = 0.3 + 0.17 * i - 0.05 * i * i;
  for (int k = 0; k < Rows * MaxN; k++)
    data[k] = std::cos(0.7 * k) + 0.1 * k;
  for (int r = 0; r < Rows; r++)
    rhs[r] = 0.5 - 0.2 * r;
  const int sizes[] = {1, 3, 9};
  for (int n : sizes) {
    CHECK_BOTH_MODES("A*v", matVec, x, n);
    CHECK_BOTH_MODES("A*B", matMat, x, n);
    CHECK_BOTH_MODES("A^T*v", transposedVec, x, n);
    CHECK_BOTH_MODES("|A*v|^2", squaredNormOfProduct, x, n);
    if (n >= 2)
      CHECK_BOTH_MODES("Map A*v", mappedMatrix, x, n);
    CHECK_BOTH_MODES("|A x - b|^2", leastSquares, x, n);
  }
  // The least-squares gradient in closed form, 2 A^T (A x - b).
  int n = MaxN;
  Eigen::Map<const Eigen::MatrixXd> A(data, Rows, n);
  Eigen::Map<const Eigen::VectorXd> b(rhs, Rows), xv(x, n);
  Eigen::VectorXd want = 2 * A.transpose() * (A * xv - b);
  double g[MaxN] = {0};
  __ad_gradient_void(leastSquares, x, g, n);
  for (int i = 0; i < n; i++)
    ad_check(ad_fmt("|A x - b|^2 analytic d/dx%d", i), g[i], want[i], 1e-9,
             1e-9);
  return ad_finish();
}
