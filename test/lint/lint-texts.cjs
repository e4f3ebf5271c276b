// Lints texts as if each were the file at its path, with the repository's eslint.config.mjs, and
// prints each one's messages: stdin [{ text, filePath }], stdout [[{ ruleId, message }]].
// A process of its own because ESLint loads its config with import(), which jest's CommonJS
// module sandbox refuses (it needs --experimental-vm-modules).
const path = require('path');
const { ESLint } = require('eslint');

async function main() {
  const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));
  const repoRoot = path.resolve(__dirname, '../..');
  const eslint = new ESLint({ cwd: repoRoot });
  const out = [];
  for (const { text, filePath } of cases) {
    const [result] = await eslint.lintText(text, { filePath: path.join(repoRoot, filePath) });
    out.push(result.messages.map((m) => ({ ruleId: m.ruleId, message: m.message })));
  }
  process.stdout.write(JSON.stringify(out));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
