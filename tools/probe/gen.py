#!/usr/bin/env python3
"""Random small C/C++ programs that request derivatives of a function f.

    gen.py SEED [--drop K,K,...] [--out FILE]

Every program defines `double f(double *x, int n)` from a list of blocks,
each of which defines one new active local `vK` from the earlier ones. The
blocks mix ordinary code (arithmetic, loops, branches, arrays, helpers, libm)
with the patterns below, where wrong derivatives were found before:

  setjmp       setjmp in f, longjmp from a callee's loop
  ptrglobal    pointer globals aimed at the input or other arrays, also
               inside a global struct; reads and writes through them
  roglobal     a read-only global passed as the input and read by name
  closure      std::function chosen at run time over closures capturing
               active locals by reference; the C form (function pointer
               plus captured pointer)
  nested       f makes its own __ad_gradient/__ad_derivative request of a
               g that writes a global or memory through a pointer
  globals      globals written and read back, thread-local ones, aliasing
               pointer arguments, memcpy/memset over the input

Each block is drawn from its own random stream (SEED, K), so --drop K
replaces block K by a plain copy (`double vK = v0;`) and leaves every other
block as it was: run.py uses that to shrink a failing program.

main() prints, for the driver (run.py) to compare:
  P y            f at X0 (plain call)
  S0/S1/S2 ...   the input's contents after the plain call, the gradient
                 and the derivative request (f may write its input)
  R i g          the gradient, component i (reverse mode)
  F i t          the forward-mode derivative along e_i
  D i d1 d2      central differences with steps h and h/2
Compiled with -DNO_AD, only the primal lines (P, S0, D) are printed.
"""
import argparse
import random
import sys

UNARY = [
    "sin({a})", "cos({a})", "tanh({a})", "atan({a})", "exp(-0.5*({a})*({a}))",
    "sqrt(1.0+({a})*({a}))", "log(1.5+({a})*({a}))", "(0.5*({a}))",
    "pow({a}, 2)", "cbrt(2.0+({a})*({a}))", "exp(0.3*tanh({a}))", "erf({a})",
    "expm1(0.2*({a}))", "log1p(({a})*({a}))", "sinh(0.5*tanh({a}))",
]
BINARY = [
    "({a} + {b})", "({a} - {b})", "({a} * {b})", "({a} / (1.25 + ({b})*({b})))",
    "hypot({a}, 1.0 + ({b})*({b}))", "fma({a}, {b}, 0.25)",
    "atan2({a}, 2.0 + ({b})*({b}))", "pow(1.5 + ({a})*({a}), {b})",
    "fmax({a}, 0.75 * {b} + 0.0625)", "fmin({a}, 0.5 * {b})",
]

# Ordinary blocks and pattern blocks, with how often each is drawn.
ORDINARY = ["arith", "arith", "loop_for", "loop_x", "loop_down", "while_exit",
            "do_while", "loop_break", "branch", "switch", "local_array",
            "heap", "helper", "helper_ptr", "nested_loops", "running_max",
            "running_max_local", "table_nest"]
PATTERNS = {
    "setjmp": ["setjmp_global", "setjmp_array"],
    "ptrglobal": ["ptrglobal_input", "ptrglobal_local", "ptrglobal_struct",
                  "ptrglobal_helper", "ptrglobal_preset", "ptrglobal_preset",
                  "ptrglobal_other", "ptrglobal_other"],
    "roglobal": ["roglobal_read", "roglobal_helper"],
    "closure": ["closure_c", "closure_c_write", "closure_c_apply",
                "closure_c_select",
                "stdfunction", "stdfunction_write", "stdfunction_apply",
                "stdfunction_apply"],
    "nested": ["nested_global", "nested_pointer", "nested_scalar",
               "nested_scalar", "nested_while", "nested_array_loop"],
    "globals": ["global_rw", "thread_local", "alias_helper", "alias_local",
                "memcpy_input", "memset_input"],
}
CXX_ONLY = {"stdfunction", "stdfunction_write", "stdfunction_apply"}
# Blocks that write the input array (not allowed with a read-only global).
WRITES_X = {"ptrglobal_input", "alias_helper", "memcpy_input",
            "memset_input"}


class Block:
    """One block of f: file-scope definitions, lines of f, tags."""

    def __init__(self):
        self.top = []
        self.lines = []
        self.nested = False


