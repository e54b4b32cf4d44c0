#!/usr/bin/env bash
# The simulator's regression guard (issue 40): instructions of whole `rebound storm` runs on
# fixed scenarios and seeds, counted by `valgrind --tool=callgrind` (instructions, not seconds:
# the same figure on an idle or a busy machine, within ~0.01 % from run to run here), against
# the committed baseline crates/rebound-sim/benches/instructions-baseline.txt. A row more than
# 5 % above its baseline fails, printing every row's figures; a row more than 5 % below it is
# reported so the baseline can be lowered. The baseline moves only in a commit that says why.
#
# Usage: scripts/engine_instructions.sh             check against the baseline (exit 1 past 5 %)
#        scripts/engine_instructions.sh --update    rewrite the baseline from this build
#        scripts/engine_instructions.sh --self-test check the comparison itself (no valgrind)
#
# The counted binary is the test profile's target/debug/rebound (the simulator and the library
# at opt-level 3, see the workspace Cargo.toml), one thread (RAYON_NUM_THREADS=1). Counts depend
# on the compiler: a baseline written by another rustc is not compared, loudly. They also depend
# on how the crates are cut into codegen units, which incremental compilation changes: the
# binary is always built without it (CARGO_INCREMENTAL=0, as .ci/run builds everything, so there
# the build is already done), with the profile's own debug settings (the variables that would
# change them unset). Built incrementally, the same code counted 7 % more on mm1k-a (171.2 M
# against 159.3 M, 2026-11-29).
set -euo pipefail
cd "$(dirname "$0")/.."
baseline=crates/rebound-sim/benches/instructions-baseline.txt
scenarios=crates/rebound-sim/benches/scenarios
limit_pct=5

# row name, then the storm arguments
rows=(
    "mm1k-a|--scenario $scenarios/mm1k-a.toml --seed 1"
    "mm1k-b|--scenario $scenarios/mm1k-b.toml --seed 1"
    "three-tier|--scenario $scenarios/three-tier.toml --seed 1"
    "mm1k-a-runs4|--scenario $scenarios/mm1k-a.toml --seed 1 --runs 4"
)

# compare NAME NOW BASE: prints a table row; returns 1 when NOW is more than limit_pct above BASE.
compare() {
    local name=$1 now=$2 base=$3 verdict=ok rc=0
    local ratio=$((now * 10000 / base)) # in basis points
    if [ "$ratio" -gt $((10000 + limit_pct * 100)) ]; then verdict="FAIL: more than $limit_pct % above the baseline"; rc=1
    elif [ "$ratio" -lt $((10000 - limit_pct * 100)) ]; then verdict="below the baseline by more than $limit_pct %: lower it (--update) in a commit that says why"
    fi
    printf '| %s | %s | %s | %d.%02d | %s |\n' "$name" "$base" "$now" $((ratio / 10000)) $((ratio % 10000 / 100)) "$verdict"
    return $rc
}

if [ "${1:-}" = --self-test ]; then
    compare same 1000000 1000000 >/dev/null || { echo "self-test: equal counts failed" >&2; exit 1; }
    compare within 1049000 1000000 >/dev/null || { echo "self-test: +4.9 % failed" >&2; exit 1; }
    if compare over 1051000 1000000 >/dev/null; then echo "self-test: +5.1 % passed" >&2; exit 1; fi
    compare under 900000 1000000 | grep -q "lower it" || { echo "self-test: -10 % not reported" >&2; exit 1; }
    echo "engine_instructions self-test: ok"
    exit 0
fi
command -v valgrind >/dev/null || { echo "error: valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
env -u CARGO_PROFILE_DEV_DEBUG -u CARGO_PROFILE_TEST_DEBUG CARGO_INCREMENTAL=0 \
    cargo build -p rebound-cli --bin rebound --quiet
bin="${CARGO_TARGET_DIR:-target}/debug/rebound"
rustc_now=$(rustc -V)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

count() { # storm arguments... -> instructions of the whole process
    # shellcheck disable=SC2086
    RAYON_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file="$tmp/out" \
        "$bin" storm $1 --json >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
    sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$tmp/out"
}

if [ "${1:-}" = --update ]; then
    {
        echo "# Instructions of whole \`rebound storm\` runs (scripts/engine_instructions.sh --update)."
        echo "# $rustc_now"
        for row in "${rows[@]}"; do echo "${row%%|*} $(count "${row#*|}")"; done
    } >"$tmp/new"
    mv "$tmp/new" "$baseline"
    cat "$baseline"
    exit 0
fi

[ -f "$baseline" ] || { echo "error: no baseline at $baseline (run with --update)" >&2; exit 1; }
rustc_base=$(sed -n 's/^# \(rustc .*\)$/\1/p' "$baseline")
if [ "$rustc_base" != "$rustc_now" ]; then
    echo "!!! ENGINE INSTRUCTION GUARD NOT COMPARED: the baseline was counted with $rustc_base, this is $rustc_now; rerun with --update and commit why !!!" >&2
    exit 0
fi
echo "| row | baseline | now | ratio | |"
echo "|---|---:|---:|---:|---|"
failed=0
for row in "${rows[@]}"; do
    name=${row%%|*}
    base=$(awk -v n="$name" '$1 == n { print $2 }' "$baseline")
    [ -n "$base" ] || { echo "error: no baseline row for $name in $baseline" >&2; exit 1; }
    compare "$name" "$(count "${row#*|}")" "$base" || failed=1
done
[ $failed -eq 0 ] || { echo "the simulator runs more than $limit_pct % more instructions than its baseline ($baseline)" >&2; exit 1; }
