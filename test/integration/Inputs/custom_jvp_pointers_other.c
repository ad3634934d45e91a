// The array function whose body the plugin cannot see in
// custom_jvp_pointers.c: s * sum_i sin(a_i) + w . a (w read, not varied).
#include <math.h>
double wsum(const double *a, const double *w, int n, double s) {
  double y = 0;
  for (int i = 0; i < n; i++)
    y += s * sin(a[i]) + w[i] * a[i];
  return y;
}
