#!/usr/bin/env bash
# Builds every benchmark kernel with clang-19 -O2 and the ADPass plugin and
# runtime, runs them one after another, and prints one markdown table on
# stdout. Compiler messages and diagnostics go to stderr. Kernels are linked
# with the allocator wrapped (--wrap, see bench/harness.h) so that each row
# also gives the extra heap of one gradient call.
#
#   bench/run.sh                 all kernels
#   bench/run.sh sumsq rk4       only these (file names without .c)
#   OMP_NUM_THREADS=1 bench/run.sh omp_stencil omp_entropy
#                                the OpenMP kernels on one thread (by
#                                default, as many as OpenMP chooses)
#
# Kernels whose source has a '// BENCH_OWN_TABLE' line (hvp,
# jacobian_handle) measure other things than a gradient against a hand
# one: each runs after the main table, under a header of its own.
#
# Environment: CC (default clang-19), BUILD (default <repo>/build),
# BENCH_REPS (rounds, default 15), BENCH_MIN_REP_MS (default 20); per kernel,
# BENCH_GMM_D, BENCH_GMM_K, BENCH_GMM_N (gmm's d, K and n) and BENCH_LSTM_L,
# BENCH_LSTM_C (lstm's l and c); BENCH_PLUGIN_OPTS, options of the plugin
# for every kernel (BENCH_PLUGIN_OPTS="-ad-recompute-math-calls=0").
#
# Exits non-zero when the plugin or runtime is missing, when a kernel does
# not compile, does not run, or fails its correctness check. A failing kernel
# still gets a FAIL row and the remaining kernels still run.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
build="${BUILD:-$repo/build}"
cc="${CC:-clang-19}"
plugin="$build/pass/libADPass.so"
runtime="$build/runtime/libADRuntime.a"

if [[ ! -f "$plugin" || ! -f "$runtime" ]]; then
  echo "bench/run.sh: $plugin or $runtime is missing." >&2
  echo "Build ADPass first, from the repository root:" >&2
  echo "    tools/build.sh      (or: cmake -S . -B build && cmake --build build)" >&2
  exit 2
fi
if ! command -v "$cc" >/dev/null; then
  echo "bench/run.sh: compiler '$cc' not found (set CC)." >&2
  exit 2
fi

kernels=("$@")
if [[ ${#kernels[@]} -eq 0 ]]; then
  kernels=(sumsq dot matvec_norm rosenbrock rk4 logsumexp dense_layer gmm heat
    lstm ba omp_stencil omp_entropy hvp jacobian_handle)
fi
# Kernels with a table of their own run last.
vector_kernels=() own_table_kernels=()
for k in "${kernels[@]}"; do
  if grep -qs '^// BENCH_OWN_TABLE' "$here/$k.c"; then
    own_table_kernels+=("$k")
  else
    vector_kernels+=("$k")
  fi
done
kernels=("${vector_kernels[@]}" "${own_table_kernels[@]}")

out="$(mktemp -d "${TMPDIR:-/tmp}/adpass-bench.XXXXXX")"
trap 'rm -rf "$out"' EXIT

# Provenance on stderr (stdout is only the table).
{
  echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -m), $(nproc) CPUs," \
    "$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //')"
  echo "# $("$cc" --version | head -1); -O2; plugin $plugin" \
    "($(date -u -r "$plugin" '+built %Y-%m-%d %H:%M UTC'))," \
    "repo HEAD $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo '?')"
} >&2

# The same header as bench_print_header() in harness.h.
echo "| kernel | n | primal (µs) | ADPass grad (µs) | ADPass / primal | hand grad (µs) | hand / primal | ADPass / hand | peak tape (bytes) | extra heap (bytes) | held after (bytes) | B / elem | hand min B / elem | max rel err | hand acc grad (µs) | ADPass / hand acc |"
echo "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"

# The heap counters of harness.h see every allocation of the kernel and of
# the runtime archive.
wrap="-Wl"
for fn in malloc calloc realloc free posix_memalign aligned_alloc; do
  wrap+=",--wrap=$fn"
done
# The cells after a FAIL message, up to the header's 16 columns.
empty="| | | | | | | | | | | | | |"

failed=()
for k in "${kernels[@]}"; do
  src="$here/$k.c"
  if [[ ! -f "$src" ]]; then
    echo "| $k | | FAIL: no such kernel ($src) $empty"
    failed+=("$k (missing)")
    continue
  fi
  # Flags a kernel needs (-fopenmp), from its '// BENCH_CFLAGS:' line.
  read -r -a cflags <<<"$(sed -n 's|^// BENCH_CFLAGS: ||p' "$src")"
  # Plugin options (-mllvm) need the plugin loaded as a clang plugin too.
  for opt in ${BENCH_PLUGIN_OPTS:-}; do
    cflags+=(-Xclang -load -Xclang "$plugin" -mllvm "$opt")
  done
  # Portable -O2 (no -march=native): the numbers hold for any x86-64.
  if ! "$cc" -O2 -fpass-plugin="$plugin" -I"$repo/include" -I"$here" \
      "${cflags[@]}" "$src" "$runtime" -lm "$wrap" -o "$out/$k" \
      2>"$out/$k.log"; then
    cat "$out/$k.log" >&2
    msg="$(grep -m1 'error:' "$out/$k.log" | sed "s|$here/||; s/|/\\\\|/g")"
    echo "| $k | | FAIL: does not compile: ${msg:-see stderr} $empty"
    failed+=("$k (compile)")
    continue
  fi
  [[ -s "$out/$k.log" ]] && cat "$out/$k.log" >&2 # warnings
  own_header=()
  if grep -qs '^// BENCH_OWN_TABLE' "$src"; then
    echo
    own_header=(--header)
  fi
  "$out/$k" "${own_header[@]}"
  rc=$?
  if [[ $rc -ne 0 ]]; then
    # rc 1: the kernel printed its FAIL row itself. Anything else: a crash.
    if [[ $rc -ne 1 ]]; then
      echo "| $k | | FAIL: exited with status $rc $empty"
    fi
    failed+=("$k (run, status $rc)")
  fi
done

if [[ ${#failed[@]} -gt 0 ]]; then
  echo "bench/run.sh: FAILED: ${failed[*]}" >&2
  exit 1
fi
