#!/usr/bin/env python3
"""Randomized probe for silently wrong derivatives (not part of CI or lit).

    tools/build.sh
    tools/probe/run.py -n 300 --out /tmp/probe-out            # seeds 1..300
    tools/probe/run.py --seeds 17,42 --levels O2 --out /tmp/p  # rerun some
    tools/probe/run.py --plugin P.so --runtime R.a --include DIR ...
    tools/probe/run.py --plugin-opts=-ad-recompute-math-calls=0 -n 200

Each seed gives one program (gen.py). At every level (-O0 -O1 -O2 by
default) it is compiled with the plugin (and -ad-verify-each) and run; a
copy built with -DNO_AD and without the plugin gives the reference primal
(skipped when f makes nested requests, which need the plugin). Checks:
  grad    reverse-mode gradient vs central differences (Richardson of two
          steps; points where the two steps disagree are ill-conditioned
          and skipped)
  fwdrev  forward mode along e_i vs the gradient's component i
  primal  f's value with and without the plugin
  side    the input's contents after the plain call vs after each request
Classes, worst first: crash (compiler crash, invalid IR, a run that dies
without the runtime's message), wrong (a silent mismatch), timeout, stop
(run-time stop with an "ADPass" message), error (clean compile error),
right. A program's class is the worst over its levels; "invalid" means the
plain build (no plugin) failed, a fault of the generator.

Output folder: results.jsonl (one line per program), summary.txt (one line
per wrong or crash case), cases/<class>/pSEED.c[pp] with the source, and
with --reduce N, reduced/pSEED-<class>-<check>.c[pp]: the first N cases of
each (class, check, patterns) shrunk by dropping blocks while the failure
stays the same. Keep the folder outside the repository.
"""
import argparse
import collections
import concurrent.futures
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # nothing generated inside the repository
import gen  # noqa: E402

RANK = ["right", "error", "stop", "timeout", "wrong", "crash", "invalid"]
CRASH_MARKS = ("PLEASE submit a bug report", "Stack dump", "LLVM ERROR",
               "Broken module", "Assertion", "ADPass internal error",
               "UNREACHABLE")


def run_cmd(cmd, timeout):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=timeout, errors="replace")
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return None, "", "timeout"


def first_line(text, *keys):
    for line in text.splitlines():
        if any(k in line for k in keys):
            return line.strip()[:200]
    return text.strip().splitlines()[0][:200] if text.strip() else ""


def parse(out):
    vals = {}
    for line in out.splitlines():
        f = line.split()
        if not f:
            continue
        if f[0] == "P":
            vals["P"] = float(f[1])
        elif f[0] in ("S0", "S1", "S2"):
            vals[f[0]] = [float(t) for t in f[1:]]
        elif f[0] in ("R", "F"):
            vals.setdefault(f[0], {})[int(f[1])] = float(f[2])
        elif f[0] == "D":
            vals.setdefault("D", {})[int(f[1])] = (float(f[2]), float(f[3]))
    return vals


def close(a, b, rtol, atol):
    if not (math.isfinite(a) and math.isfinite(b)):
        return a == b or (math.isnan(a) and math.isnan(b))
    return abs(a - b) <= atol + rtol * max(abs(a), abs(b))


def compare(ad, ref, nin):
    """The first mismatch as (check, message), or None."""
    if "P" not in ad or len(ad.get("R", {})) != nin or \
            len(ad.get("F", {})) != nin:
        return ("output", "incomplete output")
    scale = max(1.0, abs(ad["P"]))
    if ref is not None and not close(ad["P"], ref["P"], 1e-12, 1e-14):
        return ("primal", "f = %.17g, without plugin %.17g" % (ad["P"],
                                                             ref["P"]))
    for tag in ("S1", "S2"):
        for i, (a, b) in enumerate(zip(ad.get(tag, []), ad.get("S0", []))):
            if not close(a, b, 1e-12, 1e-14):
                return ("side", "%s x[%d] = %.17g after the request, "
                        "%.17g after f" % (tag, i, a, b))
    if not math.isfinite(ad["P"]):
        return None
    for i in range(nin):
        g, t = ad["R"][i], ad["F"][i]
        d1, d2 = ad["D"][i]
        fd_ok = math.isfinite(d1) and math.isfinite(d2) and \
            abs(d1 - d2) <= 1e-4 * (abs(d2) + 1e-3 * scale)
        if fd_ok:
            fd = (4 * d2 - d1) / 3
            if not close(g, fd, 1e-6, 1e-7 * scale):
                return ("grad", "d/dx[%d]: reverse %.10g, differences %.10g"
                        " (forward %.10g)" % (i, g, fd, t))
            if not close(t, fd, 1e-6, 1e-7 * scale):
                return ("fwdrev", "d/dx[%d]: forward %.10g, differences %.10g"
                        " (reverse %.10g)" % (i, t, fd, g))
        if not close(g, t, 1e-8, 1e-10 * scale):
            return ("fwdrev", "d/dx[%d]: reverse %.17g, forward %.17g" % (
                i, g, t))
    return None


