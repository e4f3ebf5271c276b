#!/usr/bin/env bash
# `npm run bench:sandbox`: the Docker sandbox's overhead per test run against a bare
# subprocess (bench/sandbox.bench.ts). Needs a Docker engine and `python -m pytest` on the
# host; builds the sandbox image first if it is missing (cached: seconds when it exists).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/build-sandbox-image.sh
# The sandbox lib has no decorators, so plain esbuild (which applies the tsconfig paths) will do.
npx esbuild bench/sandbox.bench.ts --bundle --platform=node --target=node20 --format=cjs \
  --packages=external --sourcemap=inline --log-level=warning --tsconfig=bench/tsconfig.json \
  --outfile=dist/bench/sandbox.js
exec node --enable-source-maps dist/bench/sandbox.js
