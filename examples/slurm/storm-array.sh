#!/bin/sh
# One shard of `rebound storm --runs` (replications) per task of a Slurm job array: task I runs
# `--shard I/N`, its share of the runs.
#   examples/slurm/submit.sh storm                  # this array, then the merge after it
#   examples/slurm/submit.sh storm -n 8 -- --scenario examples/scenarios/queue-storm.toml --runs 400
# By hand (N must match the array's size; an index can be submitted again alone):
#   REBOUND_SHARDS=16 sbatch --array=0-15 examples/slurm/storm-array.sh
#   REBOUND_SHARDS=16 sbatch --array=9 examples/slurm/storm-array.sh
# The arguments after the script are `rebound storm`'s (default: the three-tier stack, 10,000
# runs); `rebound` must be on the PATH of every node and the submit directory on a filesystem
# all nodes share (a scenario path is read from the submit directory).
#
# Slurm opens --output before the script runs, so the log goes to the submit directory, which
# exists (rebound-storm-ARRAYJOB_TASK.out), not into the output directory this script creates.
#SBATCH --job-name=rebound-storm
#SBATCH --array=0-15
#SBATCH --cpus-per-task=1
#SBATCH --mem=1G
#SBATCH --time=01:00:00
#SBATCH --output=%x-%A_%a.out
set -eu
N=${REBOUND_SHARDS:-16}
OUT=${REBOUND_OUT:-out/storm}
I=${SLURM_ARRAY_TASK_ID:?run me with sbatch --array}
[ $# -gt 0 ] || set -- --scenario examples/scenarios/three-tier.toml --runs 10000
mkdir -p "$OUT"
# Two copies of one task (a second submission, a requeue) write apart: the name carries the
# array's job id, the task's id and Slurm's restart count. The complete file is renamed into
# place (atomic on one filesystem), so `rebound merge` never reads a half-written shard.
TMP="$OUT/shard-$I.json.${SLURM_ARRAY_JOB_ID:-${SLURM_JOB_ID:-$$}}_$I.${SLURM_RESTART_COUNT:-0}.tmp"
rebound storm "$@" --json --shard "$I/$N" > "$TMP"
mv "$TMP" "$OUT/shard-$I.json"
