#!/usr/bin/env bash
# Builds the test sandbox image (roundtable/sandbox) WITHOUT any container registry: a Debian
# root filesystem from the distribution's own packages (debootstrap), a non-root user, then
# `docker import`. Equivalent to docker/sandbox/Dockerfile (Python 3 + pytest + Node, user
# `sandbox` uid 10001, WORKDIR /workspace) for machines whose Docker engine cannot pull.
#
#   bash scripts/build-sandbox-image.sh            builds roundtable/sandbox:latest if needed
#   SANDBOX_IMAGE=roundtable/sandbox:dev bash scripts/build-sandbox-image.sh
#
# Idempotent: the image carries a label roundtable.recipe=<hash of this script and its
# inputs>; when the image already has that label nothing is done. The debootstrapped root
# filesystem is cached as a tarball (ROUNDTABLE_CACHE_DIR, default /var/cache/roundtable,
# else ~/.cache/roundtable), so rebuilding a deleted image takes seconds, not minutes.
#
# Needs: docker (an engine that answers), and for a cold build root (or sudo), debootstrap and
# a Debian mirror (DEBIAN_MIRROR; default: the first one in /etc/apt/sources.list*).
set -euo pipefail

IMAGE="${SANDBOX_IMAGE:-roundtable/sandbox:latest}"
case "${IMAGE##*/}" in *:*) ;; *) IMAGE="$IMAGE:latest" ;; esac
SUITE="${SANDBOX_SUITE:-bookworm}"
# No npm: Debian's pulls ~350 node-* packages (+350 MB). `node --test` works as is; a project
# whose tests need npm names its own image (sandbox.image in project.yaml).
PACKAGES="${SANDBOX_PACKAGES:-python3,python3-pytest,nodejs,ca-certificates}"
SANDBOX_UID=10001

say() { echo "build-sandbox-image: $*" >&2; }
die() {
  say "$*"
  exit 1
}

command -v docker >/dev/null 2>&1 || die "docker is not installed (scripts/ensure-docker.sh installs and starts it)"
docker info >/dev/null 2>&1 || die "the Docker engine does not answer (is dockerd running? scripts/ensure-docker.sh starts it)"

script_path="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")"
# Everything that changes what ends up in the image is in the hash: a changed script, suite
# or package list makes a new image instead of silently reusing the old one.
RECIPE="$({
  cat "$script_path"
  echo "$SUITE $PACKAGES $(dpkg --print-architecture 2>/dev/null || uname -m)"
} | sha256sum | cut -c1-16)"

current="$(docker image inspect --format '{{ index .Config.Labels "roundtable.recipe" }}' "$IMAGE" 2>/dev/null || true)"
if [ "$current" = "$RECIPE" ]; then
  say "$IMAGE is up to date (recipe $RECIPE)"
  exit 0
fi

cache_dir="${ROUNDTABLE_CACHE_DIR:-/var/cache/roundtable}"
if ! mkdir -p "$cache_dir" 2>/dev/null || [ ! -w "$cache_dir" ]; then
  cache_dir="${XDG_CACHE_HOME:-$HOME/.cache}/roundtable"
  mkdir -p "$cache_dir"
fi

# Two builds at once (jest's beforeAll in parallel test files, CI) would debootstrap twice and
# race on the tag; the second waits and then finds the image built.
exec 9>"$cache_dir/build-sandbox-image.lock"
flock 9
current="$(docker image inspect --format '{{ index .Config.Labels "roundtable.recipe" }}' "$IMAGE" 2>/dev/null || true)"
if [ "$current" = "$RECIPE" ]; then
  say "$IMAGE is up to date (recipe $RECIPE, built by a concurrent run)"
  exit 0
fi

started=$(date +%s)
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || die "building the root filesystem (debootstrap, chroot) needs root or sudo"
  SUDO="sudo"
fi

