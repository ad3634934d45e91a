#!/usr/bin/env python3
"""Generates C translation units for the ADPass compile-time benchmark.

    gen.py calls N      N small functions f_0 .. f_{N-1}; f_k calls f_{k-1},
                        and f_k with k % 8 == 0 also calls f_{k/2} (so the call
                        graph is a DAG, not a pure chain). main requests
                        __ad_gradient(f_{N-1}, x).
    gen.py straight N   one function double f(double *v) of N statements
                        v[k] = v[i] + v[j] * v[l] on an array of M = 64
                        doubles (pseudo-random indices, fixed seed, k not in
                        {i, j, l}), returning v[0]. main requests
                        __ad_gradient_void(f, v, dv).

The source goes to stdout. Compiled with the plugin it is a normal ADPass
program. Compiled with -DAD_NO_PLUGIN it does not include <ad.h>: the markers
become calls of a stub defined in the file (returning 0), so the same source
compiles with plain clang and the two compile times can be compared; the
differentiated functions are compiled in both cases (they have external
linkage and their address is passed to the stub).

Both programs also run: each prints the gradient next to a central finite
difference (calls: d f_{N-1}/dx; straight: every component of dv) and a
checksum, and exits non-zero when the maximum relative error exceeds 1e-6.
Built with -DAD_NO_PLUGIN the gradient is 0 and the check fails, as it
should.
"""
import sys

M = 64  # cells of the straight-line array


class Lcg:
    """64-bit LCG (Knuth's MMIX constants): deterministic on every Python."""

    def __init__(self, seed):
        self.s = seed

    def next(self):
        self.s = (self.s * 6364136223846793005 + 1442695040888963407) % 2**64
        return self.s >> 33


PRELUDE = r"""#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef AD_NO_PLUGIN
/* Baseline build without the plugin: the markers are a plain function. */
__attribute__((noinline)) double ad_stub(void *fn, ...) {
  (void)fn;
  return 0;
}
#define __ad_gradient ad_stub
#define __ad_gradient_void(...) ((void)ad_stub(__VA_ARGS__))
#else
#include <ad.h>
#endif

"""


