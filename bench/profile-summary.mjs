// Where a service's CPU went, from a .cpuprofile written by cpu-profile-preload.js: self time by
// package (node_modules/<pkg>, node's internals, the service's own bundle, GC) and the top
// functions, each as ms and % of the profile's busy time ((idle) left out).
//
// Usage: node bench/profile-summary.mjs <file.cpuprofile> [calls]   (calls: divide ms by this, e.g. agent calls)
import { readFileSync } from 'node:fs';

const [file, callsArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: node bench/profile-summary.mjs <file.cpuprofile> [calls]');
  process.exit(2);
}
const calls = Number(callsArg) || 1;
const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map();
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i];
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
}

// esbuild marks where each source file starts in a bundle with a `// libs/…/x.ts` line: map a
// bundle line to its source file, so the bundle's self time can be told apart by file.
const bundleFiles = new Map();
const sourceFileOf = (url, line) => {
  if (!bundleFiles.has(url)) {
    const starts = [];
    try {
      readFileSync(new URL(url), 'utf8')
        .split('\n')
        .forEach((text, i) => {
          const m = /^\/\/ ((?:libs|apps)\/\S+\.ts)$/.exec(text);
          if (m) starts.push([i, m[1]]);
        });
    } catch {
      // not a file URL we can read: no per-file split
    }
    bundleFiles.set(url, starts);
  }
  let file = '(bundle)';
  for (const [start, name] of bundleFiles.get(url)) {
    if (start > line) break;
    file = name;
  }
  return file;
};

const packageOf = (url, name) => {
  if (!url) return name.startsWith('(') ? name : '(native/v8)';
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1];
  if (url.startsWith('node:')) return 'node internals';
  if (/dist\/apps\//.test(url)) return 'roundtable (the service bundle)';
  return url;
};

const byPackage = new Map();
const bySourceFile = new Map();
const byFunction = new Map();
let busy = 0;
for (const [id, us] of selfUs) {
  const { callFrame } = byId.get(id);
  if (callFrame.functionName === '(idle)') continue;
  busy += us;
  const pkg = packageOf(callFrame.url, callFrame.functionName);
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + us);
  if (pkg.startsWith('roundtable')) {
    const src = sourceFileOf(callFrame.url, callFrame.lineNumber);
    bySourceFile.set(src, (bySourceFile.get(src) ?? 0) + us);
  }
  const fn = `${callFrame.functionName || '(anonymous)'} ${pkg}${callFrame.url && !callFrame.url.includes('node_modules') ? `:${callFrame.lineNumber + 1}` : ''}`;
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
}
const show = (map, n) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, us]) => `  ${((us / 1000) / calls).toFixed(3).padStart(9)} ms  ${((us / busy) * 100).toFixed(1).padStart(5)} %  ${k}`)
    .join('\n');
console.log(`${file}: busy ${(busy / 1000).toFixed(0)} ms${calls > 1 ? ` (${(busy / 1000 / calls).toFixed(2)} ms per call over ${calls})` : ''}`);
console.log(`by package (self time${calls > 1 ? ' per call' : ''}):\n${show(byPackage, 15)}`);
console.log(`the service bundle by source file:\n${show(bySourceFile, 15)}`);
console.log(`top functions:\n${show(byFunction, 25)}`);