# The slow part (minutes) is cached on its own key, so editing the customisation below does
# not download and unpack Debian again.
base_key="$(echo "minbase $SUITE $PACKAGES $(dpkg --print-architecture 2>/dev/null || uname -m)" | sha256sum | cut -c1-16)"
base_tarball="$cache_dir/sandbox-base-$base_key.tar"
rootfs="$(mktemp -d "$cache_dir/rootfs.XXXXXX")"
chmod 0755 "$rootfs" # mktemp's 0700 would become the image's /
# shellcheck disable=SC2064 # expand now: the path is fixed
trap "$SUDO rm -rf '$rootfs'" EXIT

if [ -s "$base_tarball" ]; then
  say "using cached Debian root filesystem $base_tarball"
  $SUDO tar -C "$rootfs" --numeric-owner -xpf "$base_tarball"
else
  command -v debootstrap >/dev/null 2>&1 || die "debootstrap is not installed (apt-get install -y debootstrap)"
  mirror="${DEBIAN_MIRROR:-}"
  if [ -z "$mirror" ]; then
    mirror="$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list 2>/dev/null |
      sed -nE 's#^URIs:[[:space:]]*([^[:space:]]*/debian)/?$#\1#p; s#^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?([^[:space:]]*/debian)/?[[:space:]].*#\2#p' |
      head -n1 || true)"
  fi
  mirror="${mirror:-http://deb.debian.org/debian}"

  say "debootstrap $SUITE from $mirror (packages: $PACKAGES); a few minutes on a cold cache"
  if ! $SUDO debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$rootfs" "$mirror" >"$cache_dir/debootstrap.log" 2>&1; then
    # Its detailed log is inside the root filesystem, which the exit trap removes.
    $SUDO cat "$rootfs/debootstrap/debootstrap.log" >>"$cache_dir/debootstrap.log" 2>/dev/null || true
    die "debootstrap failed; see $cache_dir/debootstrap.log"
  fi
  # Package caches and docs are dead weight in a read-only image.
  $SUDO rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* \
    "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* "$rootfs"/var/log/*
  $SUDO tar -C "$rootfs" --numeric-owner -cf "$base_tarball.partial" .
  $SUDO chown "$(id -u):$(id -g)" "$base_tarball.partial"
  mv "$base_tarball.partial" "$base_tarball"
  find "$cache_dir" -maxdepth 1 -name 'sandbox-base-*.tar' ! -name "sandbox-base-$base_key.tar" -delete
  say "Debian root filesystem cached at $base_tarball ($(du -h "$base_tarball" | cut -f1))"
fi

# The unprivileged identity the runner uses (--user 10001:10001); a passwd entry so tools
# that look the user up (getpass, pip, git) do not fail.
$SUDO chroot "$rootfs" groupadd --gid "$SANDBOX_UID" sandbox
$SUDO chroot "$rootfs" useradd --uid "$SANDBOX_UID" --gid "$SANDBOX_UID" --home-dir /tmp --no-create-home --shell /bin/sh sandbox
$SUDO install -d -o "$SANDBOX_UID" -g "$SANDBOX_UID" -m 0755 "$rootfs/workspace"
# Test commands say `python -m pytest`; Debian only ships python3.
$SUDO ln -sf python3 "$rootfs/usr/bin/python"

$SUDO tar -C "$rootfs" --numeric-owner -c . | docker import \
  --change "USER $SANDBOX_UID:$SANDBOX_UID" \
  --change 'WORKDIR /workspace' \
  --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 HOME=/tmp PYTHONDONTWRITEBYTECODE=1' \
  --change "LABEL roundtable.recipe=$RECIPE" \
  --change 'CMD ["/bin/sh"]' \
  - "$IMAGE" >/dev/null
docker tag "$IMAGE" "${IMAGE%:*}:$RECIPE"
$SUDO rm -rf "$rootfs"
trap - EXIT
# Images of earlier recipes; one still used by a container stays (rmi without -f).
docker image ls --format '{{.Repository}}:{{.Tag}}' "${IMAGE%:*}" | grep -E ":[0-9a-f]{16}$" | grep -v ":$RECIPE$" |
  xargs -r docker rmi >/dev/null 2>&1 || true

say "built $IMAGE (also ${IMAGE%:*}:$RECIPE) in $(($(date +%s) - started)) s"
