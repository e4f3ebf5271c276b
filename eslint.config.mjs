// ESLint 9 flat config: typescript-eslint's recommended rules without type information
// (fast enough to run on every save), over the TypeScript sources and the plain JS tooling.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
