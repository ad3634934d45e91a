// Driver for run-lin.test: calls the f.fwd / f.lin pair that ad-unzip emits
// for @f in branches-and-calls.ll, and checks f.lin against the analytic
// directional derivative and a central finite difference.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

double f(double x, double y);
double f_fwd(double x, double y, void *tape) __asm__("f.fwd");
double f_lin(void *tape, double dx, double dy) __asm__("f.lin");

// The IR module also contains @grad, which calls the reverse-mode marker;
// ad-unzip leaves it in place, so the link needs a definition. Never called.
double __ad_gradient(void *fn, ...) { abort(); }

static int close_to(double got, double want, double rtol) {
  return fabs(got - want) <= rtol * fmax(1.0, fabs(want));
}

static int check(const char *name, double x, double y, double dx, double dy,
                 double analytic) {
  _Alignas(16) unsigned char tape[256];
  double primal = f_fwd(x, y, tape);
  double tangent = f_lin(tape, dx, dy);
  double h = 1e-6;
  double fd = (f(x + h * dx, y + h * dy) - f(x - h * dx, y - h * dy)) / (2 * h);
  int ok = close_to(primal, f(x, y), 1e-15) &&
           close_to(tangent, analytic, 1e-12) && close_to(tangent, fd, 1e-6);
  printf("%s: %s (f=%.17g tangent=%.17g analytic=%.17g fd=%.17g)\n", name,
         ok ? "ok" : "FAIL", primal, tangent, analytic, fd);
  return ok;
}

int main(void) {
  int ok = 1;
  // x > y: f = x^2 y, df = 2xy dx + x^2 dy.
  double x = 1.5, y = 0.5, dx = 0.3, dy = -0.7;
  ok &= check("then-branch", x, y, dx, dy, 2 * x * y * dx + x * x * dy);
  // x <= y: f = e^y / x, df = -e^y/x^2 dx + e^y/x dy.
  x = 0.8, y = 1.2;
  ok &= check("else-branch", x, y, dx, dy,
              -exp(y) / (x * x) * dx + exp(y) / x * dy);
  return ok ? 0 : 1;
}
