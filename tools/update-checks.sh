#!/usr/bin/env bash
# Regenerates the CHECK lines of IR tests with LLVM's update_test_checks.py,
# which is not part of LLVM's binary packages: point AD_UTC at a copy of
# llvm/utils/update_test_checks.py (with UpdateTestChecks/ beside it) from
# LLVM's source.
#
#   AD_UTC=/tmp/llvm-utils/update_test_checks.py \
#     tools/update-checks.sh test/unzip/hand-*.ll
#
# Options before the tests go to the script (--function f.lin, -p, ...).
# The derived functions (f.fwd, f.lin, f.rev) are not in the input, so the
# script always runs with --include-generated-funcs.
#
# The script reads the RUN lines itself and only runs those whose command
# starts with "opt"; ours start with lit's %opt (opt with the plugin and
# -ad-verify-each, test/lit.cfg.py). Each test is updated in a copy whose
# %opt is spelled out, then written back with %opt restored.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

utc="${AD_UTC:-}"
if [[ -z "$utc" || ! -f "$utc" ]]; then
  echo "update-checks.sh: set AD_UTC to LLVM's llvm/utils/update_test_checks.py" >&2
  exit 2
fi
opt="${AD_OPT:-/usr/lib/llvm-19/bin/opt}"
plugin="$root/build/pass/libADPass.so"
if [[ ! -f "$plugin" ]]; then
  echo "update-checks.sh: no $plugin; run tools/build.sh first" >&2
  exit 2
fi

utc_args=(--include-generated-funcs)
while [[ $# -gt 0 && "$1" == -* ]]; do
  utc_args+=("$1")
  shift
done
if [[ $# -eq 0 ]]; then
  echo "usage: tools/update-checks.sh [update_test_checks.py options] TEST.ll..." >&2
  exit 2
fi

spelled="opt -load-pass-plugin=$plugin -ad-verify-each"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for test in "$@"; do
  copy="$work/$(basename "$test")"
  sed "s#%opt #$spelled #g" "$test" >"$copy"
  python3 "$utc" --opt-binary "$opt" "${utc_args[@]}" "$copy"
  sed "s#$spelled #%opt #g" "$copy" >"$test"
done
