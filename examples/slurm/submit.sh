#!/bin/sh
# Submits a sharded `rebound map` or `rebound storm --runs` as a Slurm job array, and the merge
# as a job that waits for it (--dependency=afterok:ARRAY): run from the directory the results
# go to (a filesystem every node shares), with `rebound` on every node's PATH
# (cargo install --path crates/rebound-cli).
#
#   examples/slurm/submit.sh storm                     # 16 tasks, defaults of storm-array.sh
#   examples/slurm/submit.sh storm -n 4 -o out/s400 -- --scenario examples/scenarios/queue-storm.toml --runs 400
#   examples/slurm/submit.sh map -n 8 -- --durations 1..10:1 --loads 60..140:20
#
# -n N    tasks (= shards), 1..1000 (default 16; Slurm's default MaxArraySize allows 1000)
# -o DIR  shards go to DIR/shard-I.json, the merged document to DIR.json (default out/KIND)
# Logs: KIND's tasks write rebound-KIND-ARRAY_TASK.out, the merge rebound-merge-JOB.out, in the
# submit directory. When a task fails or is cancelled, the merge job is cancelled too
# (--kill-on-invalid-dep); `rebound merge DIR/shard-*.json` then names the missing shards, and
# `REBOUND_SHARDS=N REBOUND_OUT=DIR sbatch --array=I .../KIND-array.sh ARGS` runs one again.
set -eu
usage() { echo "usage: $0 map|storm [-n TASKS] [-o DIR] [-- ARGS...]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
kind=${1:-}
case "$kind" in map|storm) shift ;; *) usage ;; esac
n=16
out=out/$kind
while [ $# -gt 0 ]; do
  case "$1" in
    -n) [ $# -ge 2 ] || usage; n=$2; shift 2 ;;
    -o) [ $# -ge 2 ] || usage; out=${2%/}; shift 2 ;;
    --) shift; break ;;
    *) usage ;;
  esac
done
case "$n" in ''|*[!0-9]*) echo "$0: -n must be a whole number of tasks, 1..1000 (got '$n')" >&2; exit 2 ;; esac
if [ "$n" -lt 1 ] || [ "$n" -gt 1000 ]; then
  echo "$0: -n must be 1..1000 tasks (got $n)" >&2; exit 2
fi
command -v rebound >/dev/null || {
  echo "$0: rebound is not on PATH (cargo install --path crates/rebound-cli)" >&2; exit 2; }
command -v sbatch >/dev/null || { echo "$0: sbatch is not on PATH (is this a Slurm login node?)" >&2; exit 2; }
# The tasks read N and DIR from the environment sbatch passes on (--export=ALL, its default).
export REBOUND_SHARDS="$n" REBOUND_OUT="$out"
array=$(sbatch --parsable --array="0-$((n - 1))" "$here/$kind-array.sh" "$@")
array=${array%%;*} # --parsable prints JOBID or JOBID;CLUSTER
merge=$(sbatch --parsable --dependency="afterok:$array" --kill-on-invalid-dep=yes "$here/merge.sh" "$out")
merge=${merge%%;*}
echo "array $array: $n tasks of rebound $kind, shards in $out/ (logs rebound-$kind-${array}_I.out)"
echo "merge $merge: $out.json once every task has succeeded (log rebound-merge-$merge.out)"
