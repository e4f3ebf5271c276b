import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import { parse as parseYaml } from 'yaml';
import type { ExperimentInterpretation, ExperimentResult, Preregistration } from '@roundtable/contracts';
import { addStatement, createDataSource, createTestDatabase, preregistrationHash, StatementBatch, type Statement, type TestDatabase } from '@roundtable/persistence';
import { DECIDE_EXPERIMENT, LOCK_DRAFTED_EXPERIMENT, LOG_IDEA_EVIDENCE, REJECT_DRAFTED_EXPERIMENT, STORE_EXPERIMENT_RESULT } from './experiment-rows.sql';

jest.setTimeout(30_000);

/**
 * The experiments row as an experiment run's steps change it (issue 24), against the migrated
 * schema, through the batch a step sends its statements in: each does what its comment says, and
 * each is guarded by the state it moves from, so a replayed step changes nothing twice.
 */
let db: TestDatabase;
let ds: DataSource;
const PREREG = (parseYaml(readFileSync(path.resolve(__dirname, '../../../../../examples/experiment-backtest/experiment-pass.yaml'), 'utf8')) as { preregistration: Preregistration }).preregistration;
const HASH = preregistrationHash(PREREG);

beforeAll(async () => {
  db = await createTestDatabase({ migrate: true });
  ds = createDataSource(db.url, { poolSize: 2 });
  await ds.initialize();
  await ds.query(`INSERT INTO projects (id, name, objective, requirements, config) VALUES ('prj_exp_rows', 'p', 'o', '[]', '{}')`);
});
afterAll(async () => {
  await ds?.destroy();
  await db?.drop();
});

async function apply<A extends unknown[]>(s: Statement<A, never>, ...args: A) {
  const runner = ds.createQueryRunner();
  try {
    await runner.connect();
    const b = new StatementBatch(runner);
    addStatement(b, s, ...args);
    return (await b.flush({ before: 'BEGIN', after: 'COMMIT' }))[0];
  } finally {
    await runner.release();
  }
}

type Row = { status: string; prereg: Preregistration | null; prereg_hash: string | null; locked_at: Date | null; result: ExperimentResult | null; result_hash_check: boolean | null; decision: string | null; interpretation: ExperimentInterpretation | null; interpreted_at: Date | null };
const row = async (id: string): Promise<Row> =>
  (await ds.query(`SELECT status, prereg, prereg_hash, locked_at, result, result_hash_check, decision, interpretation, interpreted_at FROM experiments WHERE id = $1`, [id]))[0];

/** A draft: no preregistration, hash or lock time yet. */
const draft = (id: string) => ds.query(`INSERT INTO experiments (id, project_id, status) VALUES ($1, 'prj_exp_rows', 'draft')`, [id]);
/** A locked row, as POST /v1/experiments stores one. */
const locked = (id: string, hash = HASH) =>
  ds.query(`INSERT INTO experiments (id, project_id, status, prereg, prereg_hash, locked_at) VALUES ($1, 'prj_exp_rows', 'locked', $2::jsonb, $3, now())`, [id, JSON.stringify(PREREG), hash]);

const result = (over: Partial<ExperimentResult> = {}): ExperimentResult => ({
  prereg_hash: HASH,
  commit: 'a'.repeat(40),
  metrics: { sharpe_oos: 2.9641, max_drawdown: -0.0689, total_return_oos: 0.21, n_trades: 7 },
  exit_code: 0,
  duration_s: 1.5,
  output_artifact_id: 'art_1',
  output_tail: 'sharpe_oos=2.9641',
  run_id: 'run_exp',
  ...over,
});

const interpretation = (computed: 'PASS' | 'KILL' = 'PASS'): ExperimentInterpretation => ({
  criteria: [{ id: 'S1', kind: 'success', expr: 'sharpe_oos >= 0.5', holds: computed === 'PASS', reading: { holds: computed === 'PASS', evidence: "it's \"quoted\"" } }],
  computed,
  interpreter_decision: computed,
  override_request: null,
  summary: 'naïve 🚀',
  review: { agrees: true, disagreements: [], summary: 'agrees' },
  open_question: null,
  notes: [],
  trading_critique: null,
});

