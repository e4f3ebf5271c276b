// What tools/build.mjs (the services) and bench/build.mjs (the benches) bundle with: every .ts
// file through swc first (esbuild alone cannot emit the decorator metadata that Nest's
// dependency injection and TypeORM read), @roundtable/<lib> resolved to libs/<lib>/src, our
// code inlined and node_modules left external, but for the ESM-only packages (INLINED_PACKAGES).
import { transformFile } from '@swc/core';
import { readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const swcrc = JSON.parse(readFileSync(path.join(root, '.swcrc'), 'utf8'));
delete swcrc.$schema;
swcrc.module = { type: 'es6' };
swcrc.sourceMaps = 'inline';

/**
 * Packages bundled into each service rather than required at run time, with everything they
 * import: they are ESM only, and a CommonJS bundle can require() an ES module only on Node
 * 20.19 and later (package.json promises >=20). esbuild turns them into CommonJS here as swc
 * does for jest (jest.config.js).
 */
const INLINED_PACKAGES = ['execa'];

/**
 * Packages whose modules only define what they export (no global set, nothing registered on
 * import): a bundle that uses none of their exports drops the require() rather than load them.
 * The provider SDKs: libs/providers' index exports every provider beside the pricing table,
 * and a service that only prices (the orchestrator) would otherwise load all four SDKs and
 * what they pull in (google-auth-library, gaxios, …) at start, ~14 MB resident for nothing.
 * The provider-worker, which calls them, still requires each.
 */
const SIDE_EFFECT_FREE_PACKAGES = ['@anthropic-ai/sdk', '@google/genai', 'ollama', 'openai'];

const insideNodeModules = (file) => file.split(path.sep).includes('node_modules');

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
  // What `packages: 'external'` did, less INLINED_PACKAGES: a bare import from our code stays a
  // require(); one from a file already inside node_modules is one of theirs, and is inlined too.
  const externalPackagesPlugin = {
    name: 'external-packages',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        const name = args.path.startsWith('@') ? args.path.split('/').slice(0, 2).join('/') : args.path.split('/')[0];
        // Node's own modules are left to esbuild, which knows they have no side effects.
        if (isBuiltin(args.path) || INLINED_PACKAGES.includes(name) || insideNodeModules(args.importer)) return undefined;
        return { path: args.path, external: true, ...(SIDE_EFFECT_FREE_PACKAGES.includes(name) ? { sideEffects: false } : {}) };
      });
    },
  };
  return {
    entryPoints: [path.join(root, entry)],
    outfile: path.join(root, outfile),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    // Beside the bundle (main.js.map, named by its last line), not inside it: a service loads its
    // main.js as one string and holds it for good, and an inline map is two thirds of it (a
    // 2.9 MB string held as 5.8 MB, since a few comments are not Latin-1, plus the map's data
    // URL on its own). `node --enable-source-maps` reads the file as it read the inline map.
    sourcemap: 'linked',
    plugins: [aliasPlugin, externalPackagesPlugin, swcPlugin],
    logLevel: 'warning',
  };
}
