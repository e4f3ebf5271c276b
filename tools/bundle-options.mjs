// What tools/build.mjs (the services) and bench/build.mjs (the benches) bundle with: every .ts
// file through swc first (esbuild alone cannot emit the decorator metadata that Nest's
// dependency injection and TypeORM read), @roundtable/<lib> resolved to libs/<lib>/src, our
// code inlined and node_modules left external.
import { transformFile } from '@swc/core';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const swcrc = JSON.parse(readFileSync(path.join(root, '.swcrc'), 'utf8'));
delete swcrc.$schema;
swcrc.module = { type: 'es6' };
swcrc.sourceMaps = 'inline';

/**
 * esbuild options for one entry. `keepSourceDirname`: each module keeps its source directory
 * as __dirname (code that finds the repository from its own location still works bundled).
 */
export function bundleOptions(entry, outfile, { keepSourceDirname = false } = {}) {
  const swcPlugin = {
    name: 'swc-decorators',
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, async (args) => {
        const out = await transformFile(args.path, { ...swcrc, swcrc: false, filename: args.path });
        const dir = path.dirname(args.path);
        const contents = keepSourceDirname ? out.code.replace(/\b__dirname\b/g, JSON.stringify(dir)) : out.code;
        return { contents, loader: 'js', resolveDir: dir };
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
  return {
    entryPoints: [path.join(root, entry)],
    outfile: path.join(root, outfile),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    sourcemap: 'inline',
    packages: 'external',
    plugins: [aliasPlugin, swcPlugin],
    logLevel: 'warning',
  };
}
