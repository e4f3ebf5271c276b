// Bundles the workbench (apps/web) for the browser: dist/apps/web/index.html, which references
// assets/app-[hash].js and assets/app-[hash].css (content hashes, so a deploy never serves a
// stale bundle from a cache). The api serves that directory at / (apps/api web-root.ts).
//
// esbuild, not Vite: esbuild is already the repository's bundler (tools/build.mjs), a single-page
// app of plain React needs no dev server or plugin graph, and one bundler means one alias rule for
// @roundtable/<lib>. Type-only imports from @roundtable/contracts vanish; the bundle must not pull
// zod or a node: built-in, and the build fails if it does (checked below).
//
// Usage: node tools/build-web.mjs   (tools/build.mjs web calls buildWeb())
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT_DIR = 'dist/apps/web';
/**
 * The tab's icon, copied as it is. Under assets/ because the api serves nothing else beside the
 * pages (apps/api workbench.handler.ts); a fixed name, revalidated, so the link never goes stale.
 * Linked from index.html, so the browser never asks for /favicon.ico (a 404 in every console).
 */
const FAVICON_SRC = 'apps/web/src/favicon.svg';
const FAVICON = 'assets/favicon.svg';

/** Module paths that mean the bundle dragged in server code (zod, the contracts' schemas, node built-ins). */
const FORBIDDEN_INPUTS = [/node_modules\/zod\//, /^node:/, /libs\/contracts\/src\/(?!index\.ts$)/];

const aliasPlugin = {
  name: 'roundtable-alias',
  setup(b) {
    b.onResolve({ filter: /^@roundtable\/[a-z-]+$/ }, (args) => ({
      path: path.join(root, 'libs', args.path.split('/')[1], 'src', 'index.ts'),
    }));
  },
};

const escapeAttr = (s) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;');

function indexHtml(js, css) {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Roundtable workbench</title>
<link rel="icon" href="/${FAVICON}" type="image/svg+xml">
<link rel="stylesheet" href="/${escapeAttr(css)}">
<script type="module" src="/${escapeAttr(js)}"></script>
</head>
<body>
<div id="root"></div>
<noscript>The Roundtable workbench needs JavaScript.</noscript>
</body>
</html>
`;
}

/** Builds the workbench into dist/apps/web; returns the files written (relative to the repo). */
export async function buildWeb() {
  const outDir = path.join(root, OUT_DIR);
  const result = await build({
    entryPoints: { app: path.join(root, 'apps/web/src/main.tsx') },
    outdir: path.join(outDir, 'assets'),
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: ['es2022'],
    jsx: 'automatic',
    minify: true,
    sourcemap: false,
    metafile: true,
    write: false,
    // React reads process.env.NODE_ENV to choose its production build.
    define: { 'process.env.NODE_ENV': '"production"' },
    plugins: [aliasPlugin],
    logLevel: 'warning',
  });
  const forbidden = Object.keys(result.metafile.inputs).filter((input) => FORBIDDEN_INPUTS.some((re) => re.test(input)));
  if (forbidden.length) {
    throw new Error(`the workbench bundle must not include server code, but it pulls: ${forbidden.join(', ')} (import types only: import type { … } from '@roundtable/contracts')`);
  }
  const rel = (f) => path.relative(outDir, f.path).split(path.sep).join('/');
  const js = result.outputFiles.find((f) => f.path.endsWith('.js'));
  const css = result.outputFiles.find((f) => f.path.endsWith('.css'));
  if (!js || !css) throw new Error('the workbench build wrote no .js or no .css (apps/web/src/main.tsx must import its styles.css)');
  // Write beside, then swap: an api serving the directory never sees a half-written tree.
  const tmp = `${outDir}.${process.pid}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(path.join(tmp, 'assets'), { recursive: true });
  for (const f of result.outputFiles) writeFileSync(path.join(tmp, rel(f)), f.contents);
  copyFileSync(path.join(root, FAVICON_SRC), path.join(tmp, FAVICON));
  writeFileSync(path.join(tmp, 'index.html'), indexHtml(rel(js), rel(css)));
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(path.dirname(outDir), { recursive: true });
  renameSync(tmp, outDir);
  return ['index.html', rel(js), rel(css), FAVICON].map((f) => `${OUT_DIR}/${f}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    for (const f of await buildWeb()) console.log(`built ${f}`);
  } catch (err) {
    console.error(`build web failed${err?.errors?.length ? '' : `: ${err?.message ?? err}`}`);
    process.exit(1);
  }
}
