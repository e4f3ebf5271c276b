// Stryker for one target (MUTATE_TARGET, see targets.cjs): `npm run mutate [-- <target>]`.
// Incremental: a run reuses the last one's results for code and specs that did not change.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const targets = require('./targets.cjs');
const name = process.env.MUTATE_TARGET;
const target = targets[name];
if (!target) throw new Error(`MUTATE_TARGET must be one of ${Object.keys(targets).join(', ')} (got "${name}")`);
const out = `reports/mutation/${name}`;

export default {
  testRunner: 'jest',
  jest: { projectType: 'custom', configFile: 'tools/mutation/jest.config.cjs', enableFindRelatedTests: false },
  mutate: target.mutate,
  coverageAnalysis: 'perTest',
  incremental: true,
  incrementalFile: `${out}/stryker-incremental.json`,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: `${out}/index.html` },
  jsonReporter: { fileName: `${out}/mutation.json` },
  clearTextReporter: { allowColor: false, logTests: false, reportMutants: true, reportScoreTable: true },
  thresholds: { high: 90, low: 80, break: null },
  concurrency: Number(process.env.MUTATE_CONCURRENCY ?? 2),
  timeoutMS: 20_000,
  tempDirName: '.stryker-tmp',
  // What the sandbox copy leaves out: build output, reports and the browser's artefacts.
  ignorePatterns: ['dist', 'reports', 'runs', 'coverage', 'test-results', '.nx', '.stryker-tmp', 'node_modules'],
};
