#!/usr/bin/env bash
# Makes sure a Chromium is there for the browser tests (the workbench e2e and libs/testing's
# browser int-spec drive it through playwright-core, which brings no browser of its own).
# Idempotent: quiet and quick when the browser is there.
#
#   bash scripts/ensure-browser.sh       (.ci/run and scripts/test.sh call it; so can a developer)
#
# The browser is $CHROMIUM_PATH, default /usr/bin/chromium (Debian's package `chromium`).
# Missing, it is installed from the distribution when we are root with apt-get; otherwise this
# fails naming the package and CHROMIUM_PATH. It never lets the browser tests be skipped: a
# machine without a browser is an error here, not a quieter test run.
set -euo pipefail
browser="${CHROMIUM_PATH:-/usr/bin/chromium}"

say() { echo "ensure-browser: $*" >&2; }
die() {
  say "$*"
  exit 1
}

if [ -x "$browser" ]; then exit 0; fi

if [ -n "${CHROMIUM_PATH:-}" ]; then
  # A path the operator chose is theirs to fix; installing Debian's package would not put a browser there.
  die "CHROMIUM_PATH=$CHROMIUM_PATH is not an executable file; point CHROMIUM_PATH at a Chromium, or unset it to use /usr/bin/chromium (apt package chromium)"
fi

if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  die "no Chromium at $browser: install the package chromium (apt-get install chromium, as root), or set CHROMIUM_PATH to a Chromium or Chrome executable"
fi

say "installing chromium (apt)"
export DEBIAN_FRONTEND=noninteractive
apt-get install -y --no-install-recommends chromium >&2 || { apt-get update >&2 && apt-get install -y --no-install-recommends chromium >&2; }
[ -x "$browser" ] || die "apt installed chromium but $browser is still missing; set CHROMIUM_PATH to where it put the browser"
say "$("$browser" --version 2>/dev/null || echo chromium) is installed"
