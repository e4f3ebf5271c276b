#!/usr/bin/env bash
# Builds the Roundtable service image (docker/services/Dockerfile) on a Docker engine that
# CANNOT pull: the Dockerfile's base images come from this machine instead of a registry.
#
#   bash scripts/build-service-images.sh               roundtable/services:latest + local bases
#   bash scripts/build-service-images.sh --print-env   ... then print the KEY=value lines that
#                                                       docker-compose.yml reads (stdout)
#   ROUNDTABLE_IMAGE=roundtable/services:dev bash scripts/build-service-images.sh
#
# What it makes (each step skipped when its image already carries the same recipe label):
#   roundtable/debian-base:<key>   Debian minbase + ca-certificates + tini (debootstrap, then
#                                   `docker import`; the root filesystem is cached as a tarball
#                                   in ROUNDTABLE_CACHE_DIR, default /var/cache/roundtable)
#   roundtable/node-runtime:<key>  + this host's Node 20 binary       (RUNTIME_BASE)
#   roundtable/node-build:<key>    + npm and this host's CA bundle    (NODE_IMAGE; build stage only)
#   roundtable/postgres:local      Debian's PostgreSQL 15 with the official image's env
#                                   (POSTGRES_HOST_AUTH_METHOD, POSTGRES_DB, POSTGRES_USER,
#                                   POSTGRES_PASSWORD) and data in /var/lib/postgresql/data
#   roundtable/redis:local         Debian's Redis 7, protected mode off like the official image
#   roundtable/services:latest     docker build -f docker/services/Dockerfile with the two
#                                   node bases as build arguments
#
# The Node binary must be a glibc build for Debian bookworm or older (it is copied as is; its
# libraries are checked with ldd inside the base). npm ci in the build stage reaches the npm
# registry the way this host does: the host's CA bundle goes into the build base, never into
# the runtime image. Postgres and Redis are installed with apt inside `docker build
# --network host`, from the same Debian mirror debootstrap uses.
#
# Needs: a Docker engine that answers; root (or sudo) and debootstrap for the first build of the
# Debian root filesystem (a minute; cached afterwards); node on PATH.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

print_env=0
for arg in "$@"; do
  case "$arg" in
    --print-env) print_env=1 ;;
    -h | --help)
      sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "build-service-images: unknown argument $arg (see --help)" >&2
      exit 1
      ;;
  esac
done

SERVICES_IMAGE="${ROUNDTABLE_IMAGE:-roundtable/services:latest}"
POSTGRES_LOCAL_IMAGE="${POSTGRES_LOCAL_IMAGE:-roundtable/postgres:local}"
REDIS_LOCAL_IMAGE="${REDIS_LOCAL_IMAGE:-roundtable/redis:local}"
SUITE="${SERVICES_SUITE:-bookworm}"
# minbase already has libstdc++6 and libgcc-s1 (apt needs them), which is all the Node binary
# links beyond glibc.
BASE_PACKAGES="ca-certificates,tini,git"
ARCH="$(dpkg --print-architecture 2>/dev/null || uname -m)"

say() { echo "build-service-images: $*" >&2; }
die() {
  say "$*"
  exit 1
}
hash16() { sha256sum | cut -c1-16; }
# Output goes to a log shown only on failure (the legacy builder also warns about itself).
docker_build() { # $1: tag; the rest: docker build arguments
  local tag="$1" log="$work/build-${1//[\/:]/-}.log"
  shift
  if ! docker build --pull=false -t "$tag" "$@" >"$log" 2>&1; then
    tail -n 60 "$log" >&2
    die "building $tag failed (the last lines of its build are above)"
  fi
}
recipe_of() { docker image inspect --format '{{ index .Config.Labels "roundtable.recipe" }}' "$1" 2>/dev/null || true; }

command -v docker >/dev/null 2>&1 || die "docker is not installed (scripts/ensure-docker.sh installs and starts it)"
docker info >/dev/null 2>&1 || die "the Docker engine does not answer (scripts/ensure-docker.sh starts it)"

cache_dir="${ROUNDTABLE_CACHE_DIR:-/var/cache/roundtable}"
if ! mkdir -p "$cache_dir" 2>/dev/null || [ ! -w "$cache_dir" ]; then
  cache_dir="${XDG_CACHE_HOME:-$HOME/.cache}/roundtable"
  mkdir -p "$cache_dir"
