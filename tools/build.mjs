// Bundles each service to dist/apps/<name>/main.js and the migration CLI to
// dist/tools/migrate.js (how: tools/bundle-options.mjs), and the browser workbench to
// dist/apps/web (how: tools/build-web.mjs).
//
// Usage: node tools/build.mjs [target ...]   (no argument: every target)
import { build } from 'esbuild';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleOptions, root } from './bundle-options.mjs';
import { buildWeb } from './build-web.mjs';

/** Every buildable target: name → entry (source) and outfile (under dist/). */
const TARGETS = {
  api: { entry: 'apps/api/src/main.ts', outfile: 'dist/apps/api/main.js' },
  orchestrator: { entry: 'apps/orchestrator/src/main.ts', outfile: 'dist/apps/orchestrator/main.js' },
  'provider-worker': { entry: 'apps/provider-worker/src/main.ts', outfile: 'dist/apps/provider-worker/main.js' },
  'test-runner': { entry: 'apps/test-runner/src/main.ts', outfile: 'dist/apps/test-runner/main.js' },
  cli: { entry: 'apps/cli/src/main.ts', outfile: 'dist/apps/cli/main.js' },
  migrate: { entry: 'libs/persistence/src/migrate.main.ts', outfile: 'dist/tools/migrate.js' },
  // A browser bundle, not a Node service: build-web.mjs writes index.html and hashed assets.
  web: { entry: 'apps/web/src/main.tsx', outfile: 'dist/apps/web/index.html', browser: true },
};

const requested = process.argv.slice(2);
const unknown = requested.filter((t) => !(t in TARGETS));
if (unknown.length) {
  console.error(`unknown build target(s): ${unknown.join(', ')} (known: ${Object.keys(TARGETS).join(', ')})`);
  process.exit(1);
}
const names = requested.length ? requested : Object.keys(TARGETS);

let failed = false;
for (const name of names) {
  const { entry, outfile, browser } = TARGETS[name];
  if (!existsSync(path.join(root, entry))) {
    // Asked for by name, a missing entry is an error; in a full build it is a service not written yet.
    if (requested.length) {
      console.error(`build ${name}: ${entry} does not exist`);
      failed = true;
    } else {
      console.log(`skipped ${name}: ${entry} does not exist yet`);
    }
    continue;
  }
  try {
    if (browser) {
      for (const f of await buildWeb()) console.log(`built ${f}`);
      continue;
    }
    const out = path.join(root, outfile);
    const result = await build({ ...bundleOptions(entry, outfile), write: false });
    // Write then rename: a service starting while another build runs must never load a
    // half-written bundle (an empty main.js exits 0 without a word). The bundle last, after
    // its source map (main.js.map).
    mkdirSync(path.dirname(out), { recursive: true });
    const files = [...result.outputFiles].sort((a, b) => Number(a.path === out) - Number(b.path === out));
    for (const file of files) {
      const tmp = `${file.path}.${process.pid}.tmp`;
      writeFileSync(tmp, file.contents);
      renameSync(tmp, file.path);
    }
    console.log(`built ${outfile}`);
  } catch (err) {
    // esbuild has already printed the located errors; name the target so the log says which one.
    console.error(`build ${name} failed${err?.errors?.length ? '' : `: ${err?.message ?? err}`}`);
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
