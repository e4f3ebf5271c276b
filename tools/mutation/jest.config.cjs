// The unit project of the repository's jest config, narrowed to one mutation target's specs
// (MUTATE_TARGET, tools/mutation/targets.cjs). Stryker runs it in its sandbox copy of the repo.
const path = require('path');
const root = require(path.join(__dirname, '../../jest.config.js'));
const targets = require('./targets.cjs');

const target = targets[process.env.MUTATE_TARGET];
if (!target) throw new Error(`MUTATE_TARGET must be one of ${Object.keys(targets).join(', ')} (got "${process.env.MUTATE_TARGET}")`);
const unit = root.projects.find((p) => p.displayName === 'unit');
const { displayName: _name, ...config } = unit;

module.exports = { ...config, testMatch: target.tests, testTimeout: 60_000 };