fi
# Parallel callers (CI, two smoke runs) would debootstrap twice and race on the tags.
exec 9>"$cache_dir/build-service-images.lock"
flock 9

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
work="$(mktemp -d -t rt-images.XXXXXX)"
# shellcheck disable=SC2064 # expand now: the path is fixed
trap "$SUDO rm -rf '$work'" EXIT
started=$SECONDS

# --- 1. Debian base: debootstrap once, cached as a tarball --------------------------------------

base_key="$(echo "service-base v1 $SUITE $BASE_PACKAGES $ARCH" | hash16)"
BASE_IMAGE="roundtable/debian-base:$base_key"
if [ "$(recipe_of "$BASE_IMAGE")" != "$base_key" ]; then
  tarball="$cache_dir/service-base-$base_key.tar"
  if [ ! -s "$tarball" ]; then
    command -v debootstrap >/dev/null 2>&1 || die "debootstrap is not installed (apt-get install -y debootstrap)"
    [ -z "$SUDO" ] || command -v sudo >/dev/null 2>&1 || die "debootstrap needs root or sudo"
    mirror="${DEBIAN_MIRROR:-}"
    if [ -z "$mirror" ]; then
      mirror="$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list 2>/dev/null |
        sed -nE 's#^URIs:[[:space:]]*([^[:space:]]*/debian)/?$#\1#p; s#^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?([^[:space:]]*/debian)/?[[:space:]].*#\2#p' |
        head -n1 || true)"
    fi
    mirror="${mirror:-http://deb.debian.org/debian}"
    rootfs="$work/rootfs"
    mkdir -m 0755 "$rootfs"
    say "debootstrap $SUITE from $mirror (packages: $BASE_PACKAGES); about a minute, once"
    if ! $SUDO debootstrap --variant=minbase --include="$BASE_PACKAGES" "$SUITE" "$rootfs" "$mirror" >"$cache_dir/service-debootstrap.log" 2>&1; then
      $SUDO cat "$rootfs/debootstrap/debootstrap.log" >>"$cache_dir/service-debootstrap.log" 2>/dev/null || true
      die "debootstrap failed; see $cache_dir/service-debootstrap.log"
    fi
    # What Debian's own container images do: services never start inside a build (a postinst
    # that starts redis would hang `docker build`), and no docs or package caches.
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$rootfs/usr/sbin/policy-rc.d" >/dev/null
    $SUDO chmod 0755 "$rootfs/usr/sbin/policy-rc.d"
    printf 'path-exclude /usr/share/doc/*\npath-exclude /usr/share/man/*\npath-exclude /usr/share/info/*\npath-exclude /usr/share/locale/*\npath-include /usr/share/locale/locale.alias\n' |
      $SUDO tee "$rootfs/etc/dpkg/dpkg.cfg.d/docker-slim" >/dev/null
    printf 'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\n' | $SUDO tee "$rootfs/etc/apt/apt.conf.d/docker-slim" >/dev/null
    $SUDO rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* \
      "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* "$rootfs"/var/log/*
    $SUDO tar -C "$rootfs" --numeric-owner -cf "$tarball.partial" .
    $SUDO chown "$(id -u):$(id -g)" "$tarball.partial"
    mv "$tarball.partial" "$tarball"
    $SUDO rm -rf "$rootfs"
    find "$cache_dir" -maxdepth 1 -name 'service-base-*.tar' ! -name "service-base-$base_key.tar" -delete
    say "Debian root filesystem cached at $tarball ($(du -h "$tarball" | cut -f1))"
  else
    say "using cached Debian root filesystem $tarball"
  fi
  docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8' \
    --change "LABEL roundtable.recipe=$base_key" \
    --change 'CMD ["/bin/bash"]' \
    "$tarball" "$BASE_IMAGE" >/dev/null
  say "imported $BASE_IMAGE"
fi

# --- 2. Node bases: this host's node binary (runtime), plus npm and the host's CAs (build) ------

node_bin="$(readlink -f "$(command -v node)")"
node_version="$(node --version)"
case "$node_version" in v2[0-9].* | v[3-9][0-9].*) ;; *) die "node $node_version on PATH; the services need Node 20 or later" ;; esac
npm_dir="$(npm root -g)/npm"
[ -f "$npm_dir/bin/npm-cli.js" ] || die "npm not found at $npm_dir (needed in the build stage)"
ca_bundle="${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}"
[ -s "$ca_bundle" ] || ca_bundle=/etc/ssl/certs/ca-certificates.crt

