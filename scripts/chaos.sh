#!/usr/bin/env bash
# `npm run chaos`: demo runs under kill -9s, a Redis that forgets, a Postgres restart (only with
# CHAOS_POSTGRES=1: it restarts the whole local cluster) and a provider-worker killed mid-call;
# exits non-zero when any run does not end as an undisturbed one does. Builds the services and
# the driver (bench/chaos.bench.ts: phases, figures and knobs are described there); the driver
# creates and removes its own database, queue prefix and workspaces. CHAOS_SHORT=1 for CI.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [ -f scripts/ensure-infra.sh ]; then
  # shellcheck source=scripts/ensure-infra.sh
  source scripts/ensure-infra.sh
else
  export TEST_DATABASE_URL="${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
  export TEST_REDIS_URL="${TEST_REDIS_URL:-redis://127.0.0.1:6379}"
fi
export ROUNDTABLE_POLICY="${ROUNDTABLE_POLICY:-$PWD/examples/policy/local.yaml}"

node tools/build.mjs api orchestrator provider-worker test-runner
node bench/build.mjs chaos
exec node --enable-source-maps dist/bench/chaos.js
