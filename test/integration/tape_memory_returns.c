// Memory a gradient needed goes back when it returns: after one gradient
// whose loop keeps 8 bytes per iteration on the runtime tape for 2 million
// iterations (16 MB), this thread holds at most the runtime's 4 MiB cache.
// With ADPASS_TAPE_CACHE large, the storage stays (the check must fail).
//
// RUN: %adcc -O2 %s -o %t.keep %adlibs && env ADPASS_TAPE_CACHE=100000000 not %t.keep
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2

#include "ad.h"
#include "ad_runtime.h"
#include "adcheck.h"
#include <math.h>

// A loop whose trip count is data-dependent: a record per iteration.
double wave(double x, const double *stop) {
  double s = 0;
  for (long i = 0; stop[i % 4] > 0 && i < 2000000; i++)
    s += sin(x * (double)(i % 7)) * 1e-6;
  return s;
}

static double dwave(double x, const double *stop) {
  return __ad_gradient(wave, x, AD_CONST, stop);
}

int main(void) {
  const double stop[4] = {1, 1, 1, 1};
  const size_t MiB = (size_t)1 << 20;
  double x = 0.3;
  double got = dwave(x, stop);
  size_t peak = __ad_tape_peak_bytes();
  ad_check("the loop kept its records", peak >= 8 * MiB, 1, 0, 0);
  ad_check("cache after the gradient <= 4 MiB",
           __ad_tape_cached_bytes() <= 4 * MiB, 1, 0, 0);
  ad_check("tape empty", __ad_tape_current_bytes() == 0, 1, 0, 0);
  double fd = AD_FD(x, wave(x, stop));
  ad_check("d wave/dx", got, fd, 1e-6, 1e-9);
  // A second call reuses the cache and is just as right.
  ad_check("d wave/dx again", dwave(x, stop), fd, 1e-6, 1e-9);
  ad_check("cache after the second gradient <= 4 MiB",
           __ad_tape_cached_bytes() <= 4 * MiB, 1, 0, 0);
  return ad_finish();
}
