#!/usr/bin/env bash
# Smoke test of the compose deployment: builds the images without a registry, brings the whole
# stack up (docker-compose.yml), submits examples/dd-demo through the API, waits for the run to
# be `done` with verdict ACCEPT (after checking that the api wants its token and holds a project
# to the deployment's policy, docker/policy.yaml), runs the same demo on a real SDK — worker-anthropic holding
# ANTHROPIC_API_KEY, the api holding none, the Anthropic SDK pointed at a fake LLM server on the host
# (test/deploy/compose-smoke.real-sdk.yml) — after checking GET /v1/providers and the 400 for a provider no
# worker serves, scales worker-replay to 2, and tears everything down (volumes too), whatever happened. Exit 0 only when every step passed; on a failure the services' logs
# are printed.
#
#   bash test/deploy/compose-smoke.sh
#
# Needs a Docker engine that answers (scripts/ensure-docker.sh), node with the repository's
# node_modules, and `docker compose` or `docker-compose` (installed from Debian when missing and
# running as root). Root or sudo for the first image build (debootstrap; cached afterwards).
#
# Environment:
#   ROUNDTABLE_TOKEN          the api's write token (API_TOKENS=smoke:<it>:write), sent as
#                             `Authorization: Bearer …`; default a fresh random one
#   RT_SMOKE_BUILD_TIMEOUT_S  bound on building the images (default 1500: a cold build is minutes)
#   RT_SMOKE_TIMEOUT_S        bound on everything after the build (default 420)
#   RT_SMOKE_KEEP=1           leave the stack up afterwards (prints how to take it down)
#
# The stack gets its own compose project name, free host ports and a workspace directory under
# /tmp, so it runs beside a development stack and other smoke runs. The demo's tests run in the
# sandbox image (roundtable/sandbox, scripts/build-sandbox-image.sh) started by test-runner
# through the host's Docker socket; its workspace path is the same on the host and in test-runner.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"

build_timeout_s="${RT_SMOKE_BUILD_TIMEOUT_S:-1500}"
timeout_s="${RT_SMOKE_TIMEOUT_S:-420}"
project="rtsmoke$$"
started=$SECONDS

say() { echo "compose-smoke: $*" >&2; }
fail() {
  say "FAILED: $*"
  exit 1
}

docker info >/dev/null 2>&1 || fail "no Docker engine answers (scripts/ensure-docker.sh starts one)"

if docker compose version >/dev/null 2>&1; then
  compose_bin=(docker compose)
elif command -v docker-compose >/dev/null 2>&1; then
  compose_bin=(docker-compose)
