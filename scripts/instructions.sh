#!/bin/sh
# Instructions per call of each row of the peers bench, for Rebound and each peer crate,
# counted by `valgrind --tool=callgrind` (machine- and noise-independent; issue 14).
# For each row and crate the bench binary `instructions` runs N and 2N calls; the difference
# divided by N is the count per call (process start, runtime and policy setup cancel out).
# Usage: scripts/instructions.sh [N]        (N calls, default 2000; needs valgrind)
set -eu
N=${1:-2000}
case $N in '' | *[!0-9]*) echo "error: N must be a positive integer, got '$N'" >&2; exit 2 ;; esac
if [ "$N" -lt 1 ] || [ "$N" -gt 1000000 ]; then echo "error: N must be in 1..=1000000, got $N" >&2; exit 2; fi
command -v valgrind >/dev/null || { echo "error: valgrind is not installed" >&2; exit 1; }
cd "$(dirname "$0")/.."
bin=$(cargo bench -p rebound-retry --features tokio --bench instructions --no-run --message-format=json 2>/dev/null |
    sed -n 's/.*"executable":"\([^"]*instructions[^"]*\)".*/\1/p' | tail -n 1)
[ -x "$bin" ] || { echo "error: could not build the instructions bench" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
count() { # row crate calls -> instructions of the whole process
    valgrind --tool=callgrind --callgrind-out-file="$tmp/out" "$bin" "$1" "$2" "$3" 2>"$tmp/err" >/dev/null
    sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$tmp/out"
}
echo "| row | crate | instructions per call |"
echo "|---|---|---:|"
"$bin" | while read -r row crate; do
    one=$(count "$row" "$crate" "$N")
    two=$(count "$row" "$crate" $((2 * N)))
    echo "| $row | $crate | $(( (two - one) / N )) |"
done
