#!/usr/bin/env bash
# Compile-time scaling of ADPass. For each generated translation unit
# (gen.py) and size N it times
#
#   clang-19 -O<L> -DAD_NO_PLUGIN -c prog.c                          (baseline)
#   clang-19 -O<L> -fpass-plugin=build/pass/libADPass.so -Iinclude -c prog.c
#
# (wall time, median of CT_REPS rounds; each round runs the two compiles
# back to back, so that a machine whose speed drifts slows both alike),
# then links the plugin's object with the runtime and runs it (gradient vs.
# central finite difference), and prints one markdown table on stdout. Progress and provenance go to stderr.
#
#   bench/compile_time/run.sh                 everything (about 8 minutes)
#   bench/compile_time/run.sh calls           only these configurations:
#   bench/compile_time/run.sh straight-O2 straight-O0
#
# Environment:
#   CC (clang-19), BUILD (<repo>/build), CT_REPS (3), CT_TIMEOUT (300 s per
#   compile), CT_SLOW (20: a compile slower than this many seconds is timed
#   once, not CT_REPS times), CT_CALLS_SIZES ("10 100 1000"),
#   CT_STRAIGHT_O2_SIZES ("1000 2000 4000 10000 30000"),
#   CT_STRAIGHT_O0_SIZES ("1000 2000 10000 30000").
#
# Sizes within one configuration run in increasing order. After a plugin
# compile times out, larger sizes of that configuration skip the plugin
# compile; they also skip it when the time extrapolated from the two previous
# sizes (t * (N / N_prev)^p, p the measured growth exponent, at least 1)
# exceeds CT_TIMEOUT. The baseline is still timed for such rows.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
build="${BUILD:-$repo/build}"
cc="${CC:-clang-19}"
plugin="$build/pass/libADPass.so"
runtime="$build/runtime/libADRuntime.a"
reps="${CT_REPS:-3}"
tmo="${CT_TIMEOUT:-300}"
slow="${CT_SLOW:-20}"

if [[ ! -f "$plugin" || ! -f "$runtime" ]]; then
  echo "run.sh: $plugin or $runtime is missing; build ADPass first (tools/build.sh)." >&2
  exit 2
fi
command -v "$cc" >/dev/null || { echo "run.sh: compiler '$cc' not found (set CC)." >&2; exit 2; }
command -v python3 >/dev/null || { echo "run.sh: python3 not found." >&2; exit 2; }

