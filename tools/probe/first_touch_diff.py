#!/usr/bin/env python3
"""Differential probe of the rewrite of zeroed shadows (not part of CI or lit).

    tools/build.sh
    tools/probe/first_touch_diff.py -n 400                 # seeds 1..400
    tools/probe/first_touch_diff.py --start 1000 -n 100 --keep /tmp/ftd

pass/codegen/FirstTouchStores.h turns the loads of a loop that adds into
cells a memset has just zeroed into zeros, and moves the memset. The
rewrite is exact but for the sign of a zero (a contribution of -0.0 is
stored as such, where adding it to the memset's +0.0 gives +0.0), so a
program must print the same bits, zeros printed as +0, with it and without
it (-mllvm -ad-first-touch-stores=0). Each seed gives a program:
a function f with one loop over x (a random stride, start, bound and set
of offsets read, a carried sum or a carried affine recurrence, sometimes
reads outside the loop), and a caller that zeroes dx (all of it, or all
but its first cell), sometimes writes a cell of dx, then requests the
gradient. main runs the caller for several n and memset lengths over dx
prefilled with sentinels and prints all of dx in hexadecimal. A third of
the seeds differentiate with respect to two arrays, both shadows zeroed,
passed apart, as one array, or overlapping by one cell. Each seed
is compiled at -O1 and -O2 both ways and run; the outputs must match.
"Fired" counts the compiles where the rewrite changed the caller's IR.
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def program(seed):
    r = random.Random(seed)
    stride = r.choice([1, 1, 2, 3])
    start = r.choice([0, 0, 1])
    offs = sorted(r.sample([0, 1, 2], r.choice([1, 1, 2, 3])))
    terms = []
    for o in offs:
        e = "x[i + %d]" % o
        form = r.choice(["%s * %s", "%s * c", "%s * %s * %s", "sin(%s)"])
        terms.append(form.replace("%s", e))
    body = " + ".join(terms)
    if len(offs) > 1 and r.random() < 0.5:
        body = "(%s) * x[i + %d]" % (body, offs[0])
    carried = r.choice(["s += %s;", "s += %s;", "s = s * 0.9 + %s;"]) % body
    before = r.choice(["", "", "s = x[0] * x[0];"])
    after = r.choice(["", "", "s += x[n > 2 ? 2 : 0] * 3;"])
    between = r.choice(["", "", "", "dx[0] = 5;",
                        "dx[len > 1 ? len - 1 : 0] += 1;"])
    zero = r.choice(["memset(dx, 0, len * sizeof(double));",
                     "memset(dx, 0, len * sizeof(double));",
                     "memset(dx + 1, 0, (len > 1 ? len - 1 : 0) * sizeof(double));"])
    bound = r.choice(["n", "n - %d" % max(offs)])
    if r.random() < 0.3:
        return two_arrays(seed, r, stride, start, carried, bound, zero)
    return f"""// first_touch_diff seed {seed}
#include "ad.h"
#include <math.h>
#include <stdio.h>
#include <string.h>
static const double c = 0.75;
double f(const double *x, int n) {{
  double s = 0;
  {before}
  for (int i = {start}; i < {bound}; i += {stride}) {{
    {carried}
  }}
  {after}
  return s;
}}
__attribute__((noinline)) void grad(const double *x, double *dx, int n,
                                    int len) {{
  {zero}
  {between}
  __ad_gradient_void(f, x, dx, n);
}}
int main(void) {{
  double x[40], dx[40];
  for (int i = 0; i < 40; i++)
    x[i] = 0.3 + 0.07 * i - 0.002 * i * i;
  int ns[] = {{0, 1, 2, 5, 8, 9, 16}};
  int ds[] = {{0, -1, 1, 2, -3}};
  for (int a = 0; a < 7; a++)
    for (int b = 0; b < 5; b++) {{
      int n = ns[a], len = n + ds[b] < 0 ? 0 : n + ds[b];
      for (int i = 0; i < 40; i++)
        dx[i] = 1000 + i;
      grad(x, dx, n, len);
      for (int i = 0; i < 24; i++) /* + 0.0: one sign for a zero */
        printf("%a ", dx[i] + 0.0);
      printf("\\n");
    }}
  return 0;
}}
"""


def two_arrays(seed, r, stride, start, carried, bound, zero):
    """f of x and y with both shadows zeroed: the loop adds into dx and dy,
    which the caller passes apart, as one array, or overlapping by one
    cell."""
    carried = carried.replace("x[i + 1]", "y[i]").replace("x[i + 2]", "y[i + 1]")
    if "y[" not in carried:
        carried = carried.replace(";", " + y[i] * x[i];", 1)
    zero_y = zero.replace("dx", "dy")
    return f"""// first_touch_diff seed {seed} (two arrays)
