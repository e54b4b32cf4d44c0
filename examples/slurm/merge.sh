#!/bin/sh
# Joins the shards in DIR (DIR/shard-*.json) into DIR.json with `rebound merge`: exactly what the
# unsharded run prints. submit.sh runs it after the array with --dependency=afterok, so it starts
# only when every task has succeeded. By hand, after an array has finished:
#   sbatch examples/slurm/merge.sh out/storm
# A missing shard (a task cancelled or failed) is named in the error, and nothing is written;
# `rebound merge` writes DIR.json atomically (--out), so a reader never sees half of it.
#SBATCH --job-name=rebound-merge
#SBATCH --cpus-per-task=1
#SBATCH --mem=1G
#SBATCH --time=00:30:00
#SBATCH --output=%x-%j.out
set -eu
DIR=${1:?usage: merge.sh DIR (the shards are DIR/shard-*.json)}
DIR=${DIR%/}
rebound merge --out "$DIR.json" "$DIR"/shard-*.json
echo "merged $DIR/shard-*.json into $DIR.json"
