// Bundles the compose smoke's host-side fake LLM server (test/deploy/fake-llm-host.main.ts) to
// dist/test/fake-llm-host.js, the way bench/build.mjs bundles the benches (each module keeps its
// source directory as __dirname; node_modules stay external: it runs from the checkout).
import { build } from 'esbuild';
import { bundleOptions } from '../../tools/bundle-options.mjs';

try {
  await build(bundleOptions('test/deploy/fake-llm-host.main.ts', 'dist/test/fake-llm-host.js', { keepSourceDirname: true }));
  console.log('built dist/test/fake-llm-host.js');
} catch (err) {
  console.error(`build smoke tools failed${err?.errors?.length ? '' : `: ${err?.message ?? err}`}`);
  process.exit(1);
}
