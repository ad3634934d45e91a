// Extended Rosenbrock function (Moré, Garbow & Hillstrom 1981, problem 21),
// n = 10^6 (n even):
//   f(x) = sum_{i even} 100 (x_{i+1} - x_i^2)^2 + (1 - x_i)^2
#include "harness.h"

double rosenbrock(const double *x, int n) {
  double f = 0;
  for (int i = 0; i < n; i += 2) {
    double a = 1 - x[i];
    double b = x[i + 1] - x[i] * x[i];
    f += a * a + 100 * b * b;
  }
  return f;
}

void rosenbrock_grad_hand(const double *x, double *g, int n) {
  for (int i = 0; i < n; i += 2) {
    double a = 1 - x[i];
    double b = x[i + 1] - x[i] * x[i];
    g[i] = -2 * a - 400 * x[i] * b;
    g[i + 1] = 200 * b;
  }
}

// The same under ADPass's contract: adds into g, which the caller zeroes.
void rosenbrock_grad_hand_acc(const double *x, double *g, int n) {
  for (int i = 0; i < n; i += 2) {
    double a = 1 - x[i];
    double b = x[i + 1] - x[i] * x[i];
    g[i] += -2 * a - 400 * x[i] * b;
    g[i + 1] += 200 * b;
  }
}

BENCH_VECTOR_GRADIENT_ACC(rosenbrock, rosenbrock_grad_hand,
                          rosenbrock_grad_hand_acc, "rosenbrock", 1000000,
                          "10^6", 3, -2, 2, 0)