#include "ad.h"
#include <math.h>
#include <stdio.h>
#include <string.h>
static const double c = 0.75;
double f(const double *x, const double *y, int n) {{
  double s = 0;
  for (int i = {start}; i < {bound}; i += {stride}) {{
    {carried}
  }}
  return s;
}}
__attribute__((noinline)) void grad(const double *x, double *dx,
                                    const double *y, double *dy, int n,
                                    int len) {{
  {zero}
  {zero_y}
  __ad_gradient_void(f, x, dx, y, dy, n);
}}
int main(void) {{
  double x[48], dx[48], dy[48];
  for (int i = 0; i < 48; i++)
    x[i] = 0.3 + 0.07 * i - 0.002 * i * i;
  int ns[] = {{0, 1, 2, 5, 8, 9, 16}};
  int ds[] = {{0, -1, 2}};
  for (int a = 0; a < 7; a++)
    for (int b = 0; b < 3; b++)
      for (int how = 0; how < 3; how++) {{
        int n = ns[a], len = n + ds[b] < 0 ? 0 : n + ds[b];
        for (int i = 0; i < 48; i++)
          dx[i] = 1000 + i, dy[i] = 2000 + i;
        if (how == 0)
          grad(x, dx, x + 20, dy, n, len);     /* apart */
        else if (how == 1)
          grad(x, dx, x, dx, n, len);          /* one array */
        else
          grad(x, dx, x + 1, dx + 1, n, len);  /* overlapping */
        for (int i = 0; i < 24; i++) /* + 0.0: one sign for a zero */
          printf("%a %a ", dx[i] + 0.0, dy[i] + 0.0);
        printf("\\n");
      }}
  return 0;
}}
"""


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("-n", type=int, default=200, help="number of seeds")
    ap.add_argument("--start", type=int, default=1, help="first seed")
    ap.add_argument("--cc", default="clang-19")
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--keep", help="folder for the programs that differ")
    a = ap.parse_args()
    plugin = os.path.join(a.build, "pass", "libADPass.so")
    runtime = os.path.join(a.build, "runtime", "libADRuntime.a")
    base = [a.cc, "-Xclang", "-load", "-Xclang", plugin,
            "-fpass-plugin=" + plugin, "-I" + os.path.join(REPO, "include")]
    off = ["-mllvm", "-ad-first-touch-stores=0"]
    fired = differing = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "t.c")
        for seed in range(a.start, a.start + a.n):
            with open(src, "w") as out:
                out.write(program(seed))
            for level in ["-O1", "-O2"]:
                outputs, irs = [], []
                for extra in [[], off]:
                    ir = run(base + [level] + extra +
                             ["-S", "-emit-llvm", src, "-o", "-"])
                    exe = os.path.join(tmp, "a.out")
                    built = run(base + [level] + extra +
                                [src, runtime, "-lm", "-o", exe])
                    if ir.returncode or built.returncode:
                        print("seed %d %s: compile failed\n%s" % (
                            seed, level, (ir.stderr + built.stderr)[:2000]))
                        failed += 1
                        break
                    irs.append(ir.stdout)
                    outputs.append(run([exe]).stdout)
                if len(outputs) < 2:
                    continue
                fired += irs[0] != irs[1]
                if outputs[0] != outputs[1]:
                    differing += 1
                    print("seed %d %s: outputs differ" % (seed, level))
                    if a.keep:
                        os.makedirs(a.keep, exist_ok=True)
                        with open(os.path.join(a.keep, "d%d.c" % seed),
                                  "w") as out:
                            out.write(program(seed))
    print("seeds %d, compiles where it fired %d, differing %d, failed %d" % (
        a.n, fired, differing, failed))
    return 1 if differing or failed else 0


if __name__ == "__main__":
    sys.exit(main())
