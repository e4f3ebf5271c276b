// Lints source text as if it were a file at a given path, with the repository's eslint.config.mjs,
// and prints what each case got. A child process of module-boundaries.spec.ts: ESLint loads its
// flat config with import(), which jest's CommonJS module runtime cannot run.
//
// Usage: node test/lint/lint-text.mjs < cases.json   ([{ filePath, code }], paths from the repo)
// Prints one line, `RESULTS <json>`, after anything nx may print while it builds the graph.
import { ESLint } from 'eslint';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cases = JSON.parse(readFileSync(0, 'utf8'));
const eslint = new ESLint({ cwd: root, overrideConfigFile: path.join(root, 'eslint.config.mjs') });
const results = [];
for (const { filePath, code } of cases) {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, filePath) });
  results.push(result.messages.map((m) => ({ ruleId: m.ruleId, message: m.message })));
}
process.stdout.write(`\nRESULTS ${JSON.stringify(results)}\n`);