elif [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  say "installing docker-compose (apt)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends docker-compose >&2 ||
    { apt-get update >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends docker-compose >&2; }
  compose_bin=(docker-compose)
else
  fail "neither 'docker compose' nor 'docker-compose' is installed"
fi
compose_files=(-f "$root/docker-compose.yml" -f "$root/test/deploy/compose-smoke.real-sdk.yml")
compose() { "${compose_bin[@]}" -p "$project" "${compose_files[@]}" "$@"; }

# --- images: no registry needed ------------------------------------------------------------------

t0=$SECONDS
timeout "$build_timeout_s" bash scripts/build-sandbox-image.sh || fail "building the sandbox image failed or took over ${build_timeout_s}s"
image_env="$(timeout "$build_timeout_s" bash scripts/build-service-images.sh --print-env)" ||
  fail "building the service images failed or took over ${build_timeout_s}s"
while IFS='=' read -r key value; do
  [ -n "$key" ] && export "$key=$value"
done <<<"$image_env"
build_s=$((SECONDS - t0))
say "images ready in ${build_s}s"

# --- the stack -------------------------------------------------------------------------------------

work="$(mktemp -d -t rt-smoke.XXXXXX)"
export ROUNDTABLE_WORKSPACES="$work/workspaces"
export DOCKER_GID
DOCKER_GID="$(stat -c %g /var/run/docker.sock)" || fail "no /var/run/docker.sock here: test-runner mounts the engine's socket from that path"
export API_PORT=0 POSTGRES_PORT=0 REDIS_PORT=0 # any free host port: a dev stack may hold the defaults
export SANDBOX_IMAGE="${SANDBOX_IMAGE:-roundtable/sandbox:latest}"
# The stack's api refuses to start without tokens (it listens on 0.0.0.0 in its container).
ROUNDTABLE_TOKEN="${ROUNDTABLE_TOKEN:-$(node -e 'process.stdout.write(require("node:crypto").randomBytes(24).toString("hex"))')}"
export ROUNDTABLE_TOKEN API_TOKENS="smoke:$ROUNDTABLE_TOKEN:write"
deadline=$((SECONDS + timeout_s))
ok=0


teardown() {
  local status=$?
  if [ "${RT_SMOKE_KEEP:-}" = 1 ]; then
    say "left up (RT_SMOKE_KEEP=1): api ${ROUNDTABLE_API:-not up}; take it down with:"
    say "  ${compose_bin[*]} -p $project ${compose_files[*]} down -v; rm -rf $work; kill ${fake_llm_pid:-}"
    exit "$status"
  fi
  if [ "$ok" != 1 ]; then
    say "--- compose ps"
    compose ps >&2 || true
    # docker logs, not compose logs: docker-compose v1 prints nothing for running containers.
    local id
    for id in $(compose ps -q 2>/dev/null); do
      say "--- logs of $(docker inspect -f '{{.Name}}' "$id" | sed 's#^/##') (last 80 lines)"
      docker logs --tail 80 "$id" 2>&1 | sed $'s/\e\\[[0-9;]*m//g' >&2 || true
    done
  fi
  kill "${fake_llm_pid:-}" 2>/dev/null || true
  compose down -v --remove-orphans --timeout 30 >/dev/null 2>&1 || say "compose down failed (project $project)"
  # The sandbox wrote as uid 10001; a root container removes what this user may not.
  rm -rf "$work" 2>/dev/null ||
    docker run --rm --user 0:0 --entrypoint /bin/rm -v "$work:$work" "$ROUNDTABLE_IMAGE" -rf "$work/workspaces" >/dev/null 2>&1 || true
  rm -rf "$work" 2>/dev/null || true
  exit "$status"
}
trap teardown EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The real-SDK run's stand-in provider: the fake LLM wire server on the host, answering the demo's
# replies; worker-anthropic reaches it as host.docker.internal (the host's gateway).
node test/deploy/build-smoke-tools.mjs >&2 || fail "building the smoke's fake LLM server failed"
node dist/test/fake-llm-host.js examples/dd-demo/cassette.yaml 0.0.0.0 >"$work/fake-llm.out" 2>&1 &
fake_llm_pid=$!
for _ in $(seq 50); do grep -q '"port"' "$work/fake-llm.out" 2>/dev/null && break; sleep 0.1; done
fake_llm_port="$(node -e 'process.stdout.write(String(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8").split("\n")[0]).port))' "$work/fake-llm.out")" ||
  fail "the fake LLM server did not start: $(cat "$work/fake-llm.out")"
export RT_FAKE_LLM_URL="http://host.docker.internal:$fake_llm_port"
# The smoke's policy: the deployment's, plus the one URL ANTHROPIC_API_KEY may go to here
export RT_SMOKE_POLICY="$work/policy.yaml"
# (OPENAI_API_KEY keeps its official URL: the smoke's run on openai is refused by the registry, no worker serving it.)
{
  cat docker/policy.yaml
  printf 'api_keys:\n  ANTHROPIC_API_KEY: { provider_type: anthropic, base_urls: ["%s"] }\n' "$RT_FAKE_LLM_URL"
  printf '  OPENAI_API_KEY: { provider_type: openai_compat, base_urls: ["https://api.openai.com/v1"] }\n'
} >"$RT_SMOKE_POLICY"
# Passed through to worker-anthropic alone (docker-compose.yml); the api's environment has no key.
export ANTHROPIC_API_KEY="sk-ant-smoke-$(node -e 'process.stdout.write(require("node:crypto").randomBytes(8).toString("hex"))')"

