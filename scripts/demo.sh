#!/usr/bin/env bash
# `npm run demo`: runs examples/dd-demo through the whole build pipeline on this machine.
# Makes sure deps, Postgres and Redis are there (scripts/ensure-infra.sh), builds, migrates
# DATABASE_URL, starts api, orchestrator, provider-worker and test-runner as four separate
# processes (logs in runs/logs/), submits the project over HTTP and follows it to the end.
# The services are always stopped on exit (Ctrl-C included), saying which; the exit code is the client's
# (0 done, 2 halted / needs input, 1 otherwise).
#
#   npm run demo                          the dd-demo project
#   npm run demo -- path/to/project.yaml  another project file (same pipeline)
#   npm run workbench                     the same, then the services stay up for the web workbench
#                                         (http://127.0.0.1:$PORT/) until Ctrl-C
#   ROUNDTABLE_TOKEN=… npm run workbench  with API_TOKENS set: the token the demo submits with (else
#                                         API_TOKENS' first write token); it says which, by name
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root="$PWD"

serve=0
if [ "${1:-}" = "--serve" ]; then
  serve=1
  shift
fi
project="${1:-examples/dd-demo/project.yaml}"
[ -f "$project" ] || { echo "demo: project file $project does not exist" >&2; exit 1; }

# shellcheck source=scripts/ensure-infra.sh
source scripts/ensure-infra.sh

# Tests run in the Docker sandbox by default. Where no engine can be had, the demo still runs,
# with tests as a plain subprocess, and says so: that is containment, not a sandbox.
sandbox_args=()
if ! bash scripts/ensure-docker.sh; then
  echo "demo: no Docker engine here; the demo's tests run as a plain subprocess (containment, not a sandbox)" >&2
  sandbox_args=(--sandbox process)
fi

npm run -s build
missing=()
for svc in api orchestrator provider-worker test-runner; do
  [ -f "dist/apps/$svc/main.js" ] || missing+=("$svc")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "demo: not built: ${missing[*]} (apps/<name>/src/main.ts missing?)" >&2
  exit 1
fi
node dist/tools/migrate.js >/dev/null

# PORT: the caller's, else 3000 when free, else any free port.
if [ -z "${PORT:-}" ]; then
  PORT="$(node -e '
    const net = require("node:net");
    const tryPort = (p) => {
      const s = net.createServer();
      s.once("error", () => (p === 0 ? process.exit(1) : tryPort(0)));
      s.listen(p, () => { const { port } = s.address(); s.close(() => console.log(port)); });
    };
    tryPort(3000);')"
fi
export PORT
export QUEUE_PREFIX="demo_$$"
export WORKSPACE_ROOT="$root/runs/workspaces"
export PROVIDER_QUEUES='*'
# The operator's policy for this machine: the examples' cassettes, and tests outside the sandbox
# allowed for a machine with no Docker engine (see the file). Another policy: ROUNDTABLE_POLICY=…
export ROUNDTABLE_POLICY="${ROUNDTABLE_POLICY:-$root/examples/policy/local.yaml}"
mkdir -p runs/logs "$WORKSPACE_ROOT"

pids=()
names=()   # names[i] is what pids[i] is: a service's name, or "" for the demo's own helpers
stop_services() {
  local pid i
  [ "${#pids[@]}" -gt 0 ] || return 0
  local running=()
  for i in "${!pids[@]}"; do
    # Every service started, even one already on its way out (Ctrl-C reaches them too, at once).
    [ -n "${names[$i]}" ] && running+=("${names[$i]} (pid ${pids[$i]})")
  done
  local list=""
  [ "${#running[@]}" -gt 0 ] && list="$(printf '%s, ' "${running[@]}")" && list="${list%, }"
  [ -n "$list" ] && echo "demo: stopping $list" >&2
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for _ in $(seq 1 50); do
    local alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.2
  done
  local killed=()
  for i in "${!pids[@]}"; do
    if kill -0 "${pids[$i]}" 2>/dev/null; then
      kill -KILL "${pids[$i]}" 2>/dev/null || true
      [ -n "${names[$i]}" ] && killed+=("${names[$i]}")
    fi
  done
  [ "${#killed[@]}" -gt 0 ] && echo "demo: ${killed[*]} did not stop within 10 s of SIGTERM: killed" >&2
  # This run's queue keys go with it; its rows stay in Postgres (they are the record).
  node scripts/infra-probe.mjs redis-clear-prefix "$REDIS_URL" "$QUEUE_PREFIX" >/dev/null 2>&1 || true
  [ -n "$list" ] && echo "demo: stopped $list; Redis keys under $QUEUE_PREFIX cleared, the runs stay in Postgres (logs in runs/logs/)" >&2
  return 0
}
trap stop_services EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Three workers on one machine cannot all serve the ops port's default (9464): each takes a free port
# and logs it. Text logs, because these are read by a person; deployments keep the JSON default.
for svc in api orchestrator provider-worker test-runner; do
  NO_COLOR=1 HEALTH_PORT=0 LOG_FORMAT=text node "dist/apps/$svc/main.js" >"runs/logs/$svc.log" 2>&1 &
  pids+=($!)
  names+=("$svc")
done

# Ready = the api answers /readyz; a service that dies while we wait is reported with its log.
api="http://127.0.0.1:$PORT"
ready_probe='fetch(process.argv[1]).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))'
deadline=$((SECONDS + 60))
until node -e "$ready_probe" "$api/readyz"; do
  i=0
  for svc in api orchestrator provider-worker test-runner; do
    if ! kill -0 "${pids[$i]}" 2>/dev/null; then
      status=0
      wait "${pids[$i]}" || status=$?
      echo "demo: $svc exited during start-up (exit code $status); last lines of runs/logs/$svc.log:" >&2
      tail -n 20 "runs/logs/$svc.log" >&2
      exit 1
    fi
    i=$((i + 1))
  done
  if [ "$SECONDS" -ge "$deadline" ]; then
    echo "demo: $api/readyz did not answer within 60s; see runs/logs/*.log" >&2
    exit 1
  fi
  sleep 0.3
done

echo "demo: the workbench (web) is at $api/ while the services run"
# In the background so that a signal to this script is handled at once, not when the client ends.
# It sends ROUNDTABLE_TOKEN, else the first write token of API_TOKENS, and says which by name.
node scripts/run-demo.mjs "$project" --api "$api" "${sandbox_args[@]}" &
pids+=($!)
names+=("")
rc=0
wait "$!" || rc=$?
if [ "$serve" = 1 ]; then
  login=""
  [ -n "${API_TOKENS:-}" ] && login=", signing in with a token from API_TOKENS"
  echo "demo: services up; open $api/ in a browser$login (New run submits another project). Ctrl-C stops them."
  sleep infinity &
  pids+=($!)
  names+=("")
  wait "$!" || true
fi
exit "$rc"
