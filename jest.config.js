// Three tiers, one runner: `npm test` runs them all; `jest --selectProjects unit` runs one.
// swc (not ts-jest) because it is fast and keeps Nest's decorator metadata.
const fs = require('fs');
const swcrc = JSON.parse(fs.readFileSync(__dirname + '/.swcrc', 'utf8'));
delete swcrc.$schema;

const shared = {
  rootDir: __dirname,
  transform: { '^.+\\.ts$': ['@swc/jest', { ...swcrc, swcrc: false }] },
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper: { '^@roundtable/([a-z-]+)$': '<rootDir>/libs/$1/src/index.ts' },
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
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs}/**/*.spec.ts', '<rootDir>/test/deploy/**/*.spec.ts'] },
    { ...shared, displayName: 'integration', testMatch: ['<rootDir>/{apps,libs}/**/*.int-spec.ts'] },
    { ...shared, displayName: 'e2e', testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'] },
  ],
};
