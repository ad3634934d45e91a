// The forward kinematics of a planar arm with three joints, and its
// Jacobian by ad::jacobian: how the hand's position (x, y) moves with each
// joint angle. Then the gradient of the squared distance from the hand to a
// target, by ad::gradient of a lambda that captures the target. Both are
// printed next to central finite differences; the program exits non-zero
// if they disagree.
#include <ad.hpp>
#include <cmath>
#include <cstdio>
#include <vector>

using Vector = std::vector<double>;

static const double kLinks[3] = {1.0, 0.8, 0.5};

// The hand's position for joint angles q (each relative to the previous
// link).
static void position(const Vector &q, double *xy) {
  double angle = 0, x = 0, y = 0;
  for (size_t i = 0; i < q.size(); ++i) {
    angle += q[i];
    x += kLinks[i] * std::cos(angle);
    y += kLinks[i] * std::sin(angle);
  }
  xy[0] = x;
  xy[1] = y;
}

void hand(const Vector &q, Vector &xy) { position(q, xy.data()); }

int main() {
  Vector q = {0.3, -0.6, 1.1};
  Vector J = ad::jacobian(hand, q, 2); // 2 x 3, row-major
  bool ok = true;
  const double h = 1e-6;
  std::printf("Jacobian d(x, y)/dq   ADPass vs finite differences\n");
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) {
      Vector up(q), down(q), y_up(2), y_down(2);
      up[j] += h;
      down[j] -= h;
      hand(up, y_up);
      hand(down, y_down);
      double fd = (y_up[i] - y_down[i]) / (2 * h);
      ok &= std::fabs(J[i * 3 + j] - fd) < 1e-8;
      std::printf("  d%c/dq%d  %14.10f %14.10f\n", "xy"[i], j, J[i * 3 + j],
                  fd);
    }

  const double target[2] = {1.2, 0.9};
  // No std::vector is made inside differentiated code: at -O0 its
  // construction has exception handling, which needs -fno-exceptions.
  auto distance2 = [&target](const Vector &angles) {
    double xy[2];
    position(angles, xy);
    double dx = xy[0] - target[0], dy = xy[1] - target[1];
    return dx * dx + dy * dy;
  };
  Vector g = ad::gradient(distance2, q);
  std::printf("gradient of the squared distance to (1.2, 0.9)\n");
  for (int j = 0; j < 3; ++j) {
    Vector up(q), down(q);
    up[j] += h;
    down[j] -= h;
    double fd = (distance2(up) - distance2(down)) / (2 * h);
    ok &= std::fabs(g[j] - fd) < 1e-8;
    std::printf("  d/dq%d   %14.10f %14.10f\n", j, g[j], fd);
  }
  std::printf("%s\n", ok ? "derivatives match finite differences"
                         : "MISMATCH between derivatives and finite "
                           "differences");
  return ok ? 0 : 1;
}
