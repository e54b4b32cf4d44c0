#!/usr/bin/env bash
# The event queue against a bare binary heap in instructions (issue 40: "never slower than a bare
# binary heap at every pending size"), counted by `valgrind --tool=callgrind` — the same figure on
# an idle or a busy machine, where the sweep's CPU times move by 10-30 %.
#
# For each pending size N, the hold model of crates/rebound-sim/benches/queue_sweep.rs (pop the
# earliest, push it back a delay later) runs twice, for S1 and S2 steps; the instructions per
# step are (I(S2) - I(S1)) / (S2 - S1), so filling the queue and the first S1 steps (the ladder
# building its first rungs) cancel out. Instructions are not time: past ~10^4 events the bare
# heap's cache misses, not its instructions, are its cost, and the sweep's times say more there.
#
# Usage: scripts/queue_instructions.sh [MAX]     sizes 1, 10, ... up to MAX (default 100000)
# Env:   QUEUES   which structures beside the bare heap (default "ours"; also ladder, quad)
set -euo pipefail
cd "$(dirname "$0")/.."
max=${1:-100000}
[[ $max =~ ^[1-9][0-9]{0,7}$ ]] || { echo "error: MAX must be a number in 1..99999999, got '$max'" >&2; exit 2; }
queues=${QUEUES:-ours}
for q in $queues; do
    [[ $q =~ ^(ours|ladder|quad)$ ]] || { echo "error: QUEUES takes ours, ladder, quad; got '$q'" >&2; exit 2; }
done
command -v valgrind >/dev/null || { echo "error: valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
bin=$(cargo bench -p rebound-sim --bench queue_sweep --no-run 2>&1 | sed -n 's/.*(\(.*queue_sweep-[0-9a-f]*\)).*/\1/p')
[ -x "$bin" ] || { echo "error: could not build the queue_sweep bench" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
s1=100000
s2=300000

count() { # WHICH N STEPS -> instructions of the whole process
    valgrind --tool=callgrind --callgrind-out-file="$tmp/out" "$bin" --one "$1" --size "$2" --steps "$3" \
        >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
    sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$tmp/out"
}
per_step() { # WHICH N -> instructions per pop + push, one decimal
    local a b
    a=$(count "$1" "$2" $s1)
    b=$(count "$1" "$2" $s2)
    awk -v a="$a" -v b="$b" -v d=$((s2 - s1)) 'BEGIN { printf "%.1f", (b - a) / d }'
}

header="| pending |"
rule="|---:|"
for q in $queues; do header="$header $q |"; rule="$rule---:|"; done
echo "instructions per pop + push (callgrind, hold model)"
echo "$header BinaryHeap |$(for q in $queues; do printf ' %s / heap |' "$q"; done)"
echo "$rule---:|$(for _ in $queues; do printf -- '---:|'; done)"
n=1
while [ "$n" -le "$max" ]; do
    heap=$(per_step heap "$n")
    row="| $n |"
    ratios=""
    for q in $queues; do
        v=$(per_step "$q" "$n")
        row="$row $v |"
        ratios="$ratios $(awk -v v="$v" -v h="$heap" 'BEGIN { printf "%.2f", v / h }') |"
    done
    echo "$row $heap |$ratios"
    n=$((n * 10))
done
