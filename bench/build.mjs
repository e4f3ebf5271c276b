// Bundles bench/<name>.bench.ts to dist/bench/<name>.js the way tools/build.mjs bundles the
// services (swc for decorator metadata, then esbuild; node_modules stay external). One
// difference: each module keeps its source directory as __dirname, so code that finds the
// repository from its own location (libs/testing locating dist/apps/*) works bundled, and the
// SSE bench's bundle can start itself as its worker thread (new Worker(__filename)).
//
// Usage: node bench/build.mjs [overhead|sse]   (default: overhead)
import { build } from 'esbuild';
import { transformFile } from '@swc/core';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const swcrc = JSON.parse(readFileSync(path.join(root, '.swcrc'), 'utf8'));
delete swcrc.$schema;
swcrc.module = { type: 'es6' };
swcrc.sourceMaps = 'inline';

const swcPlugin = {
  name: 'swc-decorators-source-dirname',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      const out = await transformFile(args.path, { ...swcrc, swcrc: false, filename: args.path });
      const dir = path.dirname(args.path);
      return { contents: out.code.replace(/\b__dirname\b/g, JSON.stringify(dir)), loader: 'js', resolveDir: dir };
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

const name = process.argv[2] ?? 'overhead';
try {
  await build({
    entryPoints: [path.join(root, `bench/${name}.bench.ts`)],
    outfile: path.join(root, `dist/bench/${name}.js`),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    sourcemap: 'inline',
    packages: 'external',
    plugins: [aliasPlugin, swcPlugin],
    logLevel: 'warning',
  });
  console.log(`built dist/bench/${name}.js`);
} catch (err) {
  console.error(`build bench failed${err?.errors?.length ? '' : `: ${err?.message ?? err}`}`);
  process.exit(1);
}
