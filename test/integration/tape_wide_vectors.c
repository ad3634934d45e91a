// Residuals of 32-byte vectors (AVX's <4 x double>) kept in the records of
// a loop on the runtime tape and in the tape of a callee. Their type has
// 32-byte alignment, the records 16: with -mavx the tape's accesses were
// 32-byte aligned moves, which crashed when a record started at an odd
// multiple of 16. They are aligned to 16 now (TapeRuntime.cpp). At -O0
// every loop pushes records; at -O2 the counted loop keeps an array.
// RUN: %adcc -O0 -mavx %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 -mavx %s -o %t.O2 %adlibs && %t.O2
#include "ad.h"
#include "adcheck.h"

typedef double v4d __attribute__((vector_size(32)));

// One step: v * v * c, a product of two vectors kept for the reverse pass.
static v4d step(v4d v, v4d c) { return v * v * c; }

// Squares x (scaled) k times, each lane on its own: a data-dependent exit
// at -O0 and -O2 alike, and a counted loop; both keep vectors per
// iteration. With lanes x_j and scale c, after k steps a lane is
// c^(2^k - 1) x^(2^k).
double repeated(const double *x, int k) {
  v4d v = {x[0], x[1], x[2], x[3]};
  v4d c = {0.9, 1.1, 0.8, 1.0};
  int i = 0;
  while (i < k && v[0] < 1e6) {
    v = step(v, c);
    ++i;
  }
  for (int j = 0; j < 2; j++)
    v = v * c + v * v;
  return v[0] + 2 * v[1] + 3 * v[2] + 4 * v[3];
}

int main() {
  double x[4] = {0.9, -0.7, 1.05, 0.6}, dx[4] = {0};
  __ad_gradient_void(repeated, x, dx, 3);
  for (int i = 0; i < 4; i++)
    ad_check(ad_fmt("d/dx%d", i), dx[i], AD_FD(x[i], repeated(x, 3)), 1e-6,
             1e-8);
  return ad_finish();
}
