#!/usr/bin/env bash
# Runs Rebound's whole test suite. Installs the real servers the integration tests start
# (nginx, redis-server), curl, and Chromium with chromedriver for the browser test, from Debian
# packages when they are missing.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v curl >/dev/null 2>&1 || missing+=(curl)
# The lab's browser test drives Debian's headless Chromium through chromedriver.
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -x /usr/bin/chromedriver ] || missing+=(chromium-driver)
# The simulator's instruction-count guard (scripts/engine_instructions.sh).
command -v valgrind >/dev/null 2>&1 || missing+=(valgrind)
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing ${missing[*]} (Debian packages)"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi
export PATH="$PATH:/usr/sbin"

cargo test --workspace --all-targets
cargo test --workspace --doc

# The simulator's regression guard: instructions of fixed runs against the committed baseline
# (more than 5 % above it fails; about a minute under callgrind).
./scripts/engine_instructions.sh --self-test
./scripts/engine_instructions.sh