def gen_calls(n):
    r = Lcg(20240601)
    funcs = ["sin", "cos", "tanh", "atan", "exp", "log1p", "sqrt"]
    out = [PRELUDE]
    out.append("/* %d functions; f_k calls f_{k-1} and, when k %% 8 == 0, "
               "f_{k/2}. */\n" % n)
    for k in range(n):
        c1 = 0.5 + (r.next() % 1000) / 2000.0      # 0.5 .. 1.0
        c2 = ((r.next() % 2001) - 1000) / 4000.0   # -0.25 .. 0.25
        c3 = 0.2 + (r.next() % 1000) / 2500.0      # 0.2 .. 0.6
        g = funcs[r.next() % len(funcs)]
        # Arguments of the math call chosen so that it is defined everywhere.
        if g == "exp":
            mc = "exp(-a * a)"
        elif g == "log1p":
            mc = "log1p(a * a)"
        elif g == "sqrt":
            mc = "sqrt(1.0 + a * a)"
        else:
            mc = "%s(a)" % g
        body = ["double f_%d(double x) {" % k,
                "  double a = x * %.6f %s %.6f;" % (c1, "-" if c2 < 0 else "+", abs(c2)),
                "  double t = %s * %.6f + a * x * 0.01;" % (mc, c3)]
        ret = "0.5 * tanh(t) + sin(x) * 0.25"
        if k > 0:
            body.append("  double y = f_%d(t);" % (k - 1))
            ret = "0.5 * y + tanh(t) * 0.25 + x * 0.125"
        if k >= 8 and k % 8 == 0:
            body.append("  double z = f_%d(0.5 * x + 0.25 * t);" % (k // 2))
            ret += " + 0.25 * z"
        body.append("  return %s;" % ret)
        body.append("}\n")
        out.append("\n".join(body))
    last = n - 1
    out.append(r"""
int main(int argc, char **argv) {
  double x = argc > 1 ? atof(argv[1]) : 0.3;
  double g = __ad_gradient(f_%(last)d, x);
  double h = 1e-5;
  double fd = (f_%(last)d(x + h) - f_%(last)d(x - h)) / (2 * h);
  double e = fabs(g - fd) / (fabs(fd) > 1e-6 ? fabs(fd) : 1e-6);
  printf("calls N=%(n)d: f=%%.17g grad=%%.17g fd=%%.17g rel_err=%%.3g checksum=%%.17g\n",
         f_%(last)d(x), g, fd, e, g + f_%(last)d(x));
  return e <= 1e-6 ? 0 : 1;
}
""" % {"last": last, "n": n})
    return "\n".join(out)


def gen_straight(n):
    r = Lcg(12345)
    out = [PRELUDE]
    out.append("#define M %d\n" % M)
    out.append("/* %d statements v[k] = v[i] + v[j] * v[l], k not in {i, j, l}. */"
               % n)
    out.append("double f(double *v) {")
    for _ in range(n):
        k = r.next() % M
        while True:
            i, j, l = r.next() % M, r.next() % M, r.next() % M
            if k not in (i, j, l):
                break
        out.append("  v[%d] = v[%d] + v[%d] * v[%d];" % (k, i, j, l))
    out.append("  return v[0];\n}\n")
    # Initial values: uniform in [-scale, scale]. With 0.25 the values stay
    # O(1) up to ~1300 statements and then overflow (the update grows them
    # like a random walk with quadratic feedback); 1e-3 keeps 30,000 finite.
    scale = 0.25 if n <= 1000 else 1e-3
    out.append(r"""
static double v0[M], v[M], dv[M], w[M];

int main(int argc, char **argv) {
  double scale = argc > 1 ? atof(argv[1]) : %(scale)g;
  unsigned long long s = 777;
  for (int i = 0; i < M; i++) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    v0[i] = ((double)(s >> 11) / 9007199254740992.0 * 2 - 1) * scale;
  }
  memcpy(v, v0, sizeof v);
  memset(dv, 0, sizeof dv);
  __ad_gradient_void(f, v, dv); /* dv = d f / d v (initial values) */
  memcpy(w, v0, sizeof w);
  double y = f(w);
  /* Error relative to max(|fd_c|, 1e-4 max_j |fd_j|): components much
   * smaller than the gradient's scale are compared at that scale, since the
   * finite difference itself is only accurate to ~1e-11 of it. */
  double fd[M], fdmax = 0, maxe = 0, sum = 0;
  int worst = 0;
  for (int c = 0; c < M; c++) {
    double h = 6e-6 * scale; /* ~ cbrt(eps) * |v|: best central step */
    memcpy(w, v0, sizeof w); w[c] += h; double fp = f(w);
    memcpy(w, v0, sizeof w); w[c] -= h; double fm = f(w);
    fd[c] = (fp - fm) / (2 * h);
    if (fabs(fd[c]) > fdmax) fdmax = fabs(fd[c]);
  }
  for (int c = 0; c < M; c++) {
    double s = fabs(fd[c]) > 1e-4 * fdmax ? fabs(fd[c]) : 1e-4 * fdmax;
    double e = fabs(dv[c] - fd[c]) / s;
    if (!(e <= maxe)) { maxe = e; worst = c; }
    sum += dv[c] * (c + 1);
  }
  printf("straight N=%(n)d M=%%d scale=%%g: f=%%.17g checksum=%%.17g "
         "max_rel_err=%%.3g (component %%d: grad=%%.17g)\n",
         M, scale, y, sum, maxe, worst, dv[worst]);
  return maxe <= 1e-6 ? 0 : 1;
}
""" % {"n": n, "scale": scale})
    return "\n".join(out)


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("calls", "straight"):
        sys.exit("usage: gen.py calls|straight N")
    n = int(sys.argv[2])
    if n < 1:
        sys.exit("gen.py: N must be >= 1")
    sys.stdout.write(gen_calls(n) if sys.argv[1] == "calls" else gen_straight(n))


if __name__ == "__main__":
    main()
