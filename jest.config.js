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
};

module.exports = {
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs}/**/*.spec.ts'] },
    { ...shared, displayName: 'integration', testMatch: ['<rootDir>/{apps,libs}/**/*.int-spec.ts'] },
    { ...shared, displayName: 'e2e', testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'] },
  ],
};
