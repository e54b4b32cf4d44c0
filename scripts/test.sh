#!/usr/bin/env bash
# Runs Rebound's whole test suite. Installs the real servers the integration tests start
# (nginx, redis-server), curl, Chromium with chromedriver for the browser test, and stress-ng
# for the live twin's fidelity test, from Debian
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
# The live twin's fidelity test runs the twin beside `stress-ng --cpu 8`.
command -v stress-ng >/dev/null 2>&1 || missing+=(stress-ng)
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
