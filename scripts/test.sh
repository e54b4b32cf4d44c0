#!/usr/bin/env bash
# Runs Rebound's whole test suite. Installs the real servers the integration tests start
# (nginx, redis-server, a one-node Slurm from slurm-wlm and munge), curl, Chromium with
# chromedriver for the browser test, valgrind for the instruction guard and stress-ng for the live
# twin's fidelity test, from Debian packages when they are missing; and the Python packages the
# export tests use (grpcio, Envoy's protos), kubernetes-validate and the fit tests' traced Python
# app (the OpenTelemetry SDK), from PyPI into a venv.
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
# The export tests' Python packages go into a venv (Debian's python3 needs python3-venv for it).
python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || missing+=(python3-venv)
# The live twin's fidelity test runs the twin beside `stress-ng --cpu 8`.
command -v stress-ng >/dev/null 2>&1 || missing+=(stress-ng)
# The Slurm examples run on a real one-node Slurm (crates/rebound-cli/tests/slurm_cluster.rs
# starts munged, slurmctld and slurmd itself, with its config in a temporary directory).
{ [ -x /usr/sbin/slurmctld ] && [ -x /usr/sbin/slurmd ] && command -v sbatch >/dev/null 2>&1; } || missing+=(slurm-wlm)
[ -x /usr/sbin/munged ] || missing+=(munge)
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing ${missing[*]} (Debian packages)"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi
export PATH="$PATH:/usr/sbin"

# `rebound export`'s tests run a real gRPC client (grpcio) on the exported service config and
# check Envoy exports against Envoy's protos and their validation rules (xds-protos,
# protoc-gen-validate). PyPI packages, in a venv under the target directory, pinned;
# protobuf < 7 because protoc-gen-validate's validator reads FieldDescriptor.label, which
# protobuf 7 removed. The Kubernetes manifests in examples/k8s/ are validated with
# kubernetes-validate (strict, against the Kubernetes versions they state). Where they cannot be
# installed, one loud line: those tests then fail saying what is missing.
py_env="${CARGO_TARGET_DIR:-target}/py"
case "$py_env" in /*) ;; *) py_env="$PWD/$py_env" ;; esac
# `rebound fit`'s tests run a small Python app traced by the OpenTelemetry SDK
# (tests/fixtures/traces/pyapp: its WSGI and urllib3 instrumentations, the OTLP JSON file
# exporter, urllib3's Retry), from the same venv; k8s_manifests runs kubernetes-validate.
py_modules="grpc, envoy.config.route.v3.route_components_pb2, protoc_gen_validate.validator, kubernetes_validate"
py_modules="$py_modules, opentelemetry.exporter.otlp.json.file, opentelemetry.instrumentation.wsgi"
py_modules="$py_modules, opentelemetry.instrumentation.urllib3, urllib3"
if ! "$py_env/bin/python" -c "import $py_modules" >/dev/null 2>&1; then
  echo "installing grpcio, xds-protos, protoc-gen-validate, kubernetes-validate, the OpenTelemetry SDK into $py_env (PyPI)"
  if ! { python3 -m venv "$py_env" \
      && "$py_env/bin/pip" install -q grpcio==1.85.3 xds-protos==1.85.0 protoc-gen-validate==1.3.3 \
        protobuf==6.33.6 kubernetes-validate==1.37.0 opentelemetry-api==1.45.1 opentelemetry-sdk==1.45.1 \
        opentelemetry-exporter-otlp-json-file==0.66b1 opentelemetry-instrumentation-wsgi==0.66b1 \
        opentelemetry-instrumentation-urllib3==0.66b1 urllib3==2.5.0; }; then
    echo "!!! COULD NOT INSTALL grpcio / xds-protos / protoc-gen-validate / kubernetes-validate / opentelemetry INTO $py_env: the export tests (export, export_grpc), k8s_manifests and the fit tests' Python app WILL FAIL !!!" >&2
  fi
fi
export REBOUND_PYTHON="$py_env/bin/python"

cargo test --workspace --all-targets
cargo test --workspace --doc

# The simulator's regression guard: instructions of fixed runs against the committed baseline
# (more than 5 % above it fails; about a minute under callgrind).
./scripts/engine_instructions.sh --self-test
./scripts/engine_instructions.sh
