#!/usr/bin/env bash
# Compile time of a straight-line function whose state is a local array
# that SROA puts in registers (the shape a session-15 probe found; not in
# gen.py, whose straight-line state is behind a pointer):
#
#   double lin(const double *x, double *t)   N statements on t[64] such as
#       t[j] = t[j] op x[i] * c + t[m] * 0.3, with sin() in one in ten
#   double F(const double *x) { double t[64] = ...; return lin(x, t); }
#   void G(double *x, double *g) { __ad_gradient(F, x, g); }
#
# For each N, the median wall time of 5 interleaved compiles at -O2
# (-DNOAD: plain clang; with the plugin; with $OLD_PLUGIN when set),
# printed as a markdown table. Compiles only; the gradient is checked by
# the tests, not here.
#
#   bench/compile_time/local_state.sh [N ...]      (default: 1500 3000)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
build="${BUILD:-$repo/build}"
cc="${CC:-clang-19}"
plugin="$build/pass/libADPass.so"
old="${OLD_PLUGIN:-}"
sizes=("$@")
[[ ${#sizes[@]} -eq 0 ]] && sizes=(1500 3000)
out="$(mktemp -d "${TMPDIR:-/tmp}/adpass-local.XXXXXX")"
trap 'rm -rf "$out"' EXIT

seconds() { # seconds ARGS...: wall time of one compile
  local t0 t1
  t0=$(date +%s%N)
  "$cc" "$@" -c -o /dev/null
  t1=$(date +%s%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) / 1e9 }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "| statements | plain clang (s) | ADPass (s) | ratio |${old:+ \$OLD_PLUGIN (s) | ratio |}"
echo "|--:|--:|--:|--:|${old:+--:|--:|}"
for n in "${sizes[@]}"; do
  python3 - "$n" > "$out/local.c" <<'PY'
import random, sys
n = int(sys.argv[1]); random.seed(n)
print('#include "ad.h"\n#include <math.h>\ndouble lin(const double *x, double *t) {\n  double s = 0;')
for k in range(n):
    i = random.randrange(16); j = random.randrange(64); m = random.randrange(64)
    op = random.choice(['+', '-', '*'])
    if op == '*': print(f'  t[{j}] = t[{m}] * 0.5 + x[{i}] * t[{j}] * 0.01;')
    elif random.random() < 0.1: print(f'  t[{j}] = sin(t[{m}]) {op} x[{i}];')
    else: print(f'  t[{j}] = t[{j}] {op} x[{i}] * {random.uniform(-1,1):.3f} + t[{m}] * 0.3;')
    if k % 50 == 0: print(f'  s += t[{j}] * 1e-3;')
print('  for (int i = 0; i < 64; i++) s += t[i] * t[i] * 1e-3;\n  return s;\n}')
print('double F(const double *x) { double t[64]; for (int i = 0; i < 64; i++) t[i] = 0.01 * i; return lin(x, t); }')
print('void G(double *x, double *g) {\n#ifdef NOAD\n  g[0] = F(x);\n#else\n  __ad_gradient(F, x, g);\n#endif\n}')
PY
  src="$out/local.c"
  : > "$out/a"; : > "$out/b"; : > "$out/c"
  for _ in 1 2 3 4 5; do
    seconds -O2 -DNOAD -I"$repo/include" "$src" >> "$out/a"; echo >> "$out/a"
    seconds -O2 -fpass-plugin="$plugin" -I"$repo/include" "$src" >> "$out/b"; echo >> "$out/b"
    if [[ -n "$old" ]]; then
      seconds -O2 -fpass-plugin="$old" -I"$repo/include" "$src" >> "$out/c"; echo >> "$out/c"
    fi
  done
  a=$(median < "$out/a"); b=$(median < "$out/b")
  row="| $n | $a | $b | $(awk -v x="$b" -v y="$a" 'BEGIN { printf "%.2f", x / y }') |"
  if [[ -n "$old" ]]; then
    c=$(median < "$out/c")
    row="$row $c | $(awk -v x="$c" -v y="$a" 'BEGIN { printf "%.2f", x / y }') |"
  fi
  echo "$row"
done
