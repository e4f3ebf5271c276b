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
/**
 * Outside the registries nothing branches on a workflow's name (issue #28): a comparison or a
 * `case` of something named *workflow* (run.workflow, view.workflow, rec?.workflow, workflow)
 * with 'build' or 'panel' is an error, so a third workflow is one more entry in each registry and
 * not a hunt through the apps. Only such comparisons are caught: 'build' is also an npm script,
 * a CLI command and a stage's word, and those stay free. Each consumer's block names its registry.
 */
const WORKFLOW_LITERAL = '/^(build|panel|experiment)$/';
const namedWorkflow = (side) =>
  `:matches([${side}.name=/workflow/i], [${side}.property.name=/workflow/i], [${side}.expression.property.name=/workflow/i])`;
const workflowNameRule = (registry) => {
  const message = `Branching on a workflow's name: dispatch through the workflow registry: ${registry} (one entry per workflow; see libs/workflow/README.md, "Adding a workflow").`;
  return [
    'error',
    { selector: `BinaryExpression[operator=/^[!=]==?$/][right.value=${WORKFLOW_LITERAL}]${namedWorkflow('left')}`, message },
    { selector: `BinaryExpression[operator=/^[!=]==?$/][left.value=${WORKFLOW_LITERAL}]${namedWorkflow('right')}`, message },
    { selector: `SwitchStatement${namedWorkflow('discriminant')} > SwitchCase[test.value=${WORKFLOW_LITERAL}]`, message },
  ];
};
/** Each consumer's sources, and its registry: the files that may name workflows (with the tests and fixtures). */
const WORKFLOW_REGISTRIES = [
  { files: ['apps/api/**/*.ts'], registry: 'apps/api/src/workflows/api-workflows.ts', exempt: ['apps/api/src/workflows/**'] },
  { files: ['apps/web/**/*.{ts,tsx}'], registry: 'apps/web/src/workflows/index.tsx', exempt: ['apps/web/src/workflows/**'] },
  { files: ['apps/cli/**/*.ts'], registry: 'apps/cli/src/workflows.ts', exempt: ['apps/cli/src/workflows.ts'] },
  { files: ['apps/orchestrator/**/*.ts'], registry: 'apps/orchestrator/src/workflows/workflow-registry.ts', exempt: ['apps/orchestrator/src/workflows/**'] },
  { files: ['apps/provider-worker/**/*.ts'], registry: 'apps/provider-worker/src/workflows/ (none yet: add one, as apps/api/src/workflows/ does)', exempt: ['apps/provider-worker/src/workflows/**'] },
  { files: ['apps/test-runner/**/*.ts'], registry: 'apps/test-runner/src/workflows/ (none yet: add one, as apps/api/src/workflows/ does)', exempt: ['apps/test-runner/src/workflows/**'] },
  { files: ['libs/run-view/**/*.ts'], registry: 'libs/run-view/src/workflow-views.ts', exempt: ['libs/run-view/src/workflow-views.ts'] },
];
const TESTS_AND_FIXTURES = ['**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts', '**/*.fixture.ts', '**/*-test-harness.ts'];

const commonjs = { require: 'readonly', module: 'writable', exports: 'writable', __dirname: 'readonly', __filename: 'readonly' };

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'runs/**', 'coverage/**', '.nx/**', '.stryker-tmp/**', 'reports/**'] },
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
  ...WORKFLOW_REGISTRIES.map(({ files, registry, exempt }) => ({
    files,
    ignores: [...exempt, ...TESTS_AND_FIXTURES],
    rules: { 'no-restricted-syntax': workflowNameRule(registry) },
  })),
);
