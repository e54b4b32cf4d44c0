#!/usr/bin/env bash
# Runs one cargo-fuzz target for a while: scripts/fuzz.sh TARGET SECONDS
#
# Targets (fuzz/fuzz_targets/): spec, headers, signals, scenario, advise. Needs a nightly toolchain
# (`rustup toolchain install nightly`); installs cargo-fuzz if it is missing. Seeds come from
# fuzz/corpus/TARGET (committed, from the examples now in the guide, docs/src); what the fuzzer finds new goes to
# fuzz/corpus-work/TARGET (not committed), crashes to fuzz/artifacts/TARGET. The build goes to
# $REBOUND_FUZZ_TARGET_DIR (default fuzz/target), never the workspace's target directory.
# libFuzzer's final stats (stat::number_of_executed_units, ...) end the output.
set -euo pipefail

usage() {
    echo "usage: $0 TARGET SECONDS   (TARGET: spec, headers, signals, scenario, advise)" >&2
    exit 2
}
[ $# -eq 2 ] || usage
target=$1
seconds=$2
case "$seconds" in '' | *[!0-9]*) usage ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$root/fuzz/fuzz_targets/$target.rs" ] || { echo "no fuzz target \`$target\`" >&2; usage; }

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
    echo "cargo-fuzz needs a nightly toolchain: rustup toolchain install nightly" >&2
    exit 1
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked
fi

target_dir=${REBOUND_FUZZ_TARGET_DIR:-$root/fuzz/target}
work="$root/fuzz/corpus-work/$target"
mkdir -p "$work" "$root/fuzz/artifacts/$target"
cd "$root/fuzz"
# Safe Rust only (every lib.rs forbids unsafe): no sanitizer, so more executions per second;
# debug assertions and overflow checks stay on.
exec cargo +nightly fuzz run --sanitizer none --target-dir "$target_dir" "$target" "$work" "corpus/$target" -- \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
