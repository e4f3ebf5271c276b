#!/usr/bin/env bash
# Makes sure everything `npm test` and `npm run demo` need is there: node dependencies,
# Postgres, Redis, and `python -m pytest` (the demo's tests are Python). Idempotent, and quiet
# unless it has to start or install something, or something is wrong.
#
#   source scripts/ensure-infra.sh      (what scripts/test.sh, scripts/demo.sh and .ci/run do)
#   bash scripts/ensure-infra.sh        (just check / start; add --print-env for export lines)
#
# Uses DATABASE_URL / REDIS_URL when they answer. Otherwise starts them: `docker compose up -d`
# when a Docker engine answers, else the locally installed servers. Exports:
#   DATABASE_URL       default postgres://postgres@127.0.0.1:5432/roundtable (created if missing)
#   REDIS_URL          default redis://127.0.0.1:6379
#   TEST_DATABASE_URL  the same server's `postgres` database (integration tests create theirs there)
#   TEST_REDIS_URL     default REDIS_URL
# RT_INFRA_WAIT_S (default 60) bounds the wait for a server that was just started.

rt_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

rt_say() { echo "ensure-infra: $*" >&2; }
rt_redact() { sed -E 's#(://[^:/@]*):[^@/]*@#\1:***@#' <<<"$1"; }
rt_probe() { node "$rt_root/scripts/infra-probe.mjs" "$@"; }
rt_is_local_host() { case "$1" in 127.0.0.1 | localhost | ::1 | 0.0.0.0) return 0 ;; *) return 1 ;; esac; }

rt_ensure_node_deps() {
  local lock="$rt_root/package-lock.json" stamp="$rt_root/node_modules/.package-lock.json"
  # A node_modules that is a link to another checkout's (a git worktree sharing one install):
  # npm ci would empty that checkout's install too, so it is left to its owner.
  if [ -L "$rt_root/node_modules" ]; then
    rt_say "node_modules is a link to $(readlink "$rt_root/node_modules"): not reinstalling it here"
    return 0
  fi
  if [ -f "$lock" ]; then
    if [ -f "$stamp" ] && [ ! "$lock" -nt "$stamp" ]; then return 0; fi
    rt_say "installing node dependencies (npm ci)"
    (cd "$rt_root" && npm ci --no-audit --no-fund --loglevel=error >&2) || {
      rt_say "npm ci failed; see the npm output above"
      return 1
    }
  else
    if [ -d "$rt_root/node_modules" ] && [ ! "$rt_root/package.json" -nt "$rt_root/node_modules" ]; then return 0; fi
    rt_say "installing node dependencies (npm install; there is no package-lock.json)"
    (cd "$rt_root" && npm install --no-audit --no-fund --loglevel=error >&2) || {
      rt_say "npm install failed; see the npm output above"
      return 1
    }
  fi
}

# --- connection checks: the real clients when installed, a tiny node check otherwise --------

rt_pg_answers() { # $1: URL of a database that exists
  if command -v psql >/dev/null 2>&1; then
    PGCONNECT_TIMEOUT=3 psql "$1" -Atqc 'SELECT 1' >/dev/null 2>&1
  else
    rt_probe pg "$1" >/dev/null 2>&1
  fi
}

rt_pg_server_up() { # $1: admin URL; "accepting connections", even if auth would fail
  if command -v pg_isready >/dev/null 2>&1; then
    pg_isready -q -t 3 -d "$1" >/dev/null 2>&1
  else
    rt_pg_answers "$1"
  fi
}

rt_redis_answers() {
  # redis-cli -u takes one server's URL: a cluster's or Sentinel's is asked through ioredis.
  if command -v redis-cli >/dev/null 2>&1 && [[ "$1" != redis+* && "$1" != rediss+* ]]; then
    [ "$(timeout 5 redis-cli -u "$1" ping 2>/dev/null)" = "PONG" ]
  else
    rt_probe redis "$1" >/dev/null 2>&1
  fi
}

rt_compose() {
  if docker compose version >/dev/null 2>&1; then
    docker compose -f "$rt_root/docker-compose.yml" "$@"
  elif command -v docker-compose >/dev/null 2>&1; then
    docker-compose -f "$rt_root/docker-compose.yml" "$@"
  else
    return 127
  fi
}

