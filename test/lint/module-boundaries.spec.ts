import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');
const RULE = '@nx/enforce-module-boundaries';

type Case = { filePath: string; code: string };
type Message = { ruleId: string | null; message: string };

/** Lints each case's text as if it were that file, in one child process (lint-text.mjs says why). */
function lint(cases: Case[]): Message[][] {
  const run = spawnSync(process.execPath, [join(__dirname, 'lint-text.mjs')], { cwd: ROOT, input: JSON.stringify(cases), encoding: 'utf8' });
  const line = run.stdout.split('\n').find((l) => l.startsWith('RESULTS '));
  if (run.status !== 0 || !line) throw new Error(`lint-text.mjs failed (exit ${run.status}):\n${run.stdout}\n${run.stderr}`);
  return JSON.parse(line.slice('RESULTS '.length));
}

const boundaryErrors = (messages: Message[]) => messages.filter((m) => m.ruleId === RULE).map((m) => m.message);

/**
 * The library boundaries (README.md) hold in lint: a planted import the table forbids is an
 * error of the rule, and the same import the table allows is none. Without the rule (or with no
 * project graph for it to read, when it skips itself) the forbidden cases pass and this fails.
 */
describe('lint enforces the library boundaries', () => {
  const forbidden: Case[] = [
    // workflow may import the contracts only.
    { filePath: 'libs/workflow/src/planted.ts', code: "import { OutboxEntity } from '@roundtable/persistence';\nexport const x = OutboxEntity;\n" },
    // queues may import the contracts only (its tracing and metrics are its own: README.md).
    { filePath: 'libs/queues/src/planted.ts', code: "import { inSpan } from '@roundtable/observability';\nexport const x = inSpan;\n" },
    // events: contracts and persistence, not the queues (the outbox that sends is libs/service's).
    { filePath: 'libs/events/src/planted.ts', code: "import { JobProducer } from '@roundtable/queues';\nexport const x = JobProducer;\n" },
    // The test kit is for test files only.
    { filePath: 'libs/providers/src/planted.ts', code: "import { waitFor } from '@roundtable/testing';\nexport const x = waitFor;\n" },
    // contracts' npm dependencies are zod and yaml.
    { filePath: 'libs/contracts/src/planted.ts', code: "import { Queue } from 'bullmq';\nexport const x = Queue;\n" },
    // No lib imports an app.
    { filePath: 'libs/service/src/planted.ts', code: "import { loadBuildRunState } from '../../../apps/orchestrator/src/sql/build-run-state.sql';\nexport const x = loadBuildRunState;\n" },
  ];
  const allowed: Case[] = [
    { filePath: 'libs/workflow/src/planted.ts', code: "import { QUEUE } from '@roundtable/contracts';\nexport const x = QUEUE;\n" },
    { filePath: 'libs/events/src/planted.ts', code: "import { OutboxEntity } from '@roundtable/persistence';\nexport const x = OutboxEntity;\n" },
    { filePath: 'libs/service/src/planted.ts', code: "import { JobProducer } from '@roundtable/queues';\nimport { inSpan } from '@roundtable/observability';\nexport const x = [JobProducer, inSpan];\n" },
    { filePath: 'libs/providers/src/planted.spec.ts', code: "import { waitFor } from '@roundtable/testing';\nexport const x = waitFor;\n" },
    { filePath: 'apps/api/src/planted.ts', code: "import { runService } from '@roundtable/service';\nexport const x = runService;\n" },
  ];
  let forbiddenResults: Message[][];
  let allowedResults: Message[][];
  beforeAll(() => {
    const all = lint([...forbidden, ...allowed]);
    forbiddenResults = all.slice(0, forbidden.length);
    allowedResults = all.slice(forbidden.length);
  });

  it.each(forbidden.map((c, i) => [c.filePath, c.code.split('\n')[0], i] as const))('%s: %s is an error', (_file, _line, i) => {
    expect(boundaryErrors(forbiddenResults[i])).not.toEqual([]);
  });

  it.each(allowed.map((c, i) => [c.filePath, c.code.split('\n')[0], i] as const))('%s: %s is allowed', (_file, _line, i) => {
    expect(boundaryErrors(allowedResults[i])).toEqual([]);
  });
});
