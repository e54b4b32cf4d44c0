#!/bin/sh
# Instructions per successful call through a closed circuit breaker, next to the bare call and
# failsafe's breaker, counted by `valgrind --tool=callgrind` (machine- and load-independent;
# issue 16). The bench binary `breaker_instructions` runs N and 2N calls of a row; the
# difference divided by N is the count per call (process start and breaker setup cancel out).
# Usage: scripts/breaker-instructions.sh [N]        (N calls, default 20000; needs valgrind)
set -eu
N=${1:-20000}
case $N in '' | *[!0-9]*) echo "error: N must be a positive integer, got '$N'" >&2; exit 2 ;; esac
if [ "$N" -lt 1 ] || [ "$N" -gt 1000000 ]; then echo "error: N must be in 1..=1000000, got $N" >&2; exit 2; fi
command -v valgrind >/dev/null || { echo "error: valgrind is not installed" >&2; exit 1; }
cd "$(dirname "$0")/.."
bin=$(cargo bench -p rebound-retry --bench breaker_instructions --no-run --message-format=json 2>/dev/null |
    sed -n 's/.*"executable":"\([^"]*breaker_instructions[^"]*\)".*/\1/p' | tail -n 1)
[ -x "$bin" ] || { echo "error: could not build the breaker_instructions bench" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
count() { # row calls -> instructions of the whole process
    valgrind --tool=callgrind --callgrind-out-file="$tmp/out" "$bin" "$1" "$2" 2>"$tmp/err" >/dev/null
    sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$tmp/out"
}
echo "| row | instructions per call |"
echo "|---|---:|"
"$bin" | while read -r row; do
    one=$(count "$row" "$N")
    two=$(count "$row" $((2 * N)))
    echo "| $row | $(( (two - one) / N )) |"
done