# Each key covers exactly what goes into its image (the Dockerfile text and the files it
# copies), so editing this script's comments or the infra images rebuilds nothing here, and the
# services image's npm ci layer stays cached.
runtime_dockerfile="FROM $BASE_IMAGE
COPY node /usr/local/bin/node
# A library the binary links and the base lacks shows here, not at the first service start.
RUN ! ldd /usr/local/bin/node | grep -q 'not found' && node --version
CMD [\"node\"]"
node_key="$({
  echo "$runtime_dockerfile"
  sha256sum "$node_bin" | cut -d' ' -f1
} | hash16)"
RUNTIME_IMAGE="roundtable/node-runtime:$node_key"
if [ "$(recipe_of "$RUNTIME_IMAGE")" != "$node_key" ]; then
  ctx="$work/node-runtime"
  mkdir -p "$ctx"
  cp "$node_bin" "$ctx/node"
  printf '%s\nLABEL roundtable.recipe=%s\n' "$runtime_dockerfile" "$node_key" >"$ctx/Dockerfile"
  docker_build "$RUNTIME_IMAGE" "$ctx"
  say "built $RUNTIME_IMAGE (node $node_version)"
fi

build_dockerfile="FROM $RUNTIME_IMAGE
COPY npm /usr/local/lib/node_modules/npm
COPY host-ca.crt /usr/local/share/roundtable/host-ca.crt
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \\
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \\
 && npm --version
ENV NODE_EXTRA_CA_CERTS=/usr/local/share/roundtable/host-ca.crt"
build_key="$({
  echo "$build_dockerfile"
  cat "$npm_dir/package.json"
  sha256sum "$ca_bundle" | cut -d' ' -f1
} | hash16)"
BUILD_IMAGE="roundtable/node-build:$build_key"
if [ "$(recipe_of "$BUILD_IMAGE")" != "$build_key" ]; then
  ctx="$work/node-build"
  mkdir -p "$ctx"
  cp -a "$npm_dir" "$ctx/npm"
  cp "$ca_bundle" "$ctx/host-ca.crt"
  printf '%s\nLABEL roundtable.recipe=%s\n' "$build_dockerfile" "$build_key" >"$ctx/Dockerfile"
  docker_build "$BUILD_IMAGE" "$ctx"
  say "built $BUILD_IMAGE (npm $(node -p "require('$npm_dir/package.json').version"))"
fi

# --- 3. Postgres and Redis for the compose stack (the official images need a registry) ---------

infra_image() { # $1: tag, $2: recipe key, $3: context dir holding the Dockerfile
  if [ "$(recipe_of "$1")" = "$2" ]; then return 0; fi
  docker_build "$1" --network host "$3"
  say "built $1"
}

