#!/bin/sh
# `rebound map` cut into 16 shards as a Slurm job array (one task per shard).
#   sbatch examples/slurm/map-array.sh
#   # when the array has finished:
#   rebound merge out/shard-*.json > map.json
# Slurm opens --output before the script runs, so its log goes to the submit directory
# (rebound-map-JOB_TASK.out), which exists, not into out/, which the script creates.
#SBATCH --job-name=rebound-map
#SBATCH --array=0-15
#SBATCH --cpus-per-task=1
#SBATCH --mem=1G
#SBATCH --time=01:00:00
#SBATCH --output=%x-%A_%a.out
set -eu
mkdir -p out
N=16
I=${SLURM_ARRAY_TASK_ID:?run me with sbatch --array}
# Two copies of one task (a requeue, a second submission) write apart: the name carries the
# job's id and the task's; the last to finish renames its complete file into place.
TMP="out/shard-$I.json.${SLURM_JOB_ID:-$$}-$I.tmp"
rebound map --json --durations 1..20:1 --loads 50..145:5 --shard "$I/$N" > "$TMP"
mv "$TMP" "out/shard-$I.json"