describe('LOCK_DRAFTED_EXPERIMENT', () => {
  it('locks a draft: the preregistration, its hash, the lock time, status locked', async () => {
    await draft('exp_lock');
    expect((await apply(LOCK_DRAFTED_EXPERIMENT, 'exp_lock', PREREG, HASH)).rowCount).toBe(1);
    const r = await row('exp_lock');
    expect(r).toMatchObject({ status: 'locked', prereg: PREREG, prereg_hash: HASH });
    expect(r.locked_at).toBeInstanceOf(Date);
  });

  it('locks only a draft: a locked row (a replayed approval), a rejected one and a missing one are unchanged', async () => {
    const other = { ...PREREG, title: 'another' };
    await locked('exp_lock_locked');
    const before = await row('exp_lock_locked');
    expect((await apply(LOCK_DRAFTED_EXPERIMENT, 'exp_lock_locked', other, 'another-hash')).rowCount).toBe(0);
    expect(await row('exp_lock_locked')).toEqual(before);

    await draft('exp_lock_rejected');
    expect((await apply(REJECT_DRAFTED_EXPERIMENT, 'exp_lock_rejected')).rowCount).toBe(1);
    expect((await apply(LOCK_DRAFTED_EXPERIMENT, 'exp_lock_rejected', PREREG, HASH)).rowCount).toBe(0);
    expect(await row('exp_lock_rejected')).toMatchObject({ status: 'rejected', prereg: null, prereg_hash: null, locked_at: null });

    expect((await apply(LOCK_DRAFTED_EXPERIMENT, 'exp_nowhere', PREREG, HASH)).rowCount).toBe(0);
  });
});

describe('REJECT_DRAFTED_EXPERIMENT', () => {
  it('rejects only a draft: a locked row stays locked', async () => {
    await locked('exp_reject_locked');
    expect((await apply(REJECT_DRAFTED_EXPERIMENT, 'exp_reject_locked')).rowCount).toBe(0);
    expect((await row('exp_reject_locked')).status).toBe('locked');
    await draft('exp_reject');
    expect((await apply(REJECT_DRAFTED_EXPERIMENT, 'exp_reject')).rowCount).toBe(1);
    expect((await apply(REJECT_DRAFTED_EXPERIMENT, 'exp_reject')).rowCount).toBe(0);
    expect((await row('exp_reject')).status).toBe('rejected');
  });
});

describe('STORE_EXPERIMENT_RESULT', () => {
  it('stores a result whose hash is the row\'s when there is none yet, and marks the hash checked', async () => {
    await locked('exp_store');
    expect((await apply(STORE_EXPERIMENT_RESULT, 'exp_store', result())).rowCount).toBe(1);
    expect(await row('exp_store')).toMatchObject({ status: 'locked', result: result(), result_hash_check: true });
  });

  it('a second store (a replayed step, or another result) changes nothing', async () => {
    await locked('exp_store_twice');
    await apply(STORE_EXPERIMENT_RESULT, 'exp_store_twice', result());
    expect((await apply(STORE_EXPERIMENT_RESULT, 'exp_store_twice', result({ metrics: { sharpe_oos: -1 }, run_id: 'run_other' }))).rowCount).toBe(0);
    expect((await row('exp_store_twice')).result).toEqual(result());
  });

  it('a result run with another preregistration hash (the row was altered) is not stored', async () => {
    await locked('exp_store_altered');
    expect((await apply(STORE_EXPERIMENT_RESULT, 'exp_store_altered', result({ prereg_hash: 'f'.repeat(64) }))).rowCount).toBe(0);
    expect(await row('exp_store_altered')).toMatchObject({ result: null, result_hash_check: null });
    // A draft has no hash: nothing matches it.
    await draft('exp_store_draft');
    expect((await apply(STORE_EXPERIMENT_RESULT, 'exp_store_draft', result())).rowCount).toBe(0);
    expect((await row('exp_store_draft')).result).toBeNull();
  });
});

