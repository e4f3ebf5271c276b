// ESLint 9 flat config: typescript-eslint's recommended rules without type information
// (fast enough to run on every save), over the TypeScript sources and the plain JS tooling.
import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import { createProjectGraphAsync } from '@nx/devkit';
import tseslint from 'typescript-eslint';

// @nx/enforce-module-boundaries reads the project graph nx caches in .nx/workspace-data, and with
// none it skips itself with only a warning (lint passes, nothing checked); a stale one does not
// know a project or file added since. So every lint builds the graph first (about a second, the
// daemon being off in nx.json), from the project.json files and tsconfig.base.json's paths.
await createProjectGraphAsync();

/**
 * The library boundaries (README.md, "Library boundaries"): each lib's scope tag and the scope
 * tags it may import. Kept equal to the table there; a change to one is a change to both, with
 * its reason written there.
 */
const MAY_IMPORT = {
  contracts: [],
  workflow: ['contracts'],
  persistence: ['contracts'],
  queues: ['contracts'],
  // The service shell: any lib but workflow (how a run goes is no part of starting a service) and testing.
  service: ['contracts', 'persistence', 'queues', 'providers', 'sandbox', 'events', 'run-view', 'observability'],
  providers: ['contracts'],
  sandbox: ['contracts'],
  events: ['contracts', 'persistence'],
  'run-view': ['contracts'],
  observability: ['contracts'],
  testing: ['*'],
};

/**
 * The rule's options for the table; `withTesting` adds the test kit to every lib's row, for test
 * files. Apps may import any lib; a lib never imports an app (the rule refuses imports of
 * applications whatever the constraints say), and an import across projects by relative path is
 * refused too, so every import of another project goes through its @roundtable/<lib> index.
 */
function moduleBoundaries({ withTesting }) {
  const lib = Object.entries(MAY_IMPORT).map(([scope, may]) => {
    const tags = may.includes('*') ? ['*'] : [...may, ...(withTesting && scope !== 'testing' ? ['testing'] : [])].map((s) => `scope:${s}`);
    const constraint = { sourceTag: `scope:${scope}`, onlyDependOnLibsWithTags: tags };
    // contracts' npm dependencies too: zod (the schemas) and yaml (the project file and policy
    // loaders, README.md); Node's built-ins are no package and are not checked.
    return scope === 'contracts' ? { ...constraint, allowedExternalImports: ['zod', 'yaml'] } : constraint;
  });
  return ['error', { allow: [], depConstraints: [{ sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib'] }, ...lib] }];
}

/** Test code: specs of every tier and the fixtures only they import. */
const TEST_FILES = ['**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts', '**/*.fixture.ts'];

/** The Node globals our JS tooling uses (no `globals` package: it is not a direct dependency). */
const node = Object.fromEntries(
  [
    'process', 'console', 'Buffer', 'URL', 'URLSearchParams', 'fetch', 'AbortController', 'AbortSignal',
    'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate', 'structuredClone',
  ].map((name) => [name, 'readonly']),
);
const commonjs = { require: 'readonly', module: 'writable', exports: 'writable', __dirname: 'readonly', __filename: 'readonly' };

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'runs/**', 'coverage/**', '.nx/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      'no-unused-vars': 'off',
      // ignoreRestSiblings: `const { statusCode: _drop, ...rest } = r` is how a key is left out.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // The only control characters we write in regexes are ANSI escapes, stripped from test output.
      'no-control-regex': 'off',
    },
  },
  {
    files: ['**/*.ts', '**/*.tsx'],
    plugins: { '@nx': nx },
    rules: { '@nx/enforce-module-boundaries': moduleBoundaries({ withTesting: false }) },
  },
  {
    // A lib's tests may also use the test kit (@roundtable/testing), and only that beyond their
    // lib's row: libs/testing imports the libs it stands up, so it cannot be a dependency of the
    // code it tests, and moving each spec out of its lib would part it from what it holds.
    files: TEST_FILES,
    rules: { '@nx/enforce-module-boundaries': moduleBoundaries({ withTesting: true }) },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: { sourceType: 'module', globals: node },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { ...node, ...commonjs } },
    // CommonJS config files (jest.config.js) load their dependencies with require().
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