rt_docker_usable() {
  command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1 &&
    { docker compose version >/dev/null 2>&1 || command -v docker-compose >/dev/null 2>&1; }
}

# --- starting servers -------------------------------------------------------------------------

rt_start_postgres_local() {
  local version
  [ -d /etc/postgresql ] || return 1
  version="$(ls /etc/postgresql 2>/dev/null | sort -V | tail -n 1)"
  [ -n "$version" ] && [ -d "/etc/postgresql/$version/main" ] || return 1
  command -v pg_ctlcluster >/dev/null 2>&1 || return 1
  rt_say "starting the local Postgres $version cluster (pg_ctlcluster)"
  pg_ctlcluster --skip-systemctl-redirect "$version" main start >&2 2>&1 ||
    pg_ctlcluster "$version" main status >/dev/null 2>&1
}

rt_start_redis_local() { # $1: port
  command -v redis-server >/dev/null 2>&1 || return 1
  rt_say "starting a local redis-server on 127.0.0.1:$1"
  redis-server --daemonize yes --bind 127.0.0.1 --port "$1" --save "" --appendonly no >/dev/null
}

rt_start() { # $1: postgres | redis; $2: port (redis)
  if rt_docker_usable; then
    rt_say "starting $1 with docker compose"
    if rt_compose up -d "$1" >&2; then return 0; fi
    rt_say "docker compose could not start $1; trying a locally installed server"
  fi
  case "$1" in
    postgres) rt_start_postgres_local ;;
    redis) rt_start_redis_local "$2" ;;
  esac
}

rt_wait_for() { # $1: what (for the message); $2...: the check command
  local what="$1" deadline=$((SECONDS + ${RT_INFRA_WAIT_S:-60}))
  shift
  until "$@"; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      rt_say "$what did not answer within ${RT_INFRA_WAIT_S:-60}s"
      return 1
    fi
    sleep 0.5
  done
}

rt_how_to_get() {
  cat >&2 <<EOF
ensure-infra: no $1 answers at $(rt_redact "$2") and none could be started.
  Fix one of:
   - point $3 at a running $1 (e.g. export $3=$4);
   - start a Docker engine (then this script runs: docker compose up -d postgres redis);
   - install the server locally ($5) and run this again.
EOF
}

rt_ensure_postgres() {
  local admin host login_wait=0
  admin="$(rt_probe admin-url "$DATABASE_URL")" || {
    rt_say "DATABASE_URL is not a URL: $(rt_redact "$DATABASE_URL")"
    return 1
  }
  if ! rt_pg_server_up "$admin"; then
    host="$(rt_probe host "$DATABASE_URL")"
    if ! rt_is_local_host "$host"; then
      rt_say "DATABASE_URL=$(rt_redact "$DATABASE_URL") does not answer; start that server, or unset DATABASE_URL to use a local one"
      return 1
    fi
    if ! rt_start postgres; then
      rt_how_to_get Postgres "$DATABASE_URL" DATABASE_URL postgres://postgres@127.0.0.1:5432/roundtable \
        "apt-get install postgresql"
      return 1
    fi
    rt_wait_for "Postgres at $(rt_redact "$admin")" rt_pg_server_up "$admin" || return 1
    login_wait=1 # a fresh container accepts connections briefly before its init restart
  fi
  # Accepting connections is not enough: the role must be able to log in.
  if ! { rt_pg_answers "$admin" || { [ "$login_wait" = 1 ] && RT_INFRA_WAIT_S=20 rt_wait_for "Postgres login" rt_pg_answers "$admin"; }; }; then
    rt_say "Postgres runs but $(rt_redact "$admin") cannot log in: check the user/password in DATABASE_URL (the tests expect trust auth or a password in the URL)"
    return 1
  fi
  if ! rt_pg_answers "$DATABASE_URL"; then
    rt_probe pg-ensure-db "$DATABASE_URL" >&2 || {
      rt_say "could not create the database of DATABASE_URL=$(rt_redact "$DATABASE_URL")"
      return 1
    }
  fi
  export TEST_DATABASE_URL="${TEST_DATABASE_URL:-$admin}"
  if [ "$TEST_DATABASE_URL" != "$admin" ] && ! rt_pg_answers "$TEST_DATABASE_URL"; then
    rt_say "TEST_DATABASE_URL=$(rt_redact "$TEST_DATABASE_URL") does not answer; fix it or unset it"
    return 1
  fi
}

