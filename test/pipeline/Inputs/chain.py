#!/usr/bin/env python3
"""Writes a C program with a chain of N functions, f_k(x) = f_{k-1}(x) / 2 +
x * (1 + k % 3), each calling the next (noinline), and a main that checks
__ad_gradient(f_{N-1}, x) against the derivative computed by the same
recurrence (d_k = d_{k-1} / 2 + 1 + k % 3, d_0 = 1). Exits non-zero when
they differ by more than 1e-12 relative."""
import sys

n = int(sys.argv[1])
out = ['#include "ad.h"', "#include <math.h>", "#include <stdio.h>",
       "__attribute__((noinline)) double f_0(double x) { return x; }"]
for k in range(1, n):
    out.append("__attribute__((noinline)) double f_%d(double x) "
               "{ return f_%d(x) * 0.5 + x * %d.0; }" % (k, k - 1, 1 + k % 3))
out.append("""int main(void) {
  double want = 1;
  for (int k = 1; k < %d; k++)
    want = want * 0.5 + 1 + k %% 3;
  double got = __ad_gradient(f_%d, 0.75);
  printf("chain of %d: got %%.17g want %%.17g\\n", got, want);
  return fabs(got - want) <= 1e-12 * fabs(want) ? 0 : 1;
}""" % (n, n - 1, n))
print("\n".join(out))
