#!/bin/sh
# `rebound map` cut into 16 shards as a Slurm job array (one task per shard).
#   sbatch examples/slurm/map-array.sh
#   # when the array has finished:
#   rebound merge out/shard-*.json > map.json
#SBATCH --job-name=rebound-map
#SBATCH --array=0-15
#SBATCH --cpus-per-task=1
#SBATCH --mem=1G
#SBATCH --time=01:00:00
#SBATCH --output=out/slurm-%A_%a.log
set -eu
mkdir -p out
N=16
I=${SLURM_ARRAY_TASK_ID:?run me with sbatch --array}
rebound map --json --durations 1..20:1 --loads 50..145:5 --shard "$I/$N" > "out/shard-$I.json.tmp"
mv "out/shard-$I.json.tmp" "out/shard-$I.json"
