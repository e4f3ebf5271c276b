// Prints each target's mutation score from its JSON report (reports/mutation/<target>/mutation.json):
// killed / (killed + survived + timeout), and the mutants no test covers, by file.
import { existsSync, readFileSync } from 'node:fs';

for (const target of process.argv.slice(2)) {
  const file = `reports/mutation/${target}/mutation.json`;
  if (!existsSync(file)) {
    console.log(`${target}: no report (${file})`);
    continue;
  }
  const report = JSON.parse(readFileSync(file, 'utf8'));
  const count = { Killed: 0, Survived: 0, Timeout: 0, NoCoverage: 0, Ignored: 0, CompileError: 0, RuntimeError: 0 };
  const uncovered = {};
  for (const [path, f] of Object.entries(report.files)) {
    for (const m of f.mutants) {
      count[m.status] = (count[m.status] ?? 0) + 1;
      if (m.status === 'NoCoverage') uncovered[path] = (uncovered[path] ?? 0) + 1;
    }
  }
  const detected = count.Killed + count.Timeout;
  const score = (100 * detected) / (detected + count.Survived + count.NoCoverage || 1);
  const covered = (100 * detected) / (detected + count.Survived || 1);
  const where = Object.entries(uncovered).map(([p, n]) => `${p} ${n}`).join(', ') || 'none';
  console.log(
    `${target}: ${score.toFixed(1)} % (${detected} killed of ${detected + count.Survived + count.NoCoverage}; ${covered.toFixed(1)} % of covered; ` +
      `${count.Survived} survived, ${count.NoCoverage} no coverage: ${where})`,
  );
}