remaining() { echo $((deadline - SECONDS)); }
[ "$(remaining)" -gt 0 ] || fail "no time left after the build"

t0=$SECONDS
say "docker compose up -d (project $project)"
timeout "$(remaining)" "${compose_bin[@]}" -p "$project" "${compose_files[@]}" up -d --no-build >&2 ||
  fail "compose up failed"
api_port="$(compose port api 3000 | sed -E 's/.*:([0-9]+)$/\1/')"
[ -n "$api_port" ] || fail "api publishes no port"
export ROUNDTABLE_API="http://127.0.0.1:$api_port"

# The host-side client: readiness, submission, following. Node, because it is here anyway.
client="$work/smoke-client.cjs"
cat >"$client" <<'EOF'
const { readFileSync } = require('node:fs');
const { parse } = require(require.resolve('yaml', { paths: [process.cwd()] }));
const api = process.env.ROUNDTABLE_API;
const headers = process.env.ROUNDTABLE_TOKEN ? { authorization: `Bearer ${process.env.ROUNDTABLE_TOKEN}` } : {};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const deadline = Date.now() + Number(process.argv[3]) * 1000;
// A request to a published port whose container does not listen yet is held open by the
// engine's proxy, and fetch's socket does not keep node alive: without this ref'd timer node
// would exit in the middle of the step, with code 0 and no output. Ending any other way than
// through the last line below is a failure.
setInterval(() => {}, 1000);
process.exitCode = 1;

