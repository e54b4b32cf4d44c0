#!/bin/sh
# One shard of `rebound map` per task of a Slurm job array: task I runs `--shard I/N`.
#   examples/slurm/submit.sh map                    # this array, then the merge after it
#   examples/slurm/submit.sh map -n 8 -- --durations 1..10:1 --loads 60..140:20
# By hand (N must match the array's size; an index can be submitted again alone):
#   REBOUND_SHARDS=16 sbatch --array=0-15 examples/slurm/map-array.sh
#   REBOUND_SHARDS=16 sbatch --array=9 examples/slurm/map-array.sh
# The arguments after the script are `rebound map`'s (default: the grid below); `rebound` must be
# on the PATH of every node and the submit directory on a filesystem all nodes share.
#
# Slurm opens --output before the script runs, so the log goes to the submit directory, which
# exists (rebound-map-ARRAYJOB_TASK.out), not into the output directory this script creates.
#SBATCH --job-name=rebound-map
#SBATCH --array=0-15
#SBATCH --cpus-per-task=1
#SBATCH --mem=1G
#SBATCH --time=01:00:00
#SBATCH --output=%x-%A_%a.out
set -eu
N=${REBOUND_SHARDS:-16}
OUT=${REBOUND_OUT:-out/map}
I=${SLURM_ARRAY_TASK_ID:?run me with sbatch --array}
[ $# -gt 0 ] || set -- --durations 1..20:1 --loads 50..145:5
mkdir -p "$OUT"
# Two copies of one task (a second submission, a requeue) write apart: the name carries the
# array's job id, the task's id and Slurm's restart count. The complete file is renamed into
# place (atomic on one filesystem), so `rebound merge` never reads a half-written shard.
TMP="$OUT/shard-$I.json.${SLURM_ARRAY_JOB_ID:-${SLURM_JOB_ID:-$$}}_$I.${SLURM_RESTART_COUNT:-0}.tmp"
rebound map "$@" --json --shard "$I/$N" > "$TMP"
mv "$TMP" "$OUT/shard-$I.json"
