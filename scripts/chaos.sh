#!/usr/bin/env bash
# `npm run chaos`: demo runs under kill -9s, a Redis that forgets, a Postgres restart (with
# CHAOS_POSTGRES=1) and a provider-worker killed mid-call; exits non-zero when any run does not
# end as an undisturbed one does. Builds the services and the driver (bench/chaos.bench.ts:
# phases, figures and knobs are described there); the driver creates and removes its own
# database, queue prefix and workspaces. CHAOS_SHORT=1 for CI.
#
# The Postgres phase stops a whole cluster, so with CHAOS_POSTGRES=1 the run gets a cluster of
# its own (Debian's pg_createcluster: `chaos` on CHAOS_PG_PORT, default 5433, trust auth on
# loopback, created once and left for the next run) unless CHAOS_PG_CLUSTER names another.
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

if [ "${CHAOS_POSTGRES:-}" = 1 ] && [ -z "${CHAOS_PG_CLUSTER:-}" ]; then
  command -v pg_createcluster >/dev/null || { echo "chaos: the postgres phase needs Debian's postgresql-common (pg_createcluster)" >&2; exit 1; }
  version="$(ls /etc/postgresql | sort -V | tail -n 1)"
  port="${CHAOS_PG_PORT:-5433}"
  if [ ! -d "/etc/postgresql/$version/chaos" ]; then
    pg_createcluster "$version" chaos -p "$port" -- --auth=trust >/dev/null
  fi
  pg_ctlcluster --skip-systemctl-redirect "$version" chaos start 2>/dev/null || true
  for _ in $(seq 1 50); do pg_isready -q -h 127.0.0.1 -p "$port" && break; sleep 0.2; done
  export CHAOS_PG_CLUSTER="$version/chaos"
  export TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$port/postgres"
  echo "chaos: the postgres phase runs on its own cluster $CHAOS_PG_CLUSTER (port $port)"
fi

node tools/build.mjs api orchestrator provider-worker test-runner
node bench/build.mjs chaos
exec node --enable-source-maps dist/bench/chaos.js
