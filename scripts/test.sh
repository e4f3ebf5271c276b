#!/usr/bin/env bash
# `npm test`: the whole suite (unit, integration, e2e). Makes sure deps, Postgres, Redis and
# pytest are there (scripts/ensure-infra.sh), builds the services (the e2e tier starts
# dist/apps/* as separate processes), then runs jest over every project. Extra arguments go
# to jest:  npm test -- --selectProjects unit   |   npm test -- libs/workflow
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# shellcheck source=scripts/ensure-infra.sh
source scripts/ensure-infra.sh

npm run -s build
exec npx jest --ci "$@"
