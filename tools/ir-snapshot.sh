#!/usr/bin/env bash
# Writes the IR that the plugin produces for every compile line (RUN line) of
# the integration tests and the examples' tests into DIR, one .ll per line.
# Two snapshots taken before and after a refactoring must be identical:
#   tools/ir-snapshot.sh /tmp/ir-before   # on the old tree
#   tools/ir-snapshot.sh /tmp/ir-after    # on the new one
#   diff -r /tmp/ir-before /tmp/ir-after
# Uses build/pass/libADPass.so; AD_JOBS sets the parallelism (default 2).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out="${1:?usage: tools/ir-snapshot.sh DIR}"
mkdir -p "$out"
python3 - "$out" "${AD_JOBS:-2}" <<'PY'
import concurrent.futures, os, re, shlex, subprocess, sys
out, jobs = sys.argv[1], int(sys.argv[2])
bin_dir = "/usr/lib/llvm-19/bin"
plugin = os.path.abspath("build/pass/libADPass.so")
tests = sorted(
    os.path.join(d, f) for d in ("test/integration", "test/examples")
    for f in os.listdir(d) if not f.startswith("Inputs"))

def compiles(path):
    """Each RUN line's compile, as (name, argv) emitting IR to stdout."""
    src_dir = os.path.dirname(path)
    for n, line in enumerate(l for l in open(path) if "RUN:" in l):
        cmd = line.split("RUN:", 1)[1]
        # lit's "%if FEATURE %{ A %} %else %{ B %}": the snapshot is of
        # LLVM 19 (no such feature), so B.
        m = re.match(r"\s*%if\s+\S+\s+%\{.*?%\}\s*(?:%else\s+%\{(.*?)%\})?", cmd)
        if m:
            cmd = m.group(1) or ""
        cmd = cmd.split("&&")[0].split("|")[0]
        if "%adcc" not in cmd and "%adcxx" not in cmd:
            continue
        cmd = re.sub(r"^\s*not\s+", "", cmd)
        cmd = (cmd.replace("%adcc", bin_dir + "/clang")
               .replace("%adcxx", bin_dir + "/clang++")
               .replace("%adlibs", "").replace("%s", path)
               .replace("%S", src_dir))
        argv = shlex.split(cmd)
        keep, skip = [], False
        for a in argv:
            if skip:
                skip = False
            elif a == "-o":
                skip = True
            elif a.startswith(("2>", ">")):  # a redirection, not an argument
                pass
            elif a not in ("-c",) and not a.startswith(("%", "-l")) and not a.endswith(".a"):
                keep.append(a)
        # Only the test's own source: helper files compile without the pass.
        keep = [a for a in keep if not (a.endswith((".c", ".cpp")) and a != path
                                        and "examples/" not in a)]
        yield (f"{path.replace('/', '_')}.{n}", keep + [
            "-S", "-emit-llvm", "-o", "-", "-fpass-plugin=" + plugin,
            "-Iinclude", "-Itest/integration/Inputs"])

def run(item):
    name, argv = item
    r = subprocess.run(argv, capture_output=True, text=True)
    ir = "\n".join(l for l in r.stdout.splitlines()
                   if not re.match(r"(; ModuleID|source_filename|!llvm.ident|.*clang version|.*DIFile\(|.*DICompileUnit\()", l))
    with open(os.path.join(out, name + ".ll"), "w") as f:
        f.write(ir + "\n; stderr:\n" + r.stderr.replace(os.getcwd(), "."))

items = [c for t in tests for c in compiles(t)]
with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
    list(pool.map(run, items))
print(f"ir-snapshot: {len(items)} compiles in {out}")
PY