rt_ensure_redis() {
  local host port
  if ! rt_redis_answers "$REDIS_URL"; then
    if [[ "$REDIS_URL" == redis+* || "$REDIS_URL" == rediss+* ]]; then
      rt_say "REDIS_URL=$(rt_redact "$REDIS_URL") (a Redis Cluster or Sentinel) does not answer; start it, or unset REDIS_URL to use a local Redis"
      return 1
    fi
    host="$(rt_probe host "$REDIS_URL")" || {
      rt_say "REDIS_URL is not a URL: $(rt_redact "$REDIS_URL")"
      return 1
    }
    if ! rt_is_local_host "$host"; then
      rt_say "REDIS_URL=$(rt_redact "$REDIS_URL") does not answer; start that server, or unset REDIS_URL to use a local one"
      return 1
    fi
    port="$(rt_probe port "$REDIS_URL" 6379)"
    if ! rt_start redis "$port"; then
      rt_how_to_get Redis "$REDIS_URL" REDIS_URL redis://127.0.0.1:6379 "apt-get install redis-server"
      return 1
    fi
    rt_wait_for "Redis at $(rt_redact "$REDIS_URL")" rt_redis_answers "$REDIS_URL" || return 1
  fi
  export TEST_REDIS_URL="${TEST_REDIS_URL:-$REDIS_URL}"
  if [ "$TEST_REDIS_URL" != "$REDIS_URL" ] && ! rt_redis_answers "$TEST_REDIS_URL"; then
    rt_say "TEST_REDIS_URL=$(rt_redact "$TEST_REDIS_URL") does not answer; fix it or unset it"
    return 1
  fi
}

rt_pytest_works() { "$1" -m pytest --version >/dev/null 2>&1; }

# The demo's and the sandbox tests' command is `python -m pytest`, so both names must work.
rt_ensure_pytest() {
  local can_apt=""
  [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && can_apt=1
  if ! command -v python3 >/dev/null 2>&1; then
    if [ -n "$can_apt" ]; then rt_apt_install python3 python3-pytest python-is-python3; fi
    command -v python3 >/dev/null 2>&1 || {
      rt_say "python3 is not installed; install Python 3 with pytest (apt-get install python3-pytest python-is-python3)"
      return 1
    }
  fi
  if ! rt_pytest_works python3 && [ -n "$can_apt" ]; then rt_apt_install python3-pytest; fi
  if ! rt_pytest_works python3; then
    rt_say "'python3 -m pytest' does not work; install pytest for $(command -v python3) (pip install pytest, or apt-get install python3-pytest)"
    return 1
  fi
  if ! command -v python >/dev/null 2>&1 && [ -n "$can_apt" ]; then rt_apt_install python-is-python3; fi
  if ! command -v python >/dev/null 2>&1; then
    rt_say "there is no 'python' command and the demo runs 'python -m pytest'; install python-is-python3 or link python to python3"
    return 1
  fi
  if ! rt_pytest_works python; then
    rt_say "'python -m pytest' does not work ($(command -v python) is not the python3 that has pytest); pip install pytest for it"
    return 1
  fi
}

rt_apt_install() {
  rt_say "installing $* (apt-get)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null 2>&1 ||
    { apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null 2>&1; } ||
    rt_say "apt-get install $* failed"
}

rt_ensure_infra() {
  export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/roundtable}"
  export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379}"
  command -v node >/dev/null 2>&1 || {
    rt_say "node is not installed; install Node.js 20 or newer"
    return 1
  }
  rt_ensure_node_deps || return 1
  rt_ensure_postgres || return 1
  rt_ensure_redis || return 1
  rt_ensure_pytest || return 1
}

if rt_ensure_infra; then
  if [ "${BASH_SOURCE[0]}" = "$0" ] && [ "${1:-}" = "--print-env" ]; then
    for rt_var in DATABASE_URL REDIS_URL TEST_DATABASE_URL TEST_REDIS_URL; do
      printf 'export %s=%q\n' "$rt_var" "${!rt_var}"
    done
  fi
else
  # Sourced: hand the failure to the caller (whose set -e stops it); run directly: exit.
  return 1 2>/dev/null || exit 1
fi
