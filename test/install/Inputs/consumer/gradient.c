/* The gradient of an iterated map whose trip count is known only at run
 * time, so the derivative keeps the loop's values on the runtime's tape.
 * Checked against the exact derivative, propagated by hand. */
#include <ad.h>
#include <math.h>
#include <stdio.h>

typedef struct {
  double dx, dy;
} grad_xy;
grad_xy __ad_gradient_xy(void *fn, ...) AD_MARKER;

/* s_0 = x, s_{k+1} = y sin(s_k); returns s_n. */
static double iterate(double x, double y, int n) {
  double s = x;
  for (int k = 0; k < n; ++k)
    s = y * sin(s);
  return s;
}

static int check(const char *what, double got, double want) {
  if (fabs(got - want) <= 1e-12 * (1 + fabs(want)))
    return 0;
  printf("FAIL %s: got %.17g want %.17g\n", what, got, want);
  return 1;
}

int main(int argc, char **argv) {
  (void)argv;
  int n = argc + 5;
  double x = 0.7, y = 1.3;
  grad_xy g = __ad_gradient_xy(iterate, x, y, n);

  /* d s_{k+1} = y cos(s_k) d s_k + sin(s_k) d y */
  double s = x, ds_dx = 1, ds_dy = 0;
  for (int k = 0; k < n; ++k) {
    ds_dx = y * cos(s) * ds_dx;
    ds_dy = sin(s) + y * cos(s) * ds_dy;
    s = y * sin(s);
  }
  int failed = check("d/dx", g.dx, ds_dx) + check("d/dy", g.dy, ds_dy);
  if (!failed)
    printf("C gradient ok: %.17g %.17g\n", g.dx, g.dy);
  return failed;
}
