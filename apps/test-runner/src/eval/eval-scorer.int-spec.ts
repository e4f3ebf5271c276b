import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { createDataSource, createTestDatabase, RunEntity, type TestDatabase } from '@roundtable/persistence';
import { ProcessTestRunner, type TestRunner, type TestRunOutcome } from '@roundtable/sandbox';
import { scoreEvalCell, type EvalScorerHost } from './eval-scorer';

jest.setTimeout(60_000);

/**
 * The eval scorer against the migrated schema (issue 25): a cell is scored only once all its
 * runs have ended, once (a second ask, or two at the same time, change nothing and run nothing
 * twice); a panel's verdict against the reference; a vote's plurality answer with the hidden tests
 * run in a scoring copy (never the workspace); and the eval done with its last cell. The hidden
 * tests run with the plain-process runner here (the sandbox e2e runs them in Docker).
 */
let db: TestDatabase;
let ds: DataSource;
let root: string;
let n = 0;
const asked: string[] = [];

const host = (): EvalScorerHost => {
  const runner = new ProcessTestRunner();
  return {
    ds,
    workspaceRoot: root,
    outputTail: 2000,
    admittedRunner: async () => runner as TestRunner,
    runIn: async (r: TestRunner, workspace: string, command: string, timeoutS: number, runId: string): Promise<TestRunOutcome> => {
      asked.push(workspace);
      return r.run({ workspace, command, timeoutMs: timeoutS * 1000, runId });
    },
  };
};

beforeAll(async () => {
  db = await createTestDatabase({ migrate: true });
  ds = createDataSource(db.url, { poolSize: 4 });
  await ds.initialize();
  root = mkdtempSync(path.join(tmpdir(), 'rt-eval-score-'));
  await ds.query(`INSERT INTO projects (id, name, objective, requirements, config) VALUES ('prj_e', 'eval', 'o', '[]', '{}')`);
});
afterAll(async () => {
  await ds?.destroy();
  await db?.drop();
  rmSync(root, { recursive: true, force: true });
});

async function evalWith(score: 'hidden_tests' | 'verdict', spec: Record<string, unknown>, hidden: unknown = null): Promise<{ evalId: string; cellId: string }> {
  const evalId = `eval_s${++n}`;
  const cellId = `evc_s${n}`;
  await ds.query(`INSERT INTO evals (id, suite, score, budget, configs) VALUES ($1, 's', $2, '{}', '[]')`, [evalId, score]);
  await ds.query(`INSERT INTO eval_tasks (eval_id, task_id, position, difficulty, spec, hidden) VALUES ($1, 't', 0, 'easy', $2, $3)`, [evalId, spec, hidden === null ? null : JSON.stringify(hidden)]);
  await ds.query(`INSERT INTO eval_cells (id, eval_id, task_id, config) VALUES ($1, $2, 't', 'c')`, [cellId, evalId]);
  return { evalId, cellId };
}

async function runOf(cellId: string, status: string, extra: Partial<RunEntity> = {}, files: Record<string, string> | null = null): Promise<string> {
  const id = `run_s${++n}`;
  await ds.getRepository(RunEntity).insert({ id, projectId: 'prj_e', workflow: 'build', status, stage: 'DONE', config: {}, evalCellId: cellId, startedAt: new Date(Date.now() - 5000), finishedAt: status === 'running' ? null : new Date(), ...extra } as QueryDeepPartialEntity<RunEntity>);
  await ds.query(`INSERT INTO usage_by_provider (run_id, provider, calls, input_tokens, output_tokens, cost_usd) VALUES ($1, 'p', 2, 100, 50, 0.01)`, [id]);
  if (files) {
    for (const [rel, content] of Object.entries(files)) {
      const target = path.join(root, id, 'workspace', rel);
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, content);
    }
  }
  return id;
}

const cell = async (cellId: string) => (await ds.query(`SELECT status, passed, reason, chosen_run_id, tokens, cost_usd::float8 AS cost, detail FROM eval_cells WHERE id = $1`, [cellId]))[0];
const evalStatus = async (evalId: string) => (await ds.query(`SELECT status FROM evals WHERE id = $1`, [evalId]))[0].status;