class Probe:
    def __init__(self, a):
        self.a = a

    def compile(self, src, exe, level, prog, plugin):
        cxx = prog.cxx
        cmd = [self.a.clangxx if cxx else self.a.clang, "-" + level,
               "-w", "-I" + self.a.include]
        if cxx:
            cmd += ["-std=c++17"]
            # C++ with exceptions (clang++'s default) and without, by seed.
            if prog.seed % 2:
                cmd += ["-fno-exceptions"]
        if plugin:
            cmd += ["-fpass-plugin=" + self.a.plugin, "-Xclang", "-load",
                    "-Xclang", self.a.plugin, "-mllvm", "-ad-verify-each"]
            for opt in self.a.plugin_opts.split():
                cmd += ["-mllvm", opt]
        else:
            cmd += ["-DNO_AD"]
        cmd += [src, "-o", exe]
        if plugin:
            cmd += [self.a.runtime]
        cmd += ["-lm"]
        return run_cmd(cmd, self.a.compile_timeout)

    def level(self, prog, src, work, level):
        """(class, check, message) for one optimisation level."""
        exe = os.path.join(work, "ad-" + level)
        ref = None
        if not any(b.nested for b in prog.blocks):
            rexe = os.path.join(work, "ref-" + level)
            rc, _, err = self.compile(src, rexe, level, prog, False)
            if rc != 0:
                return ("invalid", "build", first_line(err, "error"))
            rc, out, err = run_cmd([rexe], self.a.run_timeout)
            if rc != 0:
                return ("invalid", "run", "plain run: rc %s %s" % (
                    rc, first_line(err)))
            ref = parse(out)
        rc, _, err = self.compile(src, exe, level, prog, True)
        if rc is None:
            return ("timeout", "compile", "compile timeout")
        if rc != 0:
            if rc != 1 or any(m in err for m in CRASH_MARKS):
                return ("crash", "compile", first_line(err, *CRASH_MARKS))
            return ("error", "compile", first_line(err, "error:"))
        rc, out, err = run_cmd([exe], self.a.run_timeout)
        if rc is None:
            return ("timeout", "run", "run timeout")
        if rc != 0:
            if "ADPass" in err:
                return ("stop", "run", first_line(err, "ADPass"))
            return ("crash", "run", "rc %d: %s" % (rc, first_line(err)))
        bad = compare(parse(out), ref, prog.n)
        if bad:
            return ("wrong",) + bad
        return ("right", "", "")

    def probe(self, seed, levels, drop=()):
        prog = gen.Program(seed, drop, self.a.patterns)
        work = tempfile.mkdtemp(prefix="p%d-" % seed, dir=self.a.work)
        src = os.path.join(work, "p%d.%s" % (seed, "cpp" if prog.cxx else "c"))
        with open(src, "w") as fh:
            fh.write(prog.source())
        res = {lv: self.level(prog, src, work, lv) for lv in levels}
        shutil.rmtree(work, ignore_errors=True)
        return prog, res


def worst(res):
    return max(res.items(), key=lambda kv: RANK.index(kv[1][0]))


def reduce_case(probe, seed, level, cls, check):
    """Drop blocks one at a time while the failure stays (cls, check)."""
    prog = gen.Program(seed, (), probe.a.patterns)
    drop = set()
    for k in range(len(prog.blocks)):
        _, res = probe.probe(seed, [level], drop | {k})
        if res[level][0] == cls and res[level][1] == check:
            drop.add(k)
    return gen.Program(seed, drop, probe.a.patterns), drop


def save(out, prog, seed, cls, lv, check, msg):
    d = os.path.join(out, "cases", cls)
    os.makedirs(d, exist_ok=True)
    ext = "cpp" if prog.cxx else "c"
    with open(os.path.join(d, "p%d.%s" % (seed, ext)), "w") as fh:
        fh.write(prog.source())
    with open(os.path.join(out, "summary.txt"), "a") as fh:
        fh.write("p%d.%s %s -%s %s [%s] %s\n" % (
            seed, ext, cls, lv, check, ",".join(prog.patterns) or "none", msg))