class Program:
    def __init__(self, seed, drop=(), patterns=None):
        r = random.Random(seed)
        allowed = sorted(patterns if patterns is not None else PATTERNS)
        self.seed = seed
        self.n = r.randint(2, 4)
        self.which = r.randint(0, 1)
        npat = min(r.choice([0, 1, 1, 1, 1, 2]), len(allowed))
        self.patterns = r.sample(allowed, npat)
        if "roglobal" in self.patterns:
            self.patterns.sort(key=lambda p: p != "roglobal")
        kinds = [r.choice(ORDINARY) for _ in range(r.randint(3, 7))]
        for p in self.patterns:
            for _ in range(r.randint(1, 2)):
                kinds.insert(r.randint(0, len(kinds)), r.choice(PATTERNS[p]))
        self.x_global = "roglobal" in self.patterns
        if self.x_global:
            kinds = [k for k in kinds if k not in WRITES_X]
        self.cxx = any(k in CXX_ONLY for k in kinds) or r.random() < 0.2
        self.x0 = [round(r.choice([-1, 1]) * r.uniform(0.2, 1.3), 3)
                   for _ in range(self.n)]
        self.kinds = kinds
        self.blocks = []
        for k, kind in enumerate(kinds):
            self.blocks.append(self.make_block(seed, k, kind, k in drop))

    # -- expressions -------------------------------------------------------
    def const(self, r):
        return "%.3f" % r.uniform(-1.5, 1.5)

    def expr(self, r, vars_, depth):
        if depth == 0 or r.random() < 0.2:
            return self.const(r) if r.random() < 0.1 else r.choice(vars_)
        if r.random() < 0.5:
            return r.choice(UNARY).format(a=self.expr(r, vars_, depth - 1))
        return r.choice(BINARY).format(a=self.expr(r, vars_, depth - 1),
                                       b=self.expr(r, vars_, depth - 1))

    def bounded(self, r, e):
        return r.choice(["tanh({})", "sin({})", "atan({})", "{}"]).format(e)

    # -- blocks ------------------------------------------------------------
    def make_block(self, seed, k, kind, dropped):
        r = random.Random(seed * 1009 + k)
        vars_ = ["v%d" % i for i in range(self.n)] + \
                ["v%d" % (self.n + j) for j in range(k)]
        b = Block()
        b.kind = kind
        v = "v%d" % (self.n + k)
        if dropped:
            b.kind = "drop"
            b.lines = ["double %s = %s;" % (v, r.choice(vars_))]
            return b
        ctx = dict(v=v, k=k, n=self.n, e=lambda d=2: self.expr(r, vars_, d),
                   c=lambda: self.const(r), var=lambda: r.choice(vars_),
                   m=r.randint(2, 6), r=r)
        getattr(self, "b_" + kind)(b, ctx)
        return b

    def b_arith(self, b, c):
        b.lines.append("double {} = {};".format(
            c["v"], self.bounded(c["r"], c["e"](3))))

    def b_loop_for(self, b, c):
        v = c["v"]
        b.lines += ["double %s = %s;" % (v, c["var"]()),
                    "for (int i = 0; i < %d; i++)" % c["m"],
                    "  %s = 0.5 * %s + 0.3 * sin(%s + %s * (i + 1));"
                    % (v, v, v, c["e"](1))]

    def b_loop_x(self, b, c):
        v = c["v"]
        b.lines += ["double %s = 0.0;" % v,
                    "for (int i = 0; i < n; i++)",
                    "  %s += x[i] * %s;" % (v, c["e"](2))]

    def b_loop_down(self, b, c):
        v = c["v"]
        b.lines += ["double %s = %s;" % (v, c["c"]()),
                    "for (int i = %d; i > 0; i -= 2)" % (c["m"] + 2),
                    "  %s = %s * %s + 0.1 * i;" % (v, v, self.bounded(
                        c["r"], c["e"](1)))]

    def b_while_exit(self, b, c):
        v, k = c["v"], c["k"]
        b.lines += ["double %s = 0.1 + 0.2 * tanh(%s);" % (v, c["e"](1)),
                    "int it%d = 0;" % k,
                    "while (fabs(%s) < 3.0 && it%d < 40) {" % (v, k),
                    "  %s = %s * 1.4 + 0.2 * %s;" % (v, v, c["var"]()),
                    "  it%d++;" % k, "}",
                    "%s = tanh(%s);" % (v, v)]

    def b_do_while(self, b, c):
        v, k = c["v"], c["k"]
        b.lines += ["double %s = %s;" % (v, c["var"]()),
                    "int it%d = 0;" % k,
                    "do {", "  %s = 0.7 * %s + 0.2 * %s;" % (v, v, c["e"](1)),
                    "} while (++it%d < %d && %s > -0.8);" % (k, c["m"], v)]

    def b_loop_break(self, b, c):
        v = c["v"]
        b.lines += ["double %s = %s;" % (v, c["var"]()),
                    "for (int i = 0; i < 20; i++) {",
                    "  if (%s > 1.8 || %s < -1.8) break;" % (v, v),
                    "  %s += 0.15 * (1.0 + %s);" % (v, self.bounded(
                        c["r"], c["e"](1))), "}"]

    def running_choice(self, r, m, a):
        """One step of a running max or min of m over the value a."""
        return r.choice([
            "if (%s > %s) %s = %s;" % (a, m, m, a),
            "if (%s >= %s) %s = %s;" % (a, m, m, a),
            "if (%s < %s) %s = %s;" % (a, m, m, a),
            "%s = %s > %s ? %s : %s;" % (m, m, a, m, a),
            "%s = fmax(%s, %s);" % (m, m, a),
            "%s = fmin(%s, %s);" % (m, a, m)])

    def b_running_max(self, b, c):
        v, r = c["v"], c["r"]
        start = r.choice(["x[0]", c["e"](1)])
        b.lines += ["double %s = %s;" % (v, start),
                    "for (int i = %d; i < n; i++) {" % r.randint(0, 1),
                    "  " + self.running_choice(r, v, r.choice(
                        ["x[i]", "x[i]", "fabs(x[i])", "exp(0.5 * x[i])"]))]
        if r.random() < 0.3:
            b.lines.append("  if (x[i] > 1.2) break;")
        b.lines += ["}", "%s = %s * %s;" % (v, v, self.bounded(r, c["e"](1)))]

    def b_running_max_local(self, b, c):
        v, k, m, r = c["v"], c["k"], c["m"], c["r"]
        b.lines += ["double a%d[%d];" % (k, m),
                    "for (int i = 0; i < %d; i++)" % m,
                    "  a%d[i] = %s * (i + 1) - %s;" % (k, c["e"](1),
                                                       c["var"]()),
                    "double %s = a%d[0];" % (v, k),
                    "for (int i = 1; i < %d; i++) {" % m,
                    "  " + self.running_choice(r, v, "a%d[i]" % k)]
        # A loop that changes what it compares keeps every choice.
        if r.random() < 0.4:
            b.lines.append("  a%d[i] *= 0.5;" % k)
        b.lines += ["}", "%s += a%d[%d];" % (v, k, m - 1)]

    def b_table_nest(self, b, c):
        """A heap table filled, read by a nest whose outer loop leaves the
        address alone (copied once before the nest), sometimes written in
        the nest (then kept per iteration), freed."""
        v, k, m, r = c["v"], c["k"], c["m"], c["r"]
        # The inner bound is known at run time only: no full unrolling.
        w = "(n + %d)" % m
        b.lines += ["double *t%d = (double *)malloc(%s * sizeof(double));"
                    % (k, w),
                    "for (int j = 0; j < %s; j++)" % w,
                    "  t%d[j] = %s + 0.1 * j;" % (k, self.bounded(r, c["e"](1))),
                    "double %s = 0.0;" % v,
                    "for (int i = 0; i < n; i++)",
                    "  for (int j = 0; j < %s; j++) {" % w,
                    "    %s += t%d[j] * x[i] * (j + 1);" % (v, k)]
        if r.random() < 0.3:
            b.lines.append("    t%d[(j + i) %% %s] *= 0.9;" % (k, w))
        b.lines += ["  }", "free(t%d);" % k]

    def b_branch(self, b, c):
        v = c["v"]
        b.lines += ["double %s;" % v,
                    "if (%s > %s)" % (c["e"](1), c["e"](1)),
                    "  %s = %s;" % (v, c["e"](2)), "else",
                    "  %s = %s;" % (v, c["e"](2))]

    def b_switch(self, b, c):
        v = c["v"]
        b.lines += ["double %s = %s;" % (v, c["var"]()),
                    "switch ((int)(fabs(%s) * 3.0) %% 3) {" % c["var"](),
                    "case 0: %s = %s; break;" % (v, c["e"](2)),
                    "case 1: %s *= %s; break;" % (v, c["e"](1)),
                    "default: %s += %s;" % (v, c["e"](1)), "}"]

    def b_local_array(self, b, c):
        v, k, m = c["v"], c["k"], c["m"]
        b.lines += ["double a%d[%d];" % (k, m),
                    "for (int i = 0; i < %d; i++)" % m,
                    "  a%d[i] = %s * (i + 1) - %s;" % (k, c["e"](1),
                                                       c["var"]()),
                    "for (int i = 1; i < %d; i++)" % m,
                    "  a%d[i] = 0.6 * a%d[i] + 0.4 * sin(a%d[i - 1]);"
                    % (k, k, k),
                    "double %s = a%d[%d] * a%d[0];" % (v, k, m - 1, k)]

    def b_heap(self, b, c):
        v, k, m = c["v"], c["k"], c["m"]
        b.lines += ["double *h%d = (double *)malloc(%d * sizeof(double));"
                    % (k, m),
                    "for (int i = 0; i < %d; i++)" % m,
                    "  h%d[i] = cos(%s + 0.1 * i);" % (k, c["e"](1)),
                    "double %s = 0.0;" % v,
                    "for (int i = %d; i >= 0; i--)" % (m - 1),
                    "  %s = %s * 0.5 + h%d[i];" % (v, v, k),
                    "free(h%d);" % k]

    def b_helper(self, b, c):
        v, k = c["v"], c["k"]
        body = self.expr(c["r"], ["p", "q", "s"], 2)
        b.top += ["static double hlp%d(double p, double q) {" % k,
                  "  double s = p;",
                  "  for (int i = 0; i < %d; i++)" % c["m"],
                  "    s = 0.5 * s + 0.25 * %s;" % self.bounded(c["r"], body),
                  "  return s * q;", "}"]
        b.lines.append("double %s = hlp%d(%s, %s);" % (v, k, c["var"](),
                                                       c["var"]()))

    def b_helper_ptr(self, b, c):
        v, k = c["v"], c["k"]
        b.top += ["static void hp%d(const double *in, double *out, int m) {"
                  % k, "  for (int i = 0; i < m; i++)",
                  "    out[i] = in[i] * in[m - 1 - i] + sin(in[i]);", "}"]
        b.lines += ["double i%d[2] = {%s, %s}, o%d[2];" % (
            k, c["var"](), c["var"](), k),
                    "hp%d(i%d, o%d, 2);" % (k, k, k),
                    "double %s = o%d[0] - 0.5 * o%d[1];" % (v, k, k)]

    def b_nested_loops(self, b, c):
        v, m = c["v"], c["m"]
        b.lines += ["double %s = 0.0;" % v,
                    "for (int i = 0; i < %d; i++)" % m,
                    "  for (int j = 0; j <= i; j++)",
                    "    %s += 0.1 * sin(%s * (i - j) + %s);" % (
                        v, c["var"](), c["var"]())]

    # setjmp in f, longjmp from a callee's loop.
    def b_setjmp_global(self, b, c):
        v, k = c["v"], c["k"]
        b.top += ["static jmp_buf jb%d;" % k, "static double sj%d;" % k,
                  "static void walk%d(const double *p, int m, double lim) {"
                  % k, "  for (int i = 0; i < m; i++) {",
                  "    sj%d += p[i] * p[i] + 0.5 * p[i];" % k,
                  "    if (sj%d > lim) longjmp(jb%d, 1);" % (k, k), "  }", "}"]
        b.lines += ["sj%d = %s;" % (k, c["e"](1)), "double %s;" % v,
                    "if (setjmp(jb%d) == 0) {" % k,
                    "  walk%d(x, n, %.2f);" % (k, c["r"].uniform(-0.5, 2.5)),
                    "  %s = sj%d * %s;" % (v, k, c["var"]()), "} else {",
                    "  %s = sj%d + %s;" % (v, k, c["e"](1)), "}"]

    def b_setjmp_array(self, b, c):
        v, k = c["v"], c["k"]
        b.top += ["static jmp_buf jb%d;" % k,
                  "static void fill%d(double *acc, const double *p, int m) {"
                  % k, "  for (int i = 0; i < m; i++) {",
                  "    acc[i] = acc[i] * p[i] + 1.0;",
                  "    if (acc[i] > %.2f) longjmp(jb%d, 1 + i);" % (
                      c["r"].uniform(0.5, 2.0), k), "  }", "}",
                  "static double acc%d[4];" % k]
        b.lines += ["for (int i = 0; i < n; i++) acc%d[i] = %s;" % (
            k, c["var"]()), "double %s;" % v,
                    "int sj%d = setjmp(jb%d);" % (k, k),
                    "if (sj%d == 0) {" % k, "  fill%d(acc%d, x, n);" % (k, k),
                    "  %s = acc%d[0] + acc%d[n - 1];" % (v, k, k), "} else {",
                    "  %s = acc%d[sj%d - 1] * %s;" % (v, k, k, c["var"]()),
                    "}"]

    # Pointer globals aimed at the input or at other arrays.
    def b_ptrglobal_input(self, b, c):
        v, k = c["v"], c["k"]
        b.top += ["static double *G%d;" % k]
        b.lines += ["G%d = x;" % k,
                    "double %s = G%d[0] * %s + G%d[n - 1];" % (
                        v, k, c["var"](), k),
                    "G%d[n - 1] = %s * G%d[0];" % (k, c["e"](1), k),
                    "%s += x[n - 1] * %s;" % (v, c["var"]())]

    def b_ptrglobal_local(self, b, c):
        v, k = c["v"], c["k"]
        b.top += ["static double *G%d;" % k]
        b.lines += ["double l%d[3] = {%s, %s, %s};" % (
            k, c["var"](), c["e"](1), c["var"]()),
                    "G%d = l%d;" % (k, k),
                    "G%d[1] += G%d[0] * G%d[2];" % (k, k, k),
                    "double %s = l%d[1] + G%d[2] * %s;" % (v, k, k, c["var"]())]

    def b_ptrglobal_struct(self, b, c):
        v, k = c["v"], c["k"]
        b.top += ["static struct { double *p; int m; } GS%d;" % k]
        b.lines += ["GS%d.p = x;" % k, "GS%d.m = n;" % k,
                    "double %s = 0.0;" % v,
                    "for (int i = 0; i < GS%d.m; i++)" % k,
                    "  %s += GS%d.p[i] * %s;" % (v, k, c["e"](1))]

    def b_ptrglobal_helper(self, b, c):
        v, k = c["v"], c["k"]
        b.top += ["static struct { double *p; int m; } GS%d;" % k,
                  "static double rd%d(int i) { return GS%d.p[i]; }" % (k, k),
                  "static void wr%d(int i, double t) { GS%d.p[i] = t; }" % (
                      k, k)]
        arr = c["r"].choice(["x", "loc%d" % k])
        b.lines += ["double loc%d[4] = {%s, %s, %s, %s};" % (
            k, c["var"](), c["var"](), c["var"](), c["var"]())]
        if arr == "x" and self.x_global:
            arr = "loc%d" % k
        b.lines += ["GS%d.p = %s;" % (k, arr), "GS%d.m = n;" % k,
                    "wr%d(0, rd%d(0) * %s);" % (k, k, c["e"](1)),
                    "double %s = rd%d(0) + rd%d(n - 1) * %s;" % (
                        v, k, k, c["var"]())]

    def b_ptrglobal_preset(self, b, c):
        # Aimed at the input buffer before f runs: f cannot see the alias.
        v, k, r = c["v"], c["k"], c["r"]
        b.top += ["static double *GI%d = XBUF;" % k,
                  "static struct { double *p; } GB%d = {XBUF};" % k]
        b.lines += ["double %s = GI%d[0] * %s + GB%d.p[n - 1] * %s;" % (
            v, k, c["var"](), k, c["var"]())]
        if not self.x_global and r.random() < 0.6:
            b.lines += [r.choice(["GI%d[n - 1] = %s;", "GB%d.p[0] *= %s;"])
                        % (k, c["e"](1)),
                        "%s += x[0] * x[n - 1];" % v]

    def b_ptrglobal_other(self, b, c):
        # Aimed at another global array that f also uses by name.
        v, k = c["v"], c["k"]
        b.top += ["static double OA%d[3];" % k,
                  "static double *GO%d = OA%d;" % (k, k),
                  "static struct { double *p; int m; } GT%d = {OA%d, 3};" % (
                      k, k)]
        b.lines += ["OA%d[0] = %s;" % (k, c["e"](1)),
                    "GO%d[1] = OA%d[0] * %s;" % (k, k, c["var"]()),
                    "GT%d.p[2] = GO%d[1] + %s;" % (k, k, c["var"]()),
                    "double %s = OA%d[1] * OA%d[2] + GT%d.p[0];" % (
                        v, k, k, k)]

    # A read-only global passed as the input and read by name.
    def b_roglobal_read(self, b, c):
        v, j = c["v"], c["r"].randrange(self.n)
        b.lines.append("double %s = XG[%d] * %s + sin(XG[n - 1]);" % (
            v, j, c["e"](1)))

    def b_roglobal_helper(self, b, c):
        v, k = c["v"], c["k"]
        b.top += ["static double rg%d(double t) {" % k,
                  "  double s = 0.0;", "  for (int i = 0; i < NIN; i++)",
                  "    s += XG[i] * t;", "  return s;", "}"]
        b.lines.append("double %s = rg%d(%s);" % (v, k, c["e"](1)))

    # Closures chosen at run time.
    def b_closure_c(self, b, c):
        v, k = c["v"], c["k"]
        b.top += ["typedef struct { double (*fn)(const double *, double); "
                  "const double *cap; } Clo%d;" % k,
                  "static double c0_%d(const double *cap, double t) "
                  "{ return t * cap[0]; }" % k,
                  "static double c1_%d(const double *cap, double t) "
                  "{ return sin(t) + cap[0] * cap[0]; }" % k]
        b.lines += ["double s%d = %s;" % (k, c["e"](1)), "Clo%d cl%d;" % (k, k),
                    "cl%d.fn = which_sel ? c1_%d : c0_%d;" % (k, k, k),
                    "cl%d.cap = &s%d;" % (k, k),
                    "double %s = cl%d.fn(cl%d.cap, %s) + cl%d.fn(cl%d.cap, %s);"
                    % (v, k, k, c["var"](), k, k, c["var"]())]

    def b_closure_c_write(self, b, c):
        v, k = c["v"], c["k"]
        b.top += ["typedef struct { double (*fn)(double *, double); "
                  "double *cap; } Clw%d;" % k,
                  "static double w0_%d(double *cap, double t) "
                  "{ cap[0] += t; return cap[0] * t; }" % k,
                  "static double w1_%d(double *cap, double t) "
                  "{ cap[0] *= cos(t); return cap[0]; }" % k]
        b.lines += ["double s%d = %s;" % (k, c["e"](1)), "Clw%d cl%d;" % (k, k),
                    "cl%d.fn = which_sel ? w1_%d : w0_%d;" % (k, k, k),
                    "cl%d.cap = &s%d;" % (k, k),
                    "double %s = cl%d.fn(cl%d.cap, %s);" % (v, k, k,
                                                           c["var"]()),
                    "%s += s%d;" % (v, k)]

    def b_stdfunction(self, b, c):
        v, k = c["v"], c["k"]
        b.lines += [
            "double s%d = %s;" % (k, c["e"](1)),
            "auto a0_%d = [&](double t) { return t * s%d + sin(t); };" % (
                k, k),
            "auto a1_%d = [&](double t) { return cos(t) * s%d * s%d; };" % (
                k, k, k),
            "const std::function<double(double)> &act%d = which_sel ? "
            "std::function<double(double)>(a1_%d) : "
            "std::function<double(double)>(a0_%d);" % (k, k, k),
            "double %s = act%d(%s) + act%d(%s);" % (v, k, c["var"](), k,
                                                    c["var"]())]

    def b_stdfunction_write(self, b, c):
        v, k = c["v"], c["k"]
        b.lines += [
            "double s%d = %s, u%d = %s;" % (k, c["e"](1), k, c["var"]()),
            "std::function<double(double)> f0_%d = [&](double t) "
            "{ s%d += t * u%d; return s%d; };" % (k, k, k, k),
            "std::function<double(double)> f1_%d = [&](double t) "
            "{ s%d *= tanh(t + u%d); return s%d * u%d; };" % (k, k, k, k, k),
            "const std::function<double(double)> &act%d = which_sel ? f1_%d "
            ": f0_%d;" % (k, k, k),
            "double %s = act%d(%s);" % (v, k, c["var"]()),
            "%s += act%d(%s) + s%d;" % (v, k, c["var"](), k)]

    def b_stdfunction_apply(self, b, c):
        # The selected closure goes to a helper that calls it in a loop.
        v, k = c["v"], c["k"]
        b.top += ["static double apply%d(const std::function<double(double)> "
                  "&g, double a, int m) {" % k, "  double s = 0.0;",
                  "  for (int i = 0; i < m; i++)",
                  "    s += g(a + 0.1 * i);", "  return s;", "}"]
        b.lines += [
            "double s%d = %s;" % (k, c["e"](1)),
            "std::function<double(double)> f0_%d = [&](double t) "
            "{ return t * s%d; };" % (k, k),
            "std::function<double(double)> f1_%d = [&](double t) "
            "{ return sin(t) * s%d * s%d; };" % (k, k, k),
            "const std::function<double(double)> &act%d = which_sel ? f1_%d "
            ": f0_%d;" % (k, k, k),
            "double %s = apply%d(act%d, %s, %d) + act%d(%s);" % (
                v, k, k, c["var"](), c["m"], k, c["var"]())]

    def b_closure_c_apply(self, b, c):
        v, k = c["v"], c["k"]
        b.top += ["typedef struct { double (*fn)(const double *, double); "
                  "const double *cap; } Cla%d;" % k,
                  "static double c0_%d(const double *cap, double t) "
                  "{ return t * cap[0]; }" % k,
                  "static double c1_%d(const double *cap, double t) "
                  "{ return sin(t) * cap[0] * cap[0]; }" % k,
                  "static double apply%d(const Cla%d *g, double a, int m) {"
                  % (k, k), "  double s = 0.0;",
                  "  for (int i = 0; i < m; i++)",
                  "    s += g->fn(g->cap, a + 0.1 * i);", "  return s;", "}"]
        b.lines += ["double s%d = %s;" % (k, c["e"](1)),
                    "Cla%d cl%d = {which_sel ? c1_%d : c0_%d, &s%d};" % (
                        k, k, k, k, k),
                    "double %s = apply%d(&cl%d, %s, %d);" % (
                        v, k, k, c["var"](), c["m"])]

    def b_closure_c_select(self, b, c):
        # Two whole closures, one chosen by pointer, one copied by value.
        v, k = c["v"], c["k"]
        b.top += ["typedef struct { double (*fn)(double *, double); "
                  "double *cap; } Cls%d;" % k,
                  "static double q0_%d(double *cap, double t) "
                  "{ return t * cap[0]; }" % k,
                  "static double q1_%d(double *cap, double t) "
                  "{ cap[0] *= 0.5 + 0.25 * sin(t); return cap[0]; }" % k,
                  "static double call%d(const Cls%d *g, double a, int m) {"
                  % (k, k), "  double s = 0.0;",
                  "  for (int i = 0; i < m; i++)",
                  "    s += g->fn(g->cap, a - 0.2 * i);", "  return s;", "}"]
        b.lines += ["double s%d = %s;" % (k, c["e"](1)),
                    "Cls%d z0_%d = {q0_%d, &s%d}, z1_%d = {q1_%d, &s%d};" % (
                        (k,) * 7),
                    "const Cls%d *sel%d = which_sel ? &z1_%d : &z0_%d;" % (
                        k, k, k, k),
                    "Cls%d cp%d = which_sel ? z0_%d : z1_%d;" % (k, k, k, k),
                    "double %s = call%d(sel%d, %s, %d);" % (
                        v, k, k, c["var"](), c["m"]),
                    "%s += cp%d.fn(cp%d.cap, %s) + s%d;" % (
                        v, k, k, c["var"](), k)]

    # Nested requests.
    def b_nested_global(self, b, c):
        v, k, r = c["v"], c["k"], c["r"]
        b.nested = True
        g = self.expr(r, ["y[0]", "y[1]"], 2)
        b.top += ["static double NG%d[2];" % k,
                  "static double g%d(double *y, int m) {" % k,
                  "  NG%d[0] = y[0] * y[1] + %s;" % (k, self.const(r)),
                  "  NG%d[1] = sin(y[m - 1]);" % k,
                  "  return %s + NG%d[0] * y[0];" % (g, k), "}"]
        b.lines += ["double y%d[2] = {%s, %s};" % (k, c["var"](), c["var"]())]
        if r.random() < 0.5:
            b.lines += ["double dy%d[2] = {0.0, 0.0};" % k,
                        "__ad_gradient((void *)g%d, y%d, dy%d, 2);" % (k, k, k),
                        "double %s = dy%d[0] * %s + dy%d[1] + NG%d[0] * NG%d[1];"
                        % (v, k, c["var"](), k, k, k)]
        else:
            b.lines += ["double ty%d[2] = {1.0, %s};" % (k, c["var"]()),
                        "double %s = __ad_derivative((void *)g%d, y%d, ty%d, 2);"
                        % (v, k, k, k),
                        "%s += NG%d[0] * %s + NG%d[1];" % (v, k, c["var"](), k)]

    def b_nested_scalar(self, b, c):
        # Scalar arguments: no pointer for the inner request to check.
        v, k, r = c["v"], c["k"], c["r"]
        b.nested = True
        b.top += ["static double NS%d;" % k,
                  "static double g%d(double a, double b) {" % k,
                  "  NS%d = a * %s;" % (k, self.expr(r, ["a", "b"], 1)),
                  "  return NS%d * b + %s;" % (k, self.expr(r, ["a", "b"], 1)),
                  "}"]
        if r.random() < 0.5:
            b.lines += ["double %s = __ad_gradient((void *)g%d, %s, AD_CONST, "
                        "%s);" % (v, k, c["var"](), c["var"]())]
        else:
            b.lines += ["double %s = __ad_derivative((void *)g%d, %s, 1.0, %s,"
                        " %s);" % (v, k, c["var"](), c["var"](), c["c"]())]
        b.lines += ["%s += NS%d * %s;" % (v, k, c["var"]())]

    def b_nested_while(self, b, c):
        # A while loop whose trip count SCEV cannot tell: the inner
        # derivative keeps per-iteration values on the runtime tape.
        v, k, r = c["v"], c["k"], c["r"]
        b.nested = True
        e = self.bounded(r, self.expr(r, ["a", "b", "t"], 2))
        b.top += ["static double gw%d(double a, double b, int m) {" % k,
                  "  double s = 0, t = 0;",
                  "  while (t < m) {",
                  "    s = 0.5 * s + %s * (a + 0.25 * sin(s));" % e,
                  "    t += 0.75;",
                  "  }",
                  "  return s * b;", "}"]
        if r.random() < 0.5:
            b.lines += ["double %s = __ad_gradient((void *)gw%d, %s, AD_CONST, "
                        "%s, 3);" % (v, k, c["var"](), c["var"]())]
        else:
            b.lines += ["double %s = __ad_derivative((void *)gw%d, %s, 1.0, %s,"
                        " %s, 3);" % (v, k, c["var"](), c["var"](), c["c"]())]

    def b_nested_array_loop(self, b, c):
        # The gradient of an array function with a counted loop.
        v, k, r = c["v"], c["k"], c["r"]
        b.nested = True
        e = self.bounded(r, self.expr(r, ["y[i]", "y[i + 1]", "p"], 2))
        b.top += ["static double ga%d(const double *y, int m) {" % k,
                  "  double s = 0, p = 1;",
                  "  for (int i = 0; i + 1 < m; i++) {",
                  "    p = 0.5 * p + %s;" % e,
                  "    s += p * y[i];",
                  "  }",
                  "  return s;", "}"]
        b.lines += ["double y%d[3] = {%s, %s, %s}, dy%d[3] = {0.0, 0.0, 0.0};"
                    % (k, c["var"](), c["var"](), c["var"](), k),
                    "__ad_gradient((void *)ga%d, y%d, dy%d, 3);" % (k, k, k),
                    "double %s = dy%d[0] * %s + dy%d[1] + dy%d[2] * %s;"
                    % (v, k, c["var"](), k, k, c["var"]())]

    def b_nested_pointer(self, b, c):
        v, k, r = c["v"], c["k"], c["r"]
        b.nested = True
        b.top += ["static double g%d(double *y, double *out) {" % k,
                  "  out[0] = y[0] * %s;" % self.expr(r, ["y[0]", "y[1]"], 1),
                  "  out[1] = out[0] + cos(y[1]);",
                  "  return out[1] * y[1];", "}"]
        b.lines += ["double y%d[2] = {%s, %s}, o%d[2] = {0.0, 0.0};" % (
            k, c["var"](), c["var"](), k),
                    "double do%d[2] = {0.0, 0.0};" % k]
        if r.random() < 0.5:
            b.lines += ["double dy%d[2] = {0.0, 0.0};" % k,
                        "__ad_gradient((void *)g%d, y%d, dy%d, o%d, do%d);"
                        % (k, k, k, k, k),
                        "double %s = dy%d[0] + dy%d[1] * o%d[0] + o%d[1];"
                        % (v, k, k, k, k)]
        else:
            b.lines += ["double ty%d[2] = {%s, 1.0};" % (k, c["var"]()),
                        "double %s = __ad_derivative((void *)g%d, y%d, ty%d, "
                        "o%d, do%d);" % (v, k, k, k, k, k),
                        "%s += o%d[0] * o%d[1] + do%d[0];" % (v, k, k, k)]

    # Globals written and read back, thread-local, aliasing, memcpy/memset.
    def b_global_rw(self, b, c):
        v, k = c["v"], c["k"]
        b.top += ["static double GW%d[3];" % k,
                  "static double gw%d(int i) { return GW%d[i] * GW%d[2]; }"
                  % (k, k, k)]
        b.lines += ["for (int i = 0; i < 3; i++)",
                    "  GW%d[i] = %s + 0.1 * i;" % (k, c["e"](1)),
                    "GW%d[1] += GW%d[0];" % (k, k),
                    "double %s = gw%d(1) + GW%d[0];" % (v, k, k)]

    def b_thread_local(self, b, c):
        v, k = c["v"], c["k"]
        b.top += ["static TLOCAL double TL%d;" % k]
        b.lines += ["TL%d = %s;" % (k, c["e"](1)),
                    "double %s = TL%d * %s;" % (v, k, c["var"]()),
                    "TL%d += %s;" % (k, c["var"]()),
                    "%s += TL%d * TL%d;" % (v, k, k)]

    def b_alias_helper(self, b, c):
        v, k = c["v"], c["k"]
        b.top += ["static void mix%d(double *a, const double *b, int m) {" % k,
                  "  for (int i = 0; i < m; i++)",
                  "    a[i] = a[i] * 0.5 + b[i] * b[m - 1 - i];", "}"]
        call = c["r"].choice(["mix%d(x, x, n);", "mix%d(x + 1, x, n - 1);",
                              "mix%d(x, x + 1, n - 1);"]) % k
        b.lines += [call, "double %s = x[0] * %s + x[n - 1];" % (
            v, c["var"]())]

    def b_alias_local(self, b, c):
        v, k = c["v"], c["k"]
        b.top += ["static void mix%d(double *a, const double *b, int m) {" % k,
                  "  for (int i = 0; i < m; i++)",
                  "    a[i] = a[i] * 0.5 + b[i] * b[m - 1 - i];", "}"]
        b.lines += ["double la%d[3] = {%s, %s, %s};" % (
            k, c["var"](), c["e"](1), c["var"]()),
                    c["r"].choice(["mix%d(la%d, la%d, 3);",
                                   "mix%d(la%d + 1, la%d, 2);"]) % (k, k, k),
                    "double %s = la%d[0] + la%d[1] * la%d[2];" % (v, k, k, k)]

    def b_memcpy_input(self, b, c):
        v, k = c["v"], c["k"]
        b.lines += ["double mc%d[2] = {%s, %s};" % (k, c["e"](1), c["var"]()),
                    c["r"].choice([
                        "memcpy(x, mc%d, 2 * sizeof(double));" % k,
                        "memmove(x + 1, x, (n - 1) * sizeof(double));",
                        "memcpy(mc%d, x, 2 * sizeof(double));" % k]),
                    "double %s = x[0] * mc%d[1] + x[1] * %s;" % (
                        v, k, c["var"]())]

    def b_memset_input(self, b, c):
        v, j = c["v"], c["r"].randrange(self.n)
        b.lines += ["memset(x + %d, 0, sizeof(double));" % j,
                    "double %s = x[%d] + %s;" % (v, j, c["e"](2)),
                    "x[%d] = %s;" % (j, c["var"]())]

    # -- the program -------------------------------------------------------
    def source(self):
        out = ["// probe seed=%d patterns=%s blocks=%s nested=%d lang=%s" % (
            self.seed, ",".join(self.patterns) or "none",
            ",".join(b.kind for b in self.blocks),
            any(b.nested for b in self.blocks), "c++" if self.cxx else "c")]
        out += ["#ifndef NO_AD", '#include "ad.h"', "#endif",
                "#include <math.h>", "#include <setjmp.h>",
                "#include <stdio.h>", "#include <stdlib.h>",
                "#include <string.h>"]
        if self.cxx:
            out += ["#include <functional>", "#define TLOCAL thread_local"]
        else:
            out += ["#define TLOCAL _Thread_local"]
        out += ["#define NIN %d" % self.n,
                "static const double X0[NIN] = {%s};" % ", ".join(
                    repr(v) for v in self.x0),
                "static volatile int which_init = %d;" % self.which,
                "static int which_sel;",
                "static double XG[NIN];" if self.x_global else
                "static double XB[NIN];",
                "#define XBUF %s" % ("XG" if self.x_global else "XB")]
        for b in self.blocks:
            out += b.top
        out += ["double f(double *x, int n) {"]
        out += ["  double v%d = x[%d];" % (i, i) for i in range(self.n)]
        for b in self.blocks:
            out += ["  " + line for line in b.lines]
        nv = self.n + len(self.blocks)
        terms = ["%.3f * v%d" % (0.3 + 0.7 * ((i * 7919) % 13) / 13, i)
                 for i in range(nv)]
        out += ["  return %s;" % " + ".join(terms), "}"]
        out += MAIN.split("\n")
        return "\n".join(out) + "\n"


