// Every jest tier runs under the test suite's operator policy unless the caller names another.
const path = require('node:path');
process.env.ROUNDTABLE_POLICY ??= path.join(__dirname, 'fixtures/policy/test-policy.yaml');
