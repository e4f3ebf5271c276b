// Bundles bench/<name>.bench.ts to dist/bench/<name>.js the way tools/build.mjs bundles the
// services (swc for decorator metadata, then esbuild; node_modules stay external). One
// difference: each module keeps its source directory as __dirname, so code that finds the
// repository from its own location (libs/testing locating dist/apps/*) works bundled, and the
// SSE bench's bundle can start itself as its worker thread (new Worker(__filename)).
//
// Usage: node bench/build.mjs [overhead|sse]   (default: overhead)
import { build } from 'esbuild';
import { bundleOptions } from '../tools/bundle-options.mjs';

const name = process.argv[2] ?? 'overhead';
try {
  await build(bundleOptions(`bench/${name}.bench.ts`, `dist/bench/${name}.js`, { keepSourceDirname: true }));
  console.log(`built dist/bench/${name}.js`);
} catch (err) {
  console.error(`build bench failed${err?.errors?.length ? '' : `: ${err?.message ?? err}`}`);
  process.exit(1);
}
