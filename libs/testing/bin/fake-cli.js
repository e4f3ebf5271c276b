// Shared entry of the fake claude/codex/grok/gemini/agy executables: compiles the TypeScript
// fake on the fly with @swc/core (already a dev dependency), so the bins and the in-process
// fake server run the same script engine, and nothing needs building first.
const fs = require('node:fs');
const swc = require('@swc/core');

require.extensions['.ts'] = function compileTs(module, filename) {
  const { code } = swc.transformSync(fs.readFileSync(filename, 'utf8'), {
    filename,
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  });
  module._compile(code, filename);
};

exports.run = function run(cli) {
  const { runFakeCli } = require('../src/fake-llm/fake-cli.ts');
  runFakeCli(cli, process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e) => {
      process.stderr.write(`fake ${cli} crashed: ${e && e.stack ? e.stack : e}\n`);
      process.exit(70);
    },
  );
};