describe('DECIDE_EXPERIMENT', () => {
  it('decides a locked row: the decision, the interpretation (jsonb round-trips quotes and unicode), the time, status decided', async () => {
    await locked('exp_decide');
    await apply(STORE_EXPERIMENT_RESULT, 'exp_decide', result());
    expect((await apply(DECIDE_EXPERIMENT, 'exp_decide', 'PASS', interpretation())).rowCount).toBe(1);
    const r = await row('exp_decide');
    expect(r).toMatchObject({ status: 'decided', decision: 'PASS', interpretation: interpretation(), result: result() });
    expect(r.interpreted_at).toBeInstanceOf(Date);
    // A replayed decide on the decided row writes the same decision again.
    expect((await apply(DECIDE_EXPERIMENT, 'exp_decide', 'PASS', interpretation())).rowCount).toBe(1);
    expect(await row('exp_decide')).toMatchObject({ status: 'decided', decision: 'PASS' });
  });

  it('does not decide a draft or a rejected row', async () => {
    await draft('exp_decide_draft');
    expect((await apply(DECIDE_EXPERIMENT, 'exp_decide_draft', 'PASS', interpretation())).rowCount).toBe(0);
    expect(await row('exp_decide_draft')).toMatchObject({ status: 'draft', decision: null, interpretation: null, interpreted_at: null });
    await draft('exp_decide_rejected');
    await apply(REJECT_DRAFTED_EXPERIMENT, 'exp_decide_rejected');
    expect((await apply(DECIDE_EXPERIMENT, 'exp_decide_rejected', 'KILL', interpretation('KILL'))).rowCount).toBe(0);
    expect(await row('exp_decide_rejected')).toMatchObject({ status: 'rejected', decision: null });
  });
});

describe('LOG_IDEA_EVIDENCE', () => {
  type Entry = { entry_id: string; seq: number; claim: string; source: string; kind: string; supersedes: string | null; logged_by: string; date: Date };

  it('numbers E<n> from ideas.evidence_seq: two logs after a seq of 0 are E1 and E2, kind experiment_result, logged by the experiment', async () => {
    await ds.query(`INSERT INTO ideas (id, title, latest_version, created_by) VALUES ('idea_exp_rows', 'Swapboard', 1, 'tester')`);
    expect((await ds.query(`SELECT evidence_seq FROM ideas WHERE id = 'idea_exp_rows'`))[0].evidence_seq).toBe(0);
    const claim = `Experiment exp_a "it's \\"quoted\\" — naïve" decided PASS by code`;
    expect((await apply(LOG_IDEA_EVIDENCE, 'idea_exp_rows', claim, 'experiment exp_a (run run_a)', 'exp_a')).rowCount).toBe(1);
    expect((await apply(LOG_IDEA_EVIDENCE, 'idea_exp_rows', 'Experiment exp_b decided KILL by code', 'experiment exp_b (run run_b)', 'exp_b')).rowCount).toBe(1);
    const entries: Entry[] = await ds.query(`SELECT entry_id, seq, claim, source, kind, supersedes, logged_by, date FROM evidence_entries WHERE idea_id = 'idea_exp_rows' ORDER BY seq`);
    expect(entries.map(({ date: _d, ...e }) => e)).toEqual([
      { entry_id: 'E1', seq: 1, claim, source: 'experiment exp_a (run run_a)', kind: 'experiment_result', supersedes: null, logged_by: 'experiment exp_a' },
      { entry_id: 'E2', seq: 2, claim: 'Experiment exp_b decided KILL by code', source: 'experiment exp_b (run run_b)', kind: 'experiment_result', supersedes: null, logged_by: 'experiment exp_b' },
    ]);
    expect((await ds.query(`SELECT evidence_seq FROM ideas WHERE id = 'idea_exp_rows'`))[0].evidence_seq).toBe(2);
  });

  it('follows entries a person logged (the seq goes on from theirs), and logs nothing for an idea that does not exist', async () => {
    await ds.query(`INSERT INTO ideas (id, title, latest_version, created_by, evidence_seq) VALUES ('idea_exp_rows_2', 'Other', 1, 'tester', 3)`);
    await apply(LOG_IDEA_EVIDENCE, 'idea_exp_rows_2', 'decided PASS', 'experiment exp_c (run run_c)', 'exp_c');
    expect(await ds.query(`SELECT entry_id FROM evidence_entries WHERE idea_id = 'idea_exp_rows_2'`)).toEqual([{ entry_id: 'E4' }]);
    expect((await apply(LOG_IDEA_EVIDENCE, 'idea_nowhere', 'decided PASS', 'experiment exp_d', 'exp_d')).rowCount).toBe(0);
    expect(await ds.query(`SELECT 1 FROM evidence_entries WHERE idea_id = 'idea_nowhere'`)).toEqual([]);
  });
});