describe('scoreEvalCell', () => {
  it("a panel's verdict against the reference, once its run has ended, with the run's usage; the eval done with it", async () => {
    const { evalId, cellId } = await evalWith('verdict', { reference: 'NO-GO' });
    const running = await runOf(cellId, 'running');
    await scoreEvalCell(host(), cellId);
    expect(await cell(cellId)).toMatchObject({ status: 'running', passed: null });
    await ds.query(`UPDATE runs SET status = 'done', verdict = 'GO', finished_at = now() WHERE id = $1`, [running]);
    await scoreEvalCell(host(), cellId);
    expect(await cell(cellId)).toMatchObject({ status: 'scored', passed: false, reason: 'verdict GO, reference NO-GO', chosen_run_id: running, tokens: 150, cost: 0.01 });
    expect(await evalStatus(evalId)).toBe('done');
    // Scored once: a later ask (the reconciler's, a redelivery) changes nothing.
    await ds.query(`UPDATE runs SET verdict = 'NO-GO' WHERE id = $1`, [running]);
    await scoreEvalCell(host(), cellId);
    expect(await cell(cellId)).toMatchObject({ passed: false, reason: 'verdict GO, reference NO-GO' });
  });

  it("a vote: the plurality answer's files with the hidden tests, in a scoring copy; the hidden command run once for two asks at the same time", async () => {
    const hidden = [{ path: 'test_hidden_add.py', content: '# eval-hidden: add\nfrom add import add\n\n\ndef test_hidden_add():\n    assert add(2, 3) == 5\n' }];
    const { evalId, cellId } = await evalWith('hidden_tests', { hidden_command: 'python3 -m pytest -q -p no:cacheprovider .eval_hidden' }, hidden);
    const wrong = await runOf(cellId, 'done', {}, { 'add.py': 'def add(a, b):\n    return a - b\n' });
    const right = await runOf(cellId, 'done', {}, { 'add.py': 'def add(a, b):\n    return a + b\n' });
    // The same answer but for trailing whitespace and line endings: one vote with the second.
    await runOf(cellId, 'halted', {}, { 'add.py': 'def add(a, b):   \r\n    return a + b\r\n\r\n' });
    asked.length = 0;
    await Promise.all([scoreEvalCell(host(), cellId), scoreEvalCell(host(), cellId)]);
    expect(asked).toHaveLength(1);
    const scored = await cell(cellId);
    expect(scored).toMatchObject({ status: 'scored', passed: true, chosen_run_id: right, tokens: 450, detail: expect.objectContaining({ vote: { votes: 2, of: 3 }, exit_code: 0 }) });
    expect(scored.reason).toMatch(/^hidden tests: 1 passed/);
    expect(asked[0]).toBe(path.join(root, right, 'eval-score'));
    expect(readFileSync(path.join(root, right, 'eval-score', '.eval_hidden', 'test_hidden_add.py'), 'utf8')).toContain('# eval-hidden: add');
    for (const id of [wrong, right]) expect(existsSync(path.join(root, id, 'workspace', '.eval_hidden'))).toBe(false);
    expect(await evalStatus(evalId)).toBe('done');
  });

  it('a run that wrote nothing fails without running anything; an answer cannot bring its own ".eval_hidden"', async () => {
    const hidden = [{ path: 'test_hidden_x.py', content: 'def test_hidden_x():\n    assert False\n' }];
    const none = await evalWith('hidden_tests', { hidden_command: 'python3 -m pytest -q -p no:cacheprovider .eval_hidden' }, hidden);
    await runOf(none.cellId, 'failed');
    asked.length = 0;
    await scoreEvalCell(host(), none.cellId);
    expect(await cell(none.cellId)).toMatchObject({ status: 'scored', passed: false, reason: 'no answer: the run wrote no files' });
    expect(asked).toEqual([]);

    const planted = await evalWith('hidden_tests', { hidden_command: 'python3 -m pytest -q -p no:cacheprovider .eval_hidden' }, hidden);
    await runOf(planted.cellId, 'done', {}, { 'x.py': 'X = 1\n', '.eval_hidden/test_hidden_x.py': 'def test_hidden_x():\n    assert True\n' });
    await scoreEvalCell(host(), planted.cellId);
    // The task's hidden test (assert False) ran, not the answer's.
    expect(await cell(planted.cellId)).toMatchObject({ status: 'scored', passed: false });
  });
});