def report(rows, levels):
    by_class = collections.Counter(r["class"] for r in rows)
    print("programs: %d" % len(rows))
    print("per class: " + ", ".join("%s %d" % (c, by_class[c]) for c in RANK
                                    if by_class[c]))
    for lv in levels:
        cnt = collections.Counter(r["levels"][lv][0] for r in rows)
        print("  -%s: " % lv + ", ".join("%s %d" % (c, cnt[c]) for c in RANK
                                         if cnt[c]))
    per_pat = collections.defaultdict(collections.Counter)
    for r in rows:
        for p in r["patterns"] or ["none"]:
            per_pat[p][r["class"]] += 1
    print("per pattern (a program may have two):")
    for p in sorted(per_pat):
        print("  %-10s " % p + ", ".join(
            "%s %d" % (c, per_pat[p][c]) for c in RANK if per_pat[p][c]))


def main():
    build = os.path.join(REPO, "build")
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("-n", type=int, default=100, help="number of programs")
    ap.add_argument("--start", type=int, default=1, help="first seed")
    ap.add_argument("--seeds", help="comma-separated seeds (overrides -n)")
    ap.add_argument("--levels", default="O0,O1,O2")
    ap.add_argument("--patterns", help="draw only these patterns (comma-"
                    "separated; empty for ordinary code only)")
    ap.add_argument("-j", type=int, default=2, help="programs in parallel")
    ap.add_argument("--out", default="/tmp/probe-out")
    ap.add_argument("--plugin", default=os.path.join(build, "pass",
                                                     "libADPass.so"))
    ap.add_argument("--runtime", default=os.path.join(build, "runtime",
                                                      "libADRuntime.a"))
    ap.add_argument("--include", default=os.path.join(REPO, "include"))
    ap.add_argument("--plugin-opts", default="", metavar="OPTS",
                    help="options of the plugin, each passed with -mllvm "
                    "(\"-ad-recompute-math-calls=0\")")
    ap.add_argument("--clang", default="clang-19")
    ap.add_argument("--clangxx", default="clang++-19")
    ap.add_argument("--compile-timeout", type=int, default=120)
    ap.add_argument("--run-timeout", type=int, default=30)
    ap.add_argument("--reduce", type=int, default=0, metavar="N",
                    help="shrink the first N cases of each failure kind")
    a = ap.parse_args()
    a.patterns = gen.parse_patterns(a.patterns)
    for path in (a.plugin, a.runtime, a.include):
        if not os.path.exists(path):
            sys.exit("run.py: %s does not exist (tools/build.sh?)" % path)
    a.plugin, a.runtime, a.include = map(os.path.abspath,
                                         (a.plugin, a.runtime, a.include))
    os.makedirs(a.out, exist_ok=True)
    a.work = tempfile.mkdtemp(prefix="work-", dir=a.out)
    seeds = [int(s) for s in a.seeds.split(",")] if a.seeds else \
        list(range(a.start, a.start + a.n))
    levels = a.levels.split(",")
    probe = Probe(a)
    rows = []
    reduced = collections.Counter()
    with open(os.path.join(a.out, "results.jsonl"), "a") as log, \
            concurrent.futures.ThreadPoolExecutor(a.j) as pool:
        jobs = {pool.submit(probe.probe, s, levels): s for s in seeds}
        for fut in concurrent.futures.as_completed(jobs):
            seed = jobs[fut]
            prog, res = fut.result()
            lv, (cls, check, msg) = worst(res)
            row = {"seed": seed, "class": cls, "patterns": prog.patterns,
                   "blocks": prog.kinds, "lang": "c++" if prog.cxx else "c",
                   "levels": res}
            rows.append(row)
            log.write(json.dumps(row) + "\n")
            log.flush()
            print("p%d %s %s %s" % (seed, cls, check, msg), flush=True)
            if cls not in ("wrong", "crash"):
                continue
            save(a.out, prog, seed, cls, lv, check, msg)
            key = (cls, check, tuple(sorted(prog.patterns)))
            if reduced[key] < a.reduce:
                reduced[key] += 1
                small, drop = reduce_case(probe, seed, lv, cls, check)
                d = os.path.join(a.out, "reduced")
                os.makedirs(d, exist_ok=True)
                name = "p%d-%s-%s.%s" % (seed, cls, check,
                                         "cpp" if small.cxx else "c")
                with open(os.path.join(d, name), "w") as fh:
                    fh.write("// reduced at -%s: dropped blocks %s\n" % (
                        lv, sorted(drop)) + small.source())
    shutil.rmtree(a.work, ignore_errors=True)
    report(rows, levels)


if __name__ == "__main__":
    main()
