#!/usr/bin/env bash
# `npm run bench:overhead [-- <phases>]`: Roundtable's orchestration overhead per agent call
# against the floor (a raw BullMQ round trip plus one Postgres transaction) and two peers
# (LangGraph.js, DBOS Transact). Phases: build, panel, peer, dbos, long, panel500 (default all;
# `-- panel,peer` runs those two; the same as BENCH_PHASES). Makes sure deps, Postgres and Redis
# are there, builds the services and the bench, and runs it. The bench creates and removes its
# own databases, queue prefixes and workspaces. Knobs: see bench/README.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ $# -gt 0 ]; then export BENCH_PHASES="$1"; fi

if [ -f scripts/ensure-infra.sh ]; then
  # shellcheck source=scripts/ensure-infra.sh
  source scripts/ensure-infra.sh
else
  export TEST_DATABASE_URL="${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
  export TEST_REDIS_URL="${TEST_REDIS_URL:-redis://127.0.0.1:6379}"
fi
# The services the bench starts run under the local quick start's policy (the demo's cassettes).
export ROUNDTABLE_POLICY="${ROUNDTABLE_POLICY:-$PWD/examples/policy/local.yaml}"

node tools/build.mjs api orchestrator provider-worker test-runner
node bench/build.mjs
exec node --enable-source-maps dist/bench/overhead.js