MAIN = r"""
static double *load(const double *v) {
  memcpy(XBUF, v, sizeof XBUF);
  return XBUF;
}
static void show(const char *tag) {
  printf("%s", tag);
  for (int i = 0; i < NIN; i++) printf(" %.17g", XBUF[i]);
  printf("\n");
}
static double eval_at(const double *v) { return f(load(v), NIN); }

int main(void) {
  which_sel = which_init;
  printf("P %.17g\n", eval_at(X0));
  show("S0");
#ifndef NO_AD
  double dx[NIN] = {0};
  __ad_gradient((void *)f, load(X0), dx, NIN);
  show("S1");
  for (int i = 0; i < NIN; i++) printf("R %d %.17g\n", i, dx[i]);
  for (int i = 0; i < NIN; i++) {
    double t[NIN] = {0};
    t[i] = 1.0;
    double d = __ad_derivative((void *)f, load(X0), t, NIN);
    if (i == 0) show("S2");
    printf("F %d %.17g\n", i, d);
  }
#endif
  for (int i = 0; i < NIN; i++) {
    double v[NIN], d[2];
    for (int s = 0; s < 2; s++) {
      double h = ldexp(1.0, -12 - s) * fmax(fabs(X0[i]), 0.25);
      memcpy(v, X0, sizeof v);
      v[i] = X0[i] + h;
      double fp = eval_at(v);
      v[i] = X0[i] - h;
      double fm = eval_at(v);
      d[s] = (fp - fm) / (2 * h);
    }
    printf("D %d %.17g %.17g\n", i, d[0], d[1]);
  }
  return 0;
}"""


def parse_patterns(text):
    """The --patterns list, checked; None for all."""
    if text is None:
        return None
    names = [p for p in text.split(",") if p]
    unknown = [p for p in names if p not in PATTERNS]
    if unknown:
        sys.exit("unknown pattern(s) %s; known: %s" % (
            ",".join(unknown), ",".join(sorted(PATTERNS))))
    return names


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("seed", type=int)
    ap.add_argument("--drop", default="",
                    help="comma-separated block numbers to replace by copies")
    ap.add_argument("--patterns", help="comma-separated patterns to draw "
                    "from (default: all of %s)" % ",".join(sorted(PATTERNS)))
    ap.add_argument("--out", help="write here (default: stdout)")
    a = ap.parse_args()
    drop = {int(s) for s in a.drop.split(",") if s}
    text = Program(a.seed, drop, parse_patterns(a.patterns)).source()
    if a.out:
        with open(a.out, "w") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
