// Bundles each service to dist/apps/<name>/main.js (our code inlined, node_modules left
// external). esbuild alone cannot emit the decorator metadata that Nest's dependency
// injection reads, so every .ts file goes through swc first, then esbuild bundles.
import { build } from 'esbuild';
import { transformFile } from '@swc/core';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const swcrc = JSON.parse(readFileSync(path.join(root, '.swcrc'), 'utf8'));
delete swcrc.$schema;
swcrc.module = { type: 'es6' };
swcrc.sourceMaps = 'inline';

const apps = process.argv.slice(2).length
  ? process.argv.slice(2)
  : ['api', 'orchestrator', 'provider-worker', 'test-runner', 'cli'];

const swcPlugin = {
  name: 'swc-decorators',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      const out = await transformFile(args.path, { ...swcrc, swcrc: false, filename: args.path });
      return { contents: out.code, loader: 'js', resolveDir: path.dirname(args.path) };
    });
  },
};

const aliasPlugin = {
  name: 'roundtable-alias',
  setup(b) {
    b.onResolve({ filter: /^@roundtable\/[a-z-]+$/ }, (args) => ({
      path: path.join(root, 'libs', args.path.split('/')[1], 'src', 'index.ts'),
    }));
  },
};

for (const app of apps) {
  const entry = path.join(root, 'apps', app, 'src', 'main.ts');
  try {
    readFileSync(entry);
  } catch {
    continue; // an app that does not exist yet is not an error for the others
  }
  await build({
    entryPoints: [entry],
    outfile: path.join(root, 'dist', 'apps', app, 'main.js'),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    sourcemap: 'inline',
    packages: 'external',
    plugins: [aliasPlugin, swcPlugin],
    logLevel: 'warning',
  });
  console.log(`built dist/apps/${app}/main.js`);
}
