#!/usr/bin/env bash
# `npm run probe:sandbox`: tries to get out of the real Docker sandbox (bench/sandbox-probe.ts)
# and prints `held` or `escaped` per probe, with a figure; exits non-zero if anything escaped.
# Network probes judge by interfaces and routes and connect only to 127.0.0.1 inside the
# container: no packet goes to any other address. Needs a Docker engine; builds the sandbox
# image first if it is missing (cached: seconds when it exists).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/build-sandbox-image.sh

# The runner starts from a process holding host secrets, as the test-runner does; a random marker
# in each says whether any of them reaches the container. Never real values: these are made here.
marker="rt-probe-secret-$(od -An -tx1 -N12 /dev/urandom | tr -d ' \n')"
export PROBE_SECRET_MARKER="$marker"
export DATABASE_URL="postgres://probe:${marker}@127.0.0.1:1/probe"
export REDIS_URL="redis://:${marker}@127.0.0.1:1"
export ANTHROPIC_API_KEY="sk-ant-${marker}" OPENAI_API_KEY="sk-${marker}" XAI_API_KEY="xai-${marker}"
export GEMINI_API_KEY="gm-${marker}" GOOGLE_API_KEY="gg-${marker}"

# The sandbox lib has no decorators, so plain esbuild (which applies the tsconfig paths) will do.
npx esbuild bench/sandbox-probe.ts --bundle --platform=node --target=node20 --format=cjs \
  --packages=external --sourcemap=inline --log-level=warning --tsconfig=bench/tsconfig.json \
  --outfile=dist/bench/sandbox-probe.js
exec node --enable-source-maps dist/bench/sandbox-probe.js
