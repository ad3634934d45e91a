// A normal random-number generator that returns two numbers through
// pointers (Box-Muller), for inactive_outparams.c: its body is not visible
// there.
#include <math.h>

unsigned long long rng_state = 1;

static double uniform01(void) {
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return ((double)(rng_state >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

void randn2(double *a, double *b) {
  double r = sqrt(-2 * log(uniform01())), t = 2 * M_PI * uniform01();
  *a = r * cos(t);
  *b = r * sin(t);
}
