#!/usr/bin/env bash
# The three-tier stack at scale (issue 40): examples/scenarios/three-tier.toml — 10,000 users,
# front and api 200 workers and 400 places of queue each, db 8 and 64, 120 s with the db
# hard-down from 15 s to 45 s — with the users, workers and queues ×1, ×10 and ×100 (10 k to 1 M
# users; the service times, timeouts and policies as they are), run by the release build of
# `rebound storm --seed 1 --json`. Per row: the events, the CPU time (user + system, the minimum
# over the reps, which interleave the scales so that a busy spell does not fall on one row),
# nanoseconds of CPU per event, the ratio to ×1's, and the maximum resident set with the bytes per
# user it makes (from `/usr/bin/time -v`, the largest over the reps). The whole process is
# timed: parsing and building the state of a million users are part of the cost.
#
# Usage: scripts/scale_bench.sh [REPS [FACTORS...]]    (REPS default 3 in 1..=50; FACTORS
#        default "1 10 100", each in 1..=100; the first is the ratio's reference). REBOUND_BIN=path
#        times that binary instead of building this checkout's.
set -euo pipefail
cd "$(dirname "$0")/.."
TIMEFORMAT='%3U %3S'
reps=${1:-3}
shift || true
factors=("${@:-}")
[ -n "${factors[0]}" ] || factors=(1 10 100)
case $reps in '' | *[!0-9]*) echo "error: REPS must be an integer in 1..=50, got '$reps'" >&2; exit 2 ;; esac
if [ "$reps" -lt 1 ] || [ "$reps" -gt 50 ]; then echo "error: REPS must be in 1..=50, got $reps" >&2; exit 2; fi
for f in "${factors[@]}"; do
    case $f in '' | *[!0-9]*) echo "error: a FACTOR must be an integer in 1..=100, got '$f'" >&2; exit 2 ;; esac
    if [ "$f" -lt 1 ] || [ "$f" -gt 100 ]; then echo "error: a FACTOR must be in 1..=100, got $f" >&2; exit 2; fi
done
[ -x /usr/bin/time ] || { echo "error: /usr/bin/time is not installed (apt-get install time)" >&2; exit 1; }
command -v jq >/dev/null || { echo "error: jq is not installed (apt-get install jq)" >&2; exit 1; }
if [ -n "${REBOUND_BIN:-}" ]; then
    bin=$REBOUND_BIN # another build, to compare
else
    cargo build --release -p rebound-cli --bin rebound --quiet
    bin="${CARGO_TARGET_DIR:-target}/release/rebound"
fi
base=examples/scenarios/three-tier.toml
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# scaled FACTOR: the base scenario with `count`, `workers` and `queue` multiplied by FACTOR.
scaled() {
    awk -v f="$1" '
        /^(count|workers|queue) *=/ { split($0, kv, "="); n = kv[2] + 0; sub(/=.*/, "= " n * f); }
        { print }' "$base" >"$tmp/x$1.toml"
}

declare -A cpu_ns rss_kib events users
for f in "${factors[@]}"; do
    scaled "$f"
    users[$f]=$(awk '/^count *=/ { print $3 + 0; exit }' "$tmp/x$f.toml")
done
for ((r = 1; r <= reps; r++)); do
    for f in "${factors[@]}"; do
        # CPU from bash's `time` (getrusage, to the millisecond; GNU time prints hundredths, up
        # to 9 % of ×1's 0.11 s), the resident set from GNU time's; its own few ms are counted.
        # (The run's own errors go to stderr, fd 3, not into the file of `time`'s report.)
        { time RAYON_NUM_THREADS=1 /usr/bin/time -v -o "$tmp/time" \
            "$bin" storm --scenario "$tmp/x$f.toml" --seed 1 --json >"$tmp/out.json" 2>&3; } 3>&2 2>"$tmp/cpu"
        ev=$(jq '.policies[0].events' "$tmp/out.json")
        [ -z "${events[$f]:-}" ] || [ "${events[$f]}" = "$ev" ] ||
            { echo "error: ×$f gave $ev events, then ${events[$f]}: the run is not deterministic" >&2; exit 1; }
        events[$f]=$ev
        ns=$(awk '{ printf "%.0f", ($1 + $2) * 1e9 }' "$tmp/cpu")
        kib=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$tmp/time")
        if [ -z "${cpu_ns[$f]:-}" ] || [ "$ns" -lt "${cpu_ns[$f]}" ]; then cpu_ns[$f]=$ns; fi
        if [ -z "${rss_kib[$f]:-}" ] || [ "$kib" -gt "${rss_kib[$f]}" ]; then rss_kib[$f]=$kib; fi
    done
done

ref=${factors[0]}
echo "| scale | users | events | CPU s (min of $reps) | ns/event | ratio to ×$ref | max RSS MiB | bytes/user |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for f in "${factors[@]}"; do
    awk -v f="$f" -v u="${users[$f]}" -v e="${events[$f]}" -v ns="${cpu_ns[$f]}" -v kib="${rss_kib[$f]}" \
        -v ref_ns="${cpu_ns[$ref]}" -v ref_e="${events[$ref]}" 'BEGIN {
        per = ns / e; ref = ref_ns / ref_e
        printf "| ×%d | %d | %d | %.2f | %.1f | %.2f | %.1f | %.0f |\n",
            f, u, e, ns / 1e9, per, per / ref, kib / 1024, kib * 1024 / u }'
done
