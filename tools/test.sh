#!/usr/bin/env bash
# Builds ADPass (tools/build.sh), runs the whole lit suite under build/test and
# ends with one summary line "N passed, M failed". Exits non-zero when any test
# failed or none ran. Extra arguments go to lit (e.g. --filter runtime).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

tools/build.sh

lit="${AD_LIT:-/usr/lib/llvm-19/build/utils/lit/lit.py}"
result=build/lit-results.json
rm -f "$result"

# A hung test must not hang CI: lit's per-test timeout needs psutil, so use
# it when present, and bound the whole run either way.
lit_args=(-sv -o "$result")
if python3 -c "import psutil" 2>/dev/null; then
  lit_args+=(--timeout=300)
fi

# lit's own exit code is not enough: it is 0 when no test ran. Read its JSON
# result file instead and count every outcome.
status=0
timeout "${AD_TEST_TIMEOUT:-1500}" python3 "$lit" "${lit_args[@]}" build/test "$@" ||
  status=$?

python3 - "$result" "$status" <<'PY'
import json, sys
path, status = sys.argv[1], int(sys.argv[2])
good = {"PASS", "XFAIL"}
bad = {"FAIL", "XPASS", "UNRESOLVED", "TIMEOUT"}
try:
    with open(path) as f:
        tests = json.load(f).get("tests", [])
except (OSError, ValueError) as e:
    print(f"test.sh: no lit results ({e}); lit exited with {status}",
          file=sys.stderr)
    tests = []
passed = sum(t["code"] in good for t in tests)
failed = sum(t["code"] in bad for t in tests)
# lit failing without a result file (bad config, crash) is a failure too.
if not tests and status != 0:
    failed = max(failed, 1)
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed > 0 or passed == 0 else 0)
PY