async function call(method, route, body, auth = headers) {
  const res = await fetch(api + route, {
    method,
    headers: body === undefined ? auth : { ...auth, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  let json;
  try { json = JSON.parse(text); } catch { json = undefined; }
  return { status: res.status, text, json };
}

async function ready() {
  let last = 'no answer';
  while (Date.now() < deadline) {
    try {
      const r = await call('GET', '/readyz');
      if (r.status === 200) return console.log(`api ready: ${r.text.slice(0, 200)}`);
      last = `HTTP ${r.status} ${r.text.slice(0, 300)}`;
    } catch (e) {
      last = e.cause?.message ?? e.message;
    }
    await sleep(500);
  }
  throw new Error(`api /readyz not ready in time: ${last}`);
}

async function demo() {
  const config = parse(readFileSync('examples/dd-demo/project.yaml', 'utf8'));
  // The services read the cassette by path: the copy inside the image, not the host's.
  config.providers.replay.cassette = '/app/examples/dd-demo/cassette.yaml';
  // The doors: no token, no run; and the deployment's policy (docker/policy.yaml) refuses tests outside the sandbox.
  const anonymous = await call('POST', '/v1/runs', config, {});
  if (anonymous.status !== 401) throw new Error(`POST /v1/runs without a token answered HTTP ${anonymous.status}, not 401: ${anonymous.text.slice(0, 500)}`);
  const unsandboxed = await call('POST', '/v1/runs', { ...config, sandbox: 'process' });
  if (unsandboxed.status !== 400 || !unsandboxed.json?.issues?.some((i) => i.path === 'sandbox.runner' && i.message.includes('sandbox.allow_process'))) {
    throw new Error(`POST /v1/runs with sandbox: process answered HTTP ${unsandboxed.status}, not a 400 naming sandbox.allow_process: ${unsandboxed.text.slice(0, 1000)}`);
  }
  console.log('api refuses an anonymous submission (401) and sandbox: process under the policy (400)');
  const sub = await call('POST', '/v1/runs', config);
  if (sub.status !== 202 || !sub.json?.id) throw new Error(`POST /v1/runs answered HTTP ${sub.status}: ${sub.text.slice(0, 2000)}`);
  const id = sub.json.id;
  console.log(`run ${id} submitted`);
  let run, stage;
  while (Date.now() < deadline) {
    const r = await call('GET', `/v1/runs/${id}`);
    if (r.status !== 200) throw new Error(`GET /v1/runs/${id} answered HTTP ${r.status}: ${r.text.slice(0, 500)}`);
    run = r.json;
    if (run.stage !== stage) console.log(`  [${(stage = run.stage)}] status ${run.status}`);
    if (['done', 'halted', 'needs_input', 'cancelled', 'failed'].includes(run.status)) break;
    await sleep(500);
  }
  if (run?.status !== 'done') throw new Error(`run ${id} ended ${run?.status} at ${run?.stage} (halt reason: ${run?.halt_reason ?? 'none'})`);
  if (run.verdict !== 'ACCEPT') throw new Error(`run ${id} is done with verdict ${run.verdict}, not ACCEPT`);
  // The tests really ran, in the Docker sandbox (test-runner's default, through the socket): the
  // report holds the final test run's counts, and a process-runner run would be labelled.
  const report = await call('GET', `/v1/runs/${id}/report`);
  if (report.status !== 200) throw new Error(`GET /v1/runs/${id}/report answered HTTP ${report.status}`);
  const passing = /→ exit 0, ([1-9]\d*) passed, 0 failed/.exec(report.text);
  if (!passing) throw new Error(`the report of run ${id} shows no passing test run:\n${report.text.slice(0, 3000)}`);
  if (report.text.includes('[runner: process]')) throw new Error(`run ${id} ran its tests without the Docker sandbox`);
  // Its record, recomputed from the rows by the deployed api (issue 26): an untouched run is intact.
  const verified = await call('GET', `/v1/runs/${id}/verify`);
  const verdict = verified.status === 200 ? JSON.parse(verified.text) : null;
  if (!verdict?.intact) throw new Error(`run ${id}'s record does not verify: HTTP ${verified.status} ${verified.text.slice(0, 1000)}`);
  console.log(`run ${id} done, verdict ${run.verdict}, last test run: ${passing[1]} passed, record intact (head ${verdict.head})`);
  // The workbench is in the image: the api serves its page at /runs/<id> (no token: static files, no run data).
  const page = await fetch(`${api}/runs/${id}`, { signal: AbortSignal.timeout(10_000) });
  const html = await page.text();
  if (page.status !== 200 || !/<script[^>]+src="\/assets\/app-[^"]+\.js"/.test(html)) throw new Error(`GET /runs/${id} did not answer the workbench's page: HTTP ${page.status} ${html.slice(0, 300)}`);
  console.log('workbench page served by the api');
}

async function realSdk() {
  // The registry: worker-anthropic published itself with its key set (never its value).
  let anthropic;
  while (Date.now() < deadline) {
    const r = await call('GET', '/v1/providers');
    if (r.status !== 200) throw new Error(`GET /v1/providers answered HTTP ${r.status}: ${r.text.slice(0, 500)}`);
    anthropic = r.json.providers.find((p) => p.name === 'anthropic');
    if (anthropic?.workers?.length) break;
    await sleep(500);
  }
  if (!anthropic?.workers?.length || anthropic.keys?.ANTHROPIC_API_KEY !== true) {
    throw new Error(`GET /v1/providers does not show worker-anthropic with ANTHROPIC_API_KEY set: ${JSON.stringify(anthropic)}`);
  }
  if (JSON.stringify(anthropic).includes(process.env.ANTHROPIC_API_KEY)) throw new Error('GET /v1/providers shows the key itself');
  console.log(`GET /v1/providers: anthropic served by ${anthropic.workers.length} worker(s), ANTHROPIC_API_KEY set there`);
  const config = parse(readFileSync('examples/dd-demo/project.yaml', 'utf8'));
  const onProvider = (provider, model) => {
    for (const role of Object.keys(config.agents)) config.agents[role] = { ...config.agents[role], provider, model };
  };
  // No worker serves openai: a 400 naming the variable and the worker group to start.
  config.providers = { openai: { type: 'openai_compat', api_key_env: 'OPENAI_API_KEY' } };
  onProvider('openai', 'gpt-5-mini');
  const unserved = await call('POST', '/v1/runs', config);
  if (unserved.status !== 400 || !unserved.text.includes('worker-openai')) {
    throw new Error(`a run on a provider no worker serves answered HTTP ${unserved.status}, not a 400 naming worker-openai: ${unserved.text.slice(0, 1000)}`);
  }
  console.log('a run on a provider no worker serves: 400 naming worker-openai');
  config.providers = { anthropic: { type: 'anthropic', api_key_env: 'ANTHROPIC_API_KEY', base_url: process.env.RT_FAKE_LLM_URL } };
  onProvider('anthropic', 'claude-haiku-4-5');
  const sub = await call('POST', '/v1/runs', config);
  if (sub.status !== 202) throw new Error(`POST /v1/runs on anthropic answered HTTP ${sub.status}: ${sub.text.slice(0, 2000)}`);
  const id = sub.json.id;
  let run;
  while (Date.now() < deadline) {
    run = (await call('GET', `/v1/runs/${id}`)).json;
    if (['done', 'halted', 'needs_input', 'cancelled', 'failed'].includes(run.status)) break;
    await sleep(500);
  }
  if (run?.status !== 'done' || run.verdict !== 'ACCEPT') {
    throw new Error(`the real-SDK run ${id} ended ${run?.status} (verdict ${run?.verdict}, halt reason ${run?.halt_reason ?? 'none'})`);
  }
  const calls = (await call('GET', `/v1/runs/${id}/calls`)).json;
  const list = Array.isArray(calls) ? calls : calls.calls ?? [];
  if (!list.length || !list.every((c) => c.provider === 'anthropic')) throw new Error(`run ${id}'s calls are not all on anthropic: ${JSON.stringify(list).slice(0, 500)}`);
  console.log(`real-SDK run ${id} done, verdict ACCEPT, ${list.length} calls through the Anthropic SDK`);
}

const step = { ready, demo, 'real-sdk': realSdk }[process.argv[2]];
step().then(() => process.exit(0), (e) => { console.error(e.message); process.exit(1); });
EOF

node "$client" ready "$(remaining)" >&2 || fail "the api did not become ready"
up_s=$((SECONDS - t0))
say "stack up and api ready in ${up_s}s ($ROUNDTABLE_API)"

t0=$SECONDS
node "$client" demo "$(remaining)" >&2 || fail "the dd-demo run did not finish done/ACCEPT"
demo_s=$((SECONDS - t0))
say "dd-demo done with ACCEPT in ${demo_s}s"

# --- a real SDK: the key on its worker only --------------------------------------------------------

t0=$SECONDS
if compose exec -T api printenv ANTHROPIC_API_KEY >/dev/null 2>&1; then fail "the api's container holds ANTHROPIC_API_KEY"; fi
node "$client" real-sdk "$(remaining)" >&2 || fail "the real-SDK run did not finish done/ACCEPT"
real_sdk_s=$((SECONDS - t0))
say "real-SDK run (worker-anthropic, keyless api) done with ACCEPT in ${real_sdk_s}s"

# --- one provider group scales alone -----------------------------------------------------------------

t0=$SECONDS
timeout "$(remaining)" "${compose_bin[@]}" -p "$project" "${compose_files[@]}" \
  up -d --no-build --no-recreate --no-deps --scale worker-replay=2 worker-replay >&2 || fail "scaling worker-replay failed"
running_of() { # $1: service; prints how many of its containers are running
  local n=0 id
  for id in $(compose ps -q "$1"); do
    [ "$(docker inspect -f '{{.State.Running}}' "$id")" = true ] && n=$((n + 1))
  done
  echo "$n"
}
sleep 3 # a container that crashes on start would be counted as running for an instant
replay_n="$(running_of worker-replay)"
[ "$replay_n" = 2 ] || fail "worker-replay runs $replay_n containers after --scale worker-replay=2"
anthropic_n="$(running_of worker-anthropic)"
[ "$anthropic_n" = 1 ] || fail "worker-anthropic runs $anthropic_n containers; scaling worker-replay must leave it at 1"
say "worker-replay scaled to 2 (worker-anthropic still 1) in $((SECONDS - t0))s"

ok=1
say "PASSED in $((SECONDS - started))s (images ${build_s}s, up ${up_s}s, demo ${demo_s}s, real SDK ${real_sdk_s}s)"
