#!/usr/bin/env bash
# Clean release build cost of rebound-retry without default features (#![no_std] + alloc), with
# std only, with its defaults (std, tokio) and with serde and http added, beside backon's
# (the peer the issue compares with), each in a fresh target directory: crates built and CPU
# seconds (user + system, from /usr/bin/time), printed as the guide's table rows (docs/src/library/no-std.md).
# Usage: scripts/build_cost.sh   (about a minute of CPU on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cost() { # name, manifest, extra cargo args...
    local name=$1 manifest=$2 slug; shift 2
    slug=$(echo "$name" | tr -c 'a-z0-9\n' '-')
    local crates
    crates=$(cargo tree -e normal --manifest-path "$manifest" "$@" --prefix none 2>/dev/null | sed 's/ (\*)//' | grep -v '^backon-cost' | sort -u | wc -l)
    /usr/bin/time -f "%U %S" -o "$work/time" \
        cargo build --release --quiet --manifest-path "$manifest" "$@" --target-dir "$work/target-$slug" >/dev/null
    read -r user sys <"$work/time"
    printf '| %s | %s | %.1f |\n' "$name" "$crates" "$(echo "$user + $sys" | bc)"
}

# backon as the workspace's benches use it, in a crate of its own.
mkdir -p "$work/backon/src"
cat >"$work/backon/Cargo.toml" <<'TOML'
[package]
name = "backon-cost"
version = "0.0.0"
edition = "2021"
[dependencies]
backon = { version = "1.6", default-features = false }
[workspace]
TOML
echo 'fn main() {}' >"$work/backon/src/main.rs"
cp Cargo.lock "$work/backon/Cargo.lock"

echo "| build | crates | CPU s |"
echo "|---|---|---|"
cost "rebound-retry --no-default-features" Cargo.toml -p rebound-retry --no-default-features
cost "rebound-retry --no-default-features --features std" Cargo.toml -p rebound-retry --no-default-features --features std
cost "rebound-retry (default: std, tokio)" Cargo.toml -p rebound-retry
cost "rebound-retry --features serde,http" Cargo.toml -p rebound-retry --features serde,http
cost "backon 1.6 --no-default-features" "$work/backon/Cargo.toml"
