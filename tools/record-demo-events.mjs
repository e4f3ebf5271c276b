// Re-records libs/run-view/fixtures/*.events.json (what: tools/record-demo-events.ts). Builds
// the services (tools/build.mjs) and that script (the way bench/build.mjs bundles a bench:
// each module keeps its source directory as __dirname, so libs/testing finds dist/apps/*),
// then runs it. Needs Postgres and Redis (TEST_DATABASE_URL, TEST_REDIS_URL, or the local
// defaults) and `python -m pytest`; no Docker engine.
//
// Usage: node tools/record-demo-events.mjs
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { build } from 'esbuild';
import { bundleOptions, root } from './bundle-options.mjs';

const outfile = 'dist/tools/record-demo-events.js';
execFileSync(process.execPath, [path.join(root, 'tools/build.mjs'), 'api', 'orchestrator', 'provider-worker', 'test-runner'], { stdio: 'inherit' });
await build(bundleOptions('tools/record-demo-events.ts', outfile, { keepSourceDirname: true }));
// The services run under the test suite's operator policy (cassettes from this checkout and /tmp, process sandbox allowed).
const env = { ...process.env, ROUNDTABLE_POLICY: process.env.ROUNDTABLE_POLICY ?? path.join(root, 'test/fixtures/policy/test-policy.yaml') };
try {
  execFileSync(process.execPath, ['--enable-source-maps', path.join(root, outfile)], { stdio: 'inherit', env });
} catch {
  process.exit(1);
}