configs=("$@")
[[ ${#configs[@]} -eq 0 ]] && configs=(calls straight-O2 straight-O0)

out="$(mktemp -d "${TMPDIR:-/tmp}/adpass-ct.XXXXXX")"
trap 'rm -rf "$out"' EXIT

start_all=$(date +%s)
plugin_mtime=$(stat -c %Y "$plugin")
{
  echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -m), $(nproc) CPUs," \
    "$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //')"
  echo "# $("$cc" --version | head -1); plugin $plugin" \
    "($(date -u -r "$plugin" '+built %Y-%m-%d %H:%M UTC'))," \
    "repo HEAD $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo "# reps $reps, timeout ${tmo}s per compile, single run above ${slow}s"
} >&2

# time_compile LOG OBJ ARGS... : runs one compile under timeout; prints the
# wall time in seconds, or "timeout", or "fail".
time_compile() {
  local log="$1" obj="$2"; shift 2
  local t0 t1 rc
  t0=$(date +%s%N)
  timeout "$tmo" "$cc" "$@" -c -o "$obj" >"$log" 2>&1
  rc=$?
  t1=$(date +%s%N)
  if [[ $rc -eq 124 ]]; then echo timeout
  elif [[ $rc -ne 0 ]]; then echo fail
  else awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'
  fi
}

# median: the median of the numbers on stdin, or nothing.
median() {
  sort -g | awk '{ a[NR] = $1 } END { if (NR == 0) exit;
    if (NR % 2) printf "%.3f", a[(NR + 1) / 2];
    else printf "%.3f", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# measure_pair: times the baseline compile (base_args) and, unless
# plugin_args is empty, the plugin compile alternately for CT_REPS rounds
# (one round when a compile takes longer than CT_SLOW), so that a machine
# whose speed drifts during the run slows both alike. Sets base_t and
# with_t to the medians, or to "timeout"/"fail".
measure_pair() {
  local bt=() pt=() t i
  base_t="" with_t=""
  for ((i = 0; i < reps; i++)); do
    if [[ -z $base_t ]]; then
      t=$(time_compile "$out/base.log" "$out/base.o" "${base_args[@]}")
      if [[ $t == timeout || $t == fail ]]; then base_t=$t; else bt+=("$t"); fi
    fi
    if [[ ${#plugin_args[@]} -gt 0 && -z $with_t ]]; then
      t=$(time_compile "$out/plugin.log" "$out/plugin.o" "${plugin_args[@]}")
      if [[ $t == timeout || $t == fail ]]; then with_t=$t; else pt+=("$t"); fi
    fi
    # Slow compiles are timed once.
    if printf '%s\n' "${bt[@]}" "${pt[@]}" |
      awk -v s="$slow" '$1 > s { found = 1 } END { exit !found }'; then
      break
    fi
  done
  # Every round on stderr: how much the machine moved during the run.
  echo "#   rounds (s): without ${bt[*]:-$base_t}; with ${pt[*]:-${with_t:--}}" >&2
  [[ -z $base_t ]] && base_t=$(printf '%s\n' "${bt[@]}" | median)
  if [[ ${#plugin_args[@]} -gt 0 && -z $with_t ]]; then
    with_t=$(printf '%s\n' "${pt[@]}" | median)
  fi
}

echo "| case | -O | N | without plugin (s) | with plugin (s) | ratio | with plugin, ms per N | added by plugin, ms per N | gradient check |"
echo "|---|---|--:|--:|--:|--:|--:|--:|---|"

failures=()
for cfg in "${configs[@]}"; do
  case "$cfg" in
    calls) kind=calls; opt=2; sizes="${CT_CALLS_SIZES:-10 100 1000}" ;;
    straight-O2) kind=straight; opt=2; sizes="${CT_STRAIGHT_O2_SIZES:-1000 2000 4000 10000 30000}" ;;
    straight-O0) kind=straight; opt=0; sizes="${CT_STRAIGHT_O0_SIZES:-1000 2000 10000 30000}" ;;
    *) echo "run.sh: unknown configuration '$cfg' (calls, straight-O2, straight-O0)" >&2; exit 2 ;;
  esac
  prev_n="" prev_t="" prev2_n="" prev2_t="" dead=""
  for n in $sizes; do
    src="$out/${kind}_$n.c"
    python3 "$here/gen.py" "$kind" "$n" >"$src" || { echo "run.sh: gen.py failed" >&2; exit 2; }
    tag="$kind -O$opt N=$n"
    # Decide whether the plugin compile can finish within the timeout.
    skip=""
    if [[ -n $dead ]]; then
      skip="skipped ($dead)"
    elif [[ -n $prev_t ]]; then
      pred=$(awk -v t="$prev_t" -v n="$n" -v pn="$prev_n" -v t2="$prev2_t" -v n2="$prev2_n" 'BEGIN {
        p = 1; if (t2 != "" && t2 > 0) { q = log(t / t2) / log(pn / n2); if (q > p) p = q }
        printf "%.0f", t * (n / pn) ^ p }')
      if ((pred > tmo)); then
        skip="skipped (extrapolated ~${pred} s > ${tmo} s)"
      fi
    fi
    base_args=("-O$opt" -DAD_NO_PLUGIN "$src")
    plugin_args=()
    [[ -z $skip ]] && plugin_args=("-O$opt" "-fpass-plugin=$plugin" -I"$repo/include" "$src")
    echo "# $tag: baseline${skip:+ only} ..." >&2
    measure_pair
    base=$base_t
    if [[ $base == fail ]]; then
      failures+=("$tag: baseline compile failed: $(grep -m1 error "$out/base.log")")
    fi
    check=""
    if [[ -n $skip ]]; then
      with="$skip"
    else
      with=$with_t
      if [[ $with == timeout ]]; then
        dead="N=$n timed out"
        with="> $tmo (timeout)"
        failures+=("$tag: the plugin compile timed out after $tmo s")
      elif [[ $with == fail ]]; then
        msg=$(grep -m1 -E 'error|Assertion|Stack dump|Segmentation' "$out/plugin.log")
        failures+=("$tag: plugin compile failed: $msg")
        with="FAIL (compile error)"
        dead="N=$n failed"
      else
        prev2_n=$prev_n prev2_t=$prev_t prev_n=$n prev_t=$with
        # Link the plugin's object and run it: gradient vs finite difference.
        if "$cc" "$out/plugin.o" "$runtime" -lm -o "$out/prog" 2>"$out/link.log"; then
          "$out/prog" >"$out/run.log" 2>&1
          rc=$?
          line=$(head -1 "$out/run.log")
          echo "#   $line" >&2
          err=$(sed -n 's/.*rel_err=\([^ ]*\).*/\1/p' <<<"$line")
          if [[ $rc -eq 0 ]]; then check="ok (rel. err $err)"
          elif ((rc > 128)); then
            check="FAIL: crashed (signal $((rc - 128)))"
            failures+=("$tag: the gradient program crashed with signal $((rc - 128))")
          else
            check="FAIL (rel. err $err)"
            failures+=("$tag: gradient check failed: $line")
          fi
        else
          check="FAIL: link error"
          failures+=("$tag: link failed: $(head -1 "$out/link.log")")
        fi
      fi
    fi
    ratio="" perN="" addN=""
    if [[ $base =~ ^[0-9.]+$ && $with =~ ^[0-9.]+$ ]]; then
      ratio=$(awk -v a="$base" -v b="$with" 'BEGIN { printf "%.2f", b / a }')
      perN=$(awk -v b="$with" -v n="$n" 'BEGIN { printf "%.3g", 1000 * b / n }')
      addN=$(awk -v a="$base" -v b="$with" -v n="$n" 'BEGIN { printf "%.3g", 1000 * (b - a) / n }')
    elif [[ $base =~ ^[0-9.]+$ && $with == ">"* ]]; then
      ratio=$(awk -v a="$base" -v b="$tmo" 'BEGIN { printf "> %.0f", b / a }')
    fi
    echo "| $kind | $opt | $n | $base | $with | $ratio | $perN | $addN | $check |"
  done
done

echo "# total $(($(date +%s) - start_all)) s" >&2
if [[ $(stat -c %Y "$plugin") != "$plugin_mtime" ]]; then
  failures+=("the plugin was rebuilt during the run: the rows do not all measure the same plugin")
fi
if [[ ${#failures[@]} -gt 0 ]]; then
  echo >&2
  echo "# failures:" >&2
  printf '#   %s\n' "${failures[@]}" >&2
  exit 1
fi
