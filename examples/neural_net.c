// Training a small neural network (a multilayer perceptron with one hidden
// layer of tanh units) by stochastic gradient descent, with the gradient of
// the loss with respect to all its weights from one __ad_gradient call per
// mini-batch. The task is a toy classification: is a point of the plane
// inside the circle of radius 1.1? The loss is the mean logistic loss
// (binary cross-entropy) over a mini-batch. Before training, the gradient
// of every weight is compared with central finite differences.
//
//   clang -O2 -fpass-plugin=build/pass/libADPass.so -Iinclude \
//         examples/neural_net.c build/runtime/libADRuntime.a -lm
#include <ad.h>
#include <math.h>
#include <stdio.h>

enum { IN = 2, HIDDEN = 12, POINTS = 256, BATCH = 32 };
// All weights in one array: hidden layer W1[HIDDEN][IN] and b1[HIDDEN],
// then the output layer w2[HIDDEN] and b2.
enum {
  W1 = 0,
  B1 = W1 + HIDDEN * IN,
  W2 = B1 + HIDDEN,
  B2 = W2 + HIDDEN,
  WEIGHTS = B2 + 1
};

// The network's output before the sigmoid (its logit) for one point x.
static double logit(const double *w, const double *x) {
  double out = w[B2];
  for (int j = 0; j < HIDDEN; ++j) {
    double a = w[B1 + j];
    for (int i = 0; i < IN; ++i)
      a += w[W1 + j * IN + i] * x[i];
    out += w[W2 + j] * tanh(a);
  }
  return out;
}

// log(1 + exp(z)), computed without overflow.
static double softplus(double z) {
  return z > 0 ? z + log1p(exp(-z)) : log1p(exp(z));
}

// The function differentiated: mean logistic loss over the points
// first[0..count) of the data set. Only w carries derivatives; the data
// are AD_CONST and the integers are never active.
double batch_loss(const double *w, const double *xs, const double *labels,
                  int first, int count) {
  double sum = 0;
  for (int k = first; k < first + count; ++k) {
    double z = logit(w, xs + IN * k);
    // -log sigmoid(z) for label 1, -log(1 - sigmoid(z)) for label 0
    sum += labels[k] > 0.5 ? softplus(-z) : softplus(z);
  }
  return sum / count;
}

void __ad_gradient_void(void *fn, ...) AD_MARKER;

static void gradient(const double *w, const double *xs, const double *labels,
                     int first, int count, double *g) {
  for (int i = 0; i < WEIGHTS; ++i)
    g[i] = 0; // the gradient is added to what the shadow holds
  __ad_gradient_void(batch_loss, w, g, AD_CONST, xs, AD_CONST, labels, first,
                     count);
}

static double accuracy(const double *w, const double *xs,
                       const double *labels) {
  int right = 0;
  for (int k = 0; k < POINTS; ++k)
    right += (logit(w, xs + IN * k) > 0) == (labels[k] > 0.5);
  return (double)right / POINTS;
}

// A deterministic pseudo-random number in [-1, 1).
static double uniform(unsigned *state) {
  *state = *state * 1664525u + 1013904223u;
  return (*state >> 8) / 8388608.0 - 1.0;
}

int main(void) {
  unsigned seed = 12345;
  double xs[IN * POINTS], labels[POINTS], w[WEIGHTS];
  for (int k = 0; k < POINTS; ++k) {
    xs[IN * k] = 2 * uniform(&seed);
    xs[IN * k + 1] = 2 * uniform(&seed);
    double r2 = xs[IN * k] * xs[IN * k] + xs[IN * k + 1] * xs[IN * k + 1];
    labels[k] = r2 < 1.21;
  }
  for (int i = 0; i < WEIGHTS; ++i)
    w[i] = 0.8 * uniform(&seed);

  // Every weight's derivative against central differences (full data set).
  double g[WEIGHTS];
  gradient(w, xs, labels, 0, POINTS, g);
  double worst = 0;
  int worst_at = 0;
  for (int i = 0; i < WEIGHTS; ++i) {
    // The four-point stencil: error O(h^4) instead of O(h^2).
    double keep = w[i], h = 1e-4, f[4];
    const double at[4] = {-2, -1, 1, 2};
    for (int s = 0; s < 4; ++s) {
      w[i] = keep + at[s] * h;
      f[s] = batch_loss(w, xs, labels, 0, POINTS);
    }
    w[i] = keep;
    double fd = (f[0] - 8 * f[1] + 8 * f[2] - f[3]) / (12 * h);
    double err = fabs(g[i] - fd) / fmax(fabs(fd), 1e-3);
    if (i < 4 || i == B2)
      printf("d loss / d w[%2d] %16.10f  finite diff. %16.10f\n", i, g[i], fd);
    if (err > worst) {
      worst = err;
      worst_at = i;
    }
  }
  printf("largest relative difference over all %d weights: %.1e (w[%d])\n",
         WEIGHTS, worst, worst_at);
  int ok = worst < 1e-6;

  double first_loss = batch_loss(w, xs, labels, 0, POINTS);
  printf("\n%6s %12s %10s\n", "epoch", "loss", "accuracy");
  const double rate = 0.5;
  for (int epoch = 0; epoch <= 400; ++epoch) {
    for (int first = 0; first < POINTS; first += BATCH) {
      gradient(w, xs, labels, first, BATCH, g);
      for (int i = 0; i < WEIGHTS; ++i)
        w[i] -= rate * g[i];
    }
    if (epoch % 50 == 0)
      printf("%6d %12.6f %9.1f%%\n", epoch,
             batch_loss(w, xs, labels, 0, POINTS),
             100 * accuracy(w, xs, labels));
  }
  double last_loss = batch_loss(w, xs, labels, 0, POINTS);
  ok &= last_loss < 0.5 * first_loss;
  printf("%s\n", ok ? "gradient matches finite differences; loss decreased"
                    : "FAILED: gradient and finite differences disagree, or "
                      "the loss did not decrease");
  return ok ? 0 : 1;
}
