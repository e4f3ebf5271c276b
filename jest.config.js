// Three tiers, one runner: `npm test` runs them all; `jest --selectProjects unit` runs one.
// swc (not ts-jest) because it is fast and keeps Nest's decorator metadata.
const fs = require('fs');
const swcrc = JSON.parse(fs.readFileSync(__dirname + '/.swcrc', 'utf8'));
delete swcrc.$schema;

// execa 9 and the packages it imports are ESM only, and jest runs our code as CommonJS (its ESM
// mode is still experimental and needs --experimental-vm-modules in every run). So swc turns
// exactly those packages into CommonJS, the way it turns our TypeScript: each is named below,
// and everything in execa's own node_modules is included (the lookbehind), while every other
// package, including CommonJS releases of the same names elsewhere in the tree, loads as is.
const ESM_PACKAGES = [
  'execa',
  '@sindresorhus/merge-streams',
  '@sec-ant/readable-stream',
  'get-stream',
  'human-signals',
  'is-plain-obj',
  'is-stream',
  'parse-ms',
  'pretty-ms',
  'strip-final-newline',
  'unicorn-magic',
  'yoctocolors',
];
const esmToCjs = { jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022' }, module: { type: 'commonjs' }, sourceMaps: 'inline', swcrc: false };

const shared = {
  rootDir: __dirname,
  transform: {
    '^.+\\.ts$': ['@swc/jest', { ...swcrc, swcrc: false }],
    '/node_modules/.+\\.js$': ['@swc/jest', esmToCjs],
  },
  transformIgnorePatterns: [`(?<!/execa)/node_modules/(?!(${ESM_PACKAGES.join('|')})/)`],
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper: {
    '^@roundtable/([a-z-]+)$': '<rootDir>/libs/$1/src/index.ts',
    // Its package.json exports only an "import" condition, which a CommonJS require never matches.
    '^unicorn-magic$': '<rootDir>/node_modules/unicorn-magic/node.js',
  },
  testEnvironment: 'node',
  modulePathIgnorePatterns: ['<rootDir>/dist/'],
  // ROUNDTABLE_POLICY for in-process services and, through the environment, the services e2e tests start.
  setupFiles: ['<rootDir>/test/setup-policy.js'],
};

module.exports = {
  // Integration and e2e tests start processes and containers; on a 2-core CI machine running
  // every tier in parallel, jest's 5 s default is a flake, not a signal. (testTimeout is a
  // global option: jest ignores it inside a project.) e2e files raise it with jest.setTimeout.
  testTimeout: 60_000,
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs}/**/*.spec.ts', '<rootDir>/test/deploy/**/*.spec.ts', '<rootDir>/test/lint/**/*.spec.ts'] },
    { ...shared, displayName: 'integration', testMatch: ['<rootDir>/{apps,libs}/**/*.int-spec.ts'] },
    { ...shared, displayName: 'e2e', testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'] },
  ],
};
