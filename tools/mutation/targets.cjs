// The mutation targets of `npm run mutate` (issue 29): what Stryker mutates, and the unit specs
// that must kill the mutants: each library's own, never the whole suite (a mutant killed only by
// an e2e run is a behaviour no unit spec pins).
const notTests = ['!**/*.spec.ts', '!**/*.int-spec.ts', '!**/*.fixture.ts', '!**/index.ts'];

module.exports = {
  policy: {
    mutate: ['libs/contracts/src/policy/**/*.ts', ...notTests],
    tests: ['<rootDir>/libs/contracts/src/policy/**/*.spec.ts'],
  },
  budget: {
    mutate: ['libs/workflow/src/budget.ts', 'libs/workflow/src/evidence-block.ts'],
    tests: ['<rootDir>/libs/workflow/src/budget.spec.ts', '<rootDir>/libs/workflow/src/evidence-block.spec.ts'],
  },
  // The engine is exercised through the workflows on it: every libs/workflow spec counts.
  engine: {
    mutate: ['libs/workflow/src/engine/**/*.ts', ...notTests],
    tests: ['<rootDir>/libs/workflow/src/**/*.spec.ts'],
  },
  'run-view': {
    mutate: ['libs/run-view/src/**/*.ts', ...notTests],
    tests: ['<rootDir>/libs/run-view/src/**/*.spec.ts'],
  },
};
