#!/usr/bin/env bash
# Runs the whole test suite (./scripts/test.sh) N times (default 10) while `stress-ng --cpu 2`
# loads the machine, the way a busy CI machine does; prints one pass/fail line per run and a
# final "N passed, M failed". Exits non-zero if any run failed. Installs stress-ng (Debian
# package) when it is missing. Each run's output is kept in target/stress-test/run-K.log.
#
# Usage: scripts/stress-test.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."

runs="${1:-10}"
if ! [[ "$runs" =~ ^[0-9]+$ ]] || [ "$runs" -lt 1 ] || [ "$runs" -gt 1000 ]; then
  echo "usage: $0 [N]  (N: runs of the suite, 1 to 1000; default 10)" >&2
  exit 2
fi

if ! command -v stress-ng >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing stress-ng (Debian package)"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq stress-ng
fi

logs="${CARGO_TARGET_DIR:-target}/stress-test"
mkdir -p "$logs"

# Build once, unloaded, so that every run under load tests rather than compiles.
cargo test --workspace --all-targets --no-run >"$logs/build.log" 2>&1 || {
  echo "the test suite does not build: see $logs/build.log" >&2
  exit 1
}

stress_pid=""
stop_stress() {
  if [ -n "$stress_pid" ]; then
    kill "$stress_pid" 2>/dev/null || true
    wait "$stress_pid" 2>/dev/null || true
    stress_pid=""
  fi
}
trap stop_stress EXIT
trap 'stop_stress; exit 130' INT
trap 'stop_stress; exit 143' TERM
trap 'stop_stress; exit 129' HUP

# --timeout bounds stress-ng even if this script is killed with SIGKILL (no trap runs then).
stress-ng --cpu 2 --timeout "$((runs * 1800))s" --quiet &
stress_pid=$!

passed=0
failed=0
for k in $(seq 1 "$runs"); do
  log="$logs/run-$k.log"
  start=$(date +%s)
  if ./scripts/test.sh >"$log" 2>&1; then
    passed=$((passed + 1))
    echo "run $k/$runs: pass ($(($(date +%s) - start)) s)"
  else
    failed=$((failed + 1))
    echo "run $k/$runs: FAIL ($(($(date +%s) - start)) s): $log"
    grep -E "^(test .* FAILED|---- .* stdout ----|thread .* panicked)" "$log" | head -20 | sed 's/^/    /' || true
  fi
done

stop_stress
echo "$passed passed, $failed failed (stress-ng --cpu 2 beside ./scripts/test.sh)"
[ "$failed" -eq 0 ]
