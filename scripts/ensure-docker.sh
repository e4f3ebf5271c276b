#!/usr/bin/env bash
# Makes sure a Docker engine answers and the test sandbox image is on it; what the Docker
# sandbox (the test-runner's default) needs. Idempotent: quiet and quick when all is there.
#
#   bash scripts/ensure-docker.sh        (.ci/run calls it; so can a developer)
#
# When `docker info` fails: installs docker.io from the distribution if dockerd is missing
# (root, apt), starts the engine (systemd when it runs, else dockerd in the background with
# its log in /var/log/dockerd.log), and waits for it, at most RT_DOCKER_WAIT_S (default 60)
# seconds. Then builds the sandbox image with scripts/build-sandbox-image.sh, which needs no
# registry (debootstrap is installed here when missing).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
wait_s="${RT_DOCKER_WAIT_S:-60}"
log=/var/log/dockerd.log

say() { echo "ensure-docker: $*" >&2; }
die() {
  say "$*"
  exit 1
}
is_root() { [ "$(id -u)" -eq 0 ]; }

apt_install() { # packages...
  is_root || die "cannot install $* without root; install them, or run this as root"
  command -v apt-get >/dev/null 2>&1 || die "no apt-get here; install $* with this system's package manager"
  say "installing $* (apt)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y --no-install-recommends "$@" >&2 || { apt-get update >&2 && apt-get install -y --no-install-recommends "$@" >&2; }
}

dockerd_pid_alive() {
  [ -s /var/run/docker.pid ] && kill -0 "$(cat /var/run/docker.pid)" 2>/dev/null
}

if ! docker info >/dev/null 2>&1; then
  command -v dockerd >/dev/null 2>&1 && command -v docker >/dev/null 2>&1 || apt_install docker.io

  if dockerd_pid_alive; then
    say "dockerd is running but not answering yet; waiting"
  elif [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
    say "starting docker with systemctl"
    systemctl start docker >&2 || die "systemctl start docker failed; see journalctl -u docker"
  else
    is_root || die "the Docker engine is not running, and starting dockerd needs root"
    say "starting dockerd in the background (log: $log)"
    # setsid: the engine outlives this script and whatever process group called it.
    setsid nohup dockerd >>"$log" 2>&1 </dev/null &
  fi

  deadline=$((SECONDS + wait_s))
  until docker info >/dev/null 2>&1; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      [ -f "$log" ] && tail -n 20 "$log" >&2
      die "the Docker engine did not answer within ${wait_s} s (see $log)"
    fi
    sleep 1
  done
  say "Docker engine $(docker version --format '{{.Server.Version}}' 2>/dev/null || echo '?') is up"
fi

# A cold image build runs debootstrap; an up-to-date image or a cached root filesystem does not.
if ! command -v debootstrap >/dev/null 2>&1 && is_root; then apt_install debootstrap; fi
bash "$root/scripts/build-sandbox-image.sh"
