import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { loadEvalSuite, type LoadedCodingSuite } from '@roundtable/contracts';
import { evalReplayCassette } from './eval-fakes';

const REPO = path.resolve(__dirname, '../../..');
const DIR = path.join(REPO, 'examples/eval-offline');
const HEADER = (model: string) =>
  `# The scripted "${model}" model of examples/eval-offline/, as a replay cassette: made from evals/coding's\n` +
  `# solutions by libs/testing's evalReplayCassette. Regenerate after changing the suite:\n` +
  `#   UPDATE_EVAL_CASSETTES=1 npx jest libs/testing/src/eval-offline-cassettes.spec.ts\n`;

/**
 * The offline eval's cassettes are what the suite's solutions make of them: a task added or a
 * solution changed fails here until the cassettes are written again (UPDATE_EVAL_CASSETTES=1).
 */
describe('examples/eval-offline cassettes', () => {
  const suite = loadEvalSuite(path.join(REPO, 'evals/coding')) as LoadedCodingSuite;

  it.each(['strong', 'weak'] as const)('%s.cassette.yaml is the replay cassette of the %s model over evals/coding', (model) => {
    const file = path.join(DIR, `${model}.cassette.yaml`);
    const made = evalReplayCassette(suite, model);
    if (process.env.UPDATE_EVAL_CASSETTES === '1') writeFileSync(file, HEADER(model) + toYaml(made, { lineWidth: 0 }));
    expect(parseYaml(readFileSync(file, 'utf8'))).toEqual(JSON.parse(JSON.stringify(made)));
    // Every task's engineer reply is there, chosen by its objective.
    expect(made.replies.filter((r) => r.role === 'engineer')).toHaveLength(suite.tasks.length);
  });
});
