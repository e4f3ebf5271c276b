#!/usr/bin/env bash
# `npm run bench:sse`: the api's event stream — replay of a 10,000-event run to one client, and
# live fan-out to 500 SSE subscribers on one api process (p50/p99 commit → client). Makes sure
# deps, Postgres and Redis are there, builds the api and the bench, and runs it. The bench
# creates and removes its own database and queue prefix. Knobs: see bench/sse.bench.ts.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [ -f scripts/ensure-infra.sh ]; then
  # shellcheck source=scripts/ensure-infra.sh
  source scripts/ensure-infra.sh
else
  export TEST_DATABASE_URL="${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
  export TEST_REDIS_URL="${TEST_REDIS_URL:-redis://127.0.0.1:6379}"
fi
# The services the bench starts run under the local quick start's policy (the demo's cassettes).
export ROUNDTABLE_POLICY="${ROUNDTABLE_POLICY:-$PWD/examples/policy/local.yaml}"

node tools/build.mjs api
node bench/build.mjs sse
exec node --enable-source-maps dist/bench/sse.js
