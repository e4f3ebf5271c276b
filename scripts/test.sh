#!/usr/bin/env bash
# `npm test`: the whole suite (unit, integration, e2e). Makes sure deps, Postgres, Redis and
# pytest are there (scripts/ensure-infra.sh), builds the services (the e2e tier starts
# dist/apps/* as separate processes), then runs jest over every project. Extra arguments go
# to jest:  npm test -- --selectProjects unit   |   npm test -- libs/workflow
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# shellcheck source=scripts/ensure-infra.sh
source scripts/ensure-infra.sh
# The sandbox tests and the e2e runs use the Docker engine and the sandbox image (built from
# Debian packages, no registry); quick when both are already there.
bash scripts/ensure-docker.sh
# The workbench e2e drives a real Chromium (playwright-core brings none); missing, this installs or fails.
bash scripts/ensure-browser.sh

npm run -s build

# The operator policy the suite runs under (test/setup-policy.js sets the same for a bare `npx jest`).
export ROUNDTABLE_POLICY="${ROUNDTABLE_POLICY:-$PWD/test/fixtures/policy/test-policy.yaml}"

# Jest's own summary is not a line CI tools read, so the totals are also printed plainly.
results="$(mktemp -t jest-results.XXXXXX.json)"
trap 'rm -f "$results"' EXIT
status=0
npx jest --ci --json --outputFile="$results" "$@" || status=$?
node -e '
  const r = require(process.argv[1]);
  console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed`);
' "$results" 2>/dev/null || true
exit "$status"