ctx="$work/postgres"
mkdir -p "$ctx"
cat >"$ctx/docker-entrypoint.sh" <<'EOF'
#!/bin/sh
# The part of the official postgres image's entrypoint that Roundtable's compose file uses: a
# first start initialises PGDATA (user, auth method, password, database) and then postgres
# runs in the foreground as PID 1, so `docker stop` is a clean smart shutdown.
set -eu
if [ "${1#-}" != "$1" ]; then set -- postgres "$@"; fi
if [ "$1" = postgres ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
  user="${POSTGRES_USER:-postgres}"
  auth="${POSTGRES_HOST_AUTH_METHOD:-scram-sha-256}"
  if [ "$auth" != trust ] && [ -z "${POSTGRES_PASSWORD:-}" ]; then
    echo "postgres: set POSTGRES_PASSWORD, or POSTGRES_HOST_AUTH_METHOD=trust" >&2
    exit 1
  fi
  pwfile="$(mktemp)"
  printf '%s\n' "${POSTGRES_PASSWORD:-}" >"$pwfile"
  if [ -n "${POSTGRES_PASSWORD:-}" ]; then pw="--pwfile=$pwfile"; else pw=""; fi
  initdb -D "$PGDATA" --username="$user" --auth-local=trust --auth-host="$auth" $pw --encoding=UTF8 --locale=C.UTF-8 >/dev/null
  rm -f "$pwfile"
  echo "host all all all $auth" >>"$PGDATA/pg_hba.conf"
  echo "listen_addresses = '*'" >>"$PGDATA/postgresql.auto.conf"
  db="${POSTGRES_DB:-$user}"
  if [ "$db" != postgres ]; then
    echo "CREATE DATABASE \"$db\" OWNER \"$user\";" | postgres --single -D "$PGDATA" postgres >/dev/null
  fi
  echo "postgres: initialised $PGDATA (database $db, host auth $auth)" >&2
fi
exec "$@"
EOF
cat >"$ctx/Dockerfile" <<EOF
FROM $BASE_IMAGE
RUN apt-get update \\
 && apt-get install -y --no-install-recommends postgresql-15 \\
 && rm -rf /var/lib/apt/lists/* /var/lib/postgresql/15 /etc/postgresql/15/main \\
 && install -d -o postgres -g postgres -m 0700 /var/lib/postgresql/data \\
 && install -d -o postgres -g postgres -m 2775 /run/postgresql
COPY docker-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
RUN chmod 0755 /usr/local/bin/docker-entrypoint.sh
ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/bin:/usr/bin:/bin PGDATA=/var/lib/postgresql/data
USER postgres
VOLUME /var/lib/postgresql/data
EXPOSE 5432
STOPSIGNAL SIGINT
ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]
CMD ["postgres"]
EOF
pg_key="$(cat "$ctx/Dockerfile" "$ctx/docker-entrypoint.sh" | hash16)"
echo "LABEL roundtable.recipe=$pg_key" >>"$ctx/Dockerfile"
infra_image "$POSTGRES_LOCAL_IMAGE" "$pg_key" "$ctx"

ctx="$work/redis"
mkdir -p "$ctx"
cat >"$ctx/docker-entrypoint.sh" <<'EOF'
#!/bin/sh
# Like the official redis image: protected mode off (the container network is the boundary),
# and `redis-server <flags>` runs in the foreground as PID 1.
set -eu
if [ "${1#-}" != "$1" ]; then set -- redis-server "$@"; fi
if [ "$1" = redis-server ]; then
  shift
  set -- redis-server --protected-mode no "$@"
fi
exec "$@"
EOF
cat >"$ctx/Dockerfile" <<EOF
FROM $BASE_IMAGE
RUN apt-get update \\
 && apt-get install -y --no-install-recommends redis-server \\
 && rm -rf /var/lib/apt/lists/* \\
 && install -d -o redis -g redis -m 0750 /data
COPY docker-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
RUN chmod 0755 /usr/local/bin/docker-entrypoint.sh
USER redis
WORKDIR /data
VOLUME /data
EXPOSE 6379
ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]
CMD ["redis-server"]
EOF
redis_key="$(cat "$ctx/Dockerfile" "$ctx/docker-entrypoint.sh" | hash16)"
echo "LABEL roundtable.recipe=$redis_key" >>"$ctx/Dockerfile"
infra_image "$REDIS_LOCAL_IMAGE" "$redis_key" "$ctx"

# --- 4. The services image, from the repository's Dockerfile ------------------------------------

# A context of exactly what the Dockerfile copies: the classic builder reads no per-Dockerfile
# ignore file, and node_modules, dist/ and runs/ would add hundreds of MB to every build.
context_files=(package.json package-lock.json .swcrc tsconfig.base.json tsconfig.json tools apps libs prompts examples docker/services)
for f in "${context_files[@]}"; do [ -e "$root/$f" ] || die "$f is missing from $root"; done
say "building $SERVICES_IMAGE (docker/services/Dockerfile)"
t0=$SECONDS
tar -C "$root" --exclude='*.spec.ts' --exclude='*.int-spec.ts' --exclude='*.e2e-spec.ts' -c "${context_files[@]}" |
  docker_build "$SERVICES_IMAGE" --build-arg "NODE_IMAGE=$BUILD_IMAGE" --build-arg "RUNTIME_BASE=$RUNTIME_IMAGE" \
    -f docker/services/Dockerfile -
say "built $SERVICES_IMAGE in $((SECONDS - t0)) s ($((SECONDS - started)) s in all)"

# Bases of earlier recipes; one still under a newer image or a container stays (rmi without -f).
for current in "$BASE_IMAGE" "$RUNTIME_IMAGE" "$BUILD_IMAGE"; do
  docker image ls --format '{{.Repository}}:{{.Tag}}' "${current%:*}" | grep -vxF "$current" |
    xargs -r docker rmi >/dev/null 2>&1 || true
done

if [ "$print_env" = 1 ]; then
  cat <<EOF
ROUNDTABLE_IMAGE=$SERVICES_IMAGE
NODE_IMAGE=$BUILD_IMAGE
RUNTIME_BASE=$RUNTIME_IMAGE
POSTGRES_IMAGE=$POSTGRES_LOCAL_IMAGE
REDIS_IMAGE=$REDIS_LOCAL_IMAGE
EOF
fi
