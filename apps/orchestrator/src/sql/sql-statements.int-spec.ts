import type { DataSource } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { type CallOutcome, WorkspaceOpRowError } from '@roundtable/contracts';
import {
  createDataSource,
  createTestDatabase,
  ProjectEntity,
  RECORD_CALL_OUTCOME,
  RunEntity,
  runStatement,
  StatementBatch,
  addStatement,
  type Statement,
  type TestDatabase,
} from '@roundtable/persistence';
import { BUILD_RUN_STATE, loadBuildRunState } from '../workflows/build/build-run-state.sql';
import * as buildRows from '../workflows/build/build-rows.sql';
import * as openQuestions from './open-questions.sql';
import { lockRun } from './lock-run.sql';
import * as reconciler from './reconciler.sql';
import { SETTLE_FINISHED_CALL } from './settle-finished-call.sql';
import * as stepWrites from './step-writes.sql';
import * as jobReads from './job-reads.sql';
import * as scopeUsage from './scope-usage.sql';

jest.setTimeout(30_000);

/**
 * The orchestrator's SQL folder against the migrated schema: every statement prepares (its
 * tables, columns and types exist as written), and the hot-path ones answer the rows their Row
 * types say, through the same batch the step sends them in.
 */
let db: TestDatabase;
let ds: DataSource;
const RUN = 'run_sql';

const HARD = `it's "quoted" \\ back\\slash — naïve 🚀 𝄞`;

beforeAll(async () => {
  db = await createTestDatabase({ migrate: true });
  ds = createDataSource(db.url, { poolSize: 2 });
  await ds.initialize();
  await ds.getRepository(ProjectEntity).insert({ id: 'prj_sql', name: 'p', objective: 'o', requirements: [], config: {} } as QueryDeepPartialEntity<ProjectEntity>);
  await ds
    .getRepository(RunEntity)
    .insert({ id: RUN, projectId: 'prj_sql', workflow: 'build', status: 'running', stage: 'CRITIQUE', config: { project: HARD } } as QueryDeepPartialEntity<RunEntity>);
});
afterAll(async () => {
  await ds?.destroy();
  await db?.drop();
});

/** A batch on its own connection, in a transaction that commits (or rolls back, as a step does for a duplicate). */
async function batch(add: (b: StatementBatch) => void, end: 'COMMIT' | 'ROLLBACK' = 'COMMIT') {
  const runner = ds.createQueryRunner();
  try {
    await runner.connect();
    const b = new StatementBatch(runner);
    add(b);
    return await b.flush({ before: 'BEGIN', after: end });
  } finally {
    await runner.release();
  }
}

async function insertCall(id: string, extra: { status?: string; retry_of?: string | null; retry?: number } = {}) {
  await ds.query(
    `INSERT INTO agent_calls (id, run_id, seq, stage, role, provider, model, status, prompt_hash, messages, retry, retry_of)
     VALUES ($1, $2, (SELECT coalesce(max(seq), 0) + 1 FROM agent_calls WHERE run_id = $2), 'CRITIQUE', 'critic', 'openai', 'gpt', $3, 'h', $4, $5, $6)`,
    [id, RUN, extra.status ?? 'running', JSON.stringify([{ role: 'user', content: HARD }]), extra.retry ?? 0, extra.retry_of ?? null],
  );
  await ds.query(`INSERT INTO budget_reservations (call_id, run_id, provider, calls, tokens) VALUES ($1, $2, 'openai', 1, 100)`, [id, RUN]);
}

const outcome = (over: Partial<CallOutcome> = {}): CallOutcome => ({
  status: 'completed',
  valid: true,
  parsed: { verdict: 'ACCEPT', note: HARD },
  response_text: HARD,
  error: null,
  error_code: null,
  input_tokens: 10,
  output_tokens: 5,
  cached_input_tokens: null,
  cost_usd: 0.25,
  cost_source: 'table',
  latency_ms: 7,
  request_id: 'req-1',
  billing: null,
  argv: null,
  finished_at: '2026-12-01T10:00:00.000Z',
  ...over,
});

describe('the orchestrator SQL folder', () => {
  it('every statement prepares against the migrated schema', async () => {
    const statements: [string, Statement<never, unknown>][] = [
      ['lockRun', lockRun(ds.manager) as Statement<never, unknown>],
      ['SETTLE_FINISHED_CALL', SETTLE_FINISHED_CALL as Statement<never, unknown>],
      ['BUILD_RUN_STATE', BUILD_RUN_STATE as Statement<never, unknown>],
      ['RECORD_CALL_OUTCOME', RECORD_CALL_OUTCOME as Statement<never, unknown>],
      ...Object.entries(jobReads),
      ...[...Object.entries(stepWrites), ...Object.entries(buildRows), ...Object.entries(openQuestions)]
        .filter(([, v]) => typeof v === 'object' && v !== null && 'text' in v)
        .map(([k, v]) => [k, v as Statement<never, unknown>] as [string, Statement<never, unknown>]),
      ...Object.entries(scopeUsage)
        .filter(([, v]) => typeof v === 'object' && v !== null && 'text' in v)
        .map(([k, v]) => [k, v as Statement<never, unknown>] as [string, Statement<never, unknown>]),
      ...Object.entries(reconciler)
        .filter(([, v]) => typeof v === 'object' && v !== null && 'text' in v)
        .map(([k, v]) => [k, v as Statement<never, unknown>] as [string, Statement<never, unknown>]),
    ];
    expect(statements.length).toBeGreaterThanOrEqual(21);
    const runner = ds.createQueryRunner();
    try {
      await runner.connect();
      for (const [name, s] of statements) {
        await expect(runner.query(`PREPARE check_${name.toLowerCase()} AS ${s.text}`).then(() => name)).resolves.toBe(name);
      }
    } finally {
      await runner.release();
    }
  });

  it('lockRun: the run row under its entity property names, fresh once per inbox key, no row for a run that does not exist', async () => {
    const lock = lockRun(ds.manager);
    const [first] = await batch((b) => addStatement(b, lock, RUN, `agent.done:${HARD}`));
    expect(first.rows[0]).toMatchObject({ id: RUN, status: 'running', stage: 'CRITIQUE', workflow: 'build', config: { project: HARD }, __fresh: true });
    const [again, missing] = await batch((b) => {
      addStatement(b, lock, RUN, `agent.done:${HARD}`);
      addStatement(b, lock, 'run_nowhere', 'run.start');
    });
    expect(again.rows[0].__fresh).toBe(false);
    expect(missing.rows).toEqual([]);
    const keys = await ds.query(`SELECT event_key FROM applied_events WHERE run_id = $1`, [RUN]);
    expect(keys).toEqual([{ event_key: `agent.done:${HARD}` }]);
  });

  it('SETTLE_FINISHED_CALL: writes the carried outcome on an open row; each try settles alone (its reservation released, its usage counted once)', async () => {
    // The first try fails transiently: reported and settled on its own, with the worker's verdict.
    await insertCall('c1', { status: 'running' });
    const failedOutcome = outcome({ status: 'failed', valid: null, parsed: null, response_text: null, error: 'HTTP 500', error_code: 'server_error', input_tokens: 3, output_tokens: 0, cost_usd: null, retryable: true, retry_after_ms: null });
    const [failed] = await batch((b) => addStatement(b, SETTLE_FINISHED_CALL, 'c1', RUN, failedOutcome));
    expect(failed.rows[0]).toMatchObject({ id: 'c1', status: 'failed', error: 'HTTP 500', error_code: 'server_error', retryable: true, retry_after_ms: null, superseded: false, prior: [] });
    expect(await ds.query(`SELECT count(*)::int AS n FROM budget_reservations WHERE call_id = 'c1'`)).toEqual([{ n: 0 }]);
    // The engine's retry, a call of its own (own row and reservation), settles alone too.
    await insertCall('c1r1', { status: 'running', retry_of: 'c1', retry: 1 });
    const [settled] = await batch((b) => addStatement(b, SETTLE_FINISHED_CALL, 'c1r1', RUN, outcome()));
    const row = settled.rows[0];
    expect(row).toMatchObject({
      id: 'c1r1',
      status: 'completed',
      valid: true,
      parsed: { verdict: 'ACCEPT', note: HARD },
      response_text: HARD,
      input_tokens: 10,
      cost_usd: '0.250000',
      retryable: null,
      superseded: false,
      prior: [],
      messages: [{ role: 'user', content: HARD }],
    });
    expect(await ds.query(`SELECT count(*)::int AS n FROM budget_reservations WHERE call_id IN ('c1', 'c1r1')`)).toEqual([{ n: 0 }]);
    expect(await ds.query(`SELECT calls, input_tokens, output_tokens, cost_usd::text AS cost FROM usage_by_provider WHERE run_id = $1`, [RUN])).toEqual([
      { calls: 2, input_tokens: 13, output_tokens: 5, cost: '0.250000' },
    ]);
    // A second delivery finds the row recorded: the outcome it carries does not overwrite it (RECORD_CALL_OUTCOME neither).
    // (It would count the try again: the step rolls a duplicate's settling back, by the inbox, as here.)
    const late = await runStatement(ds, RECORD_CALL_OUTCOME, 'c1r1', outcome({ input_tokens: 99 }));
    expect(late.rowCount).toBe(0);
    const [reread] = await batch((b) => addStatement(b, SETTLE_FINISHED_CALL, 'c1r1', RUN, outcome({ input_tokens: 99 })), 'ROLLBACK');
    expect(reread.rows[0].input_tokens).toBe(10);
  });

  it('SETTLE_FINISHED_CALL: a try that is still running, or superseded by a retry, releases and counts nothing', async () => {
    await insertCall('c2', { status: 'running' });
    const before = await ds.query(`SELECT calls FROM usage_by_provider WHERE run_id = $1`, [RUN]);
    const [running] = await batch((b) => addStatement(b, SETTLE_FINISHED_CALL, 'c2', RUN, undefined));
    expect(running.rows[0]).toMatchObject({ id: 'c2', status: 'running', superseded: false, prior: [] });
    await insertCall('c2r1', { status: 'queued', retry_of: 'c2', retry: 1 });
    const [superseded] = await batch((b) => addStatement(b, SETTLE_FINISHED_CALL, 'c2', RUN, outcome()));
    expect(superseded.rows[0].superseded).toBe(true);
    expect(await ds.query(`SELECT calls FROM usage_by_provider WHERE run_id = $1`, [RUN])).toEqual(before);
    expect(await ds.query(`SELECT count(*)::int AS n FROM budget_reservations WHERE call_id IN ('c2', 'c2r1')`)).toEqual([{ n: 2 }]);
    const [none] = await batch((b) => addStatement(b, SETTLE_FINISHED_CALL, 'c_nowhere', RUN, undefined));
    expect(none.rows).toEqual([]);
  });

  it('BUILD_RUN_STATE: one row with every part of the state, mapped by loadBuildRunState (hard text kept exact)', async () => {
    await ds.query(`INSERT INTO proposals (id, run_id, call_id, label, round, status, body) VALUES ($1, $2, 'c1r1', 'P1', 1, 'active', $3)`, [
      `${RUN}-P1`,
      RUN,
      JSON.stringify({ title: HARD }),
    ]);
    await ds.query(`INSERT INTO open_questions (run_id, raised_by_role, question, status) VALUES ($1, 'critic', $2, 'open')`, [RUN, HARD]);
    const request = { label: 'R1', role: 'critic', call_id: 'c1r1', paths: [HARD], reason: HARD, refused: [], max_bytes_per_file: 64 };
    const files = [{ path: HARD, content: HARD, bytes: 12, truncated: false, error: null }];
    await ds.query(`INSERT INTO workspace_ops (id, run_id, kind, status, result, finished_at) VALUES ('op_r1', $1, 'read', 'done', $2, now())`, [
      RUN,
      JSON.stringify({ ...request, files }),
    ]);
    const [read] = await batch((b) => addStatement(b, BUILD_RUN_STATE, RUN));
    const row = read.rows[0];
    expect(Object.keys(row).sort()).toEqual(['critiques', 'diffs', 'implementations', 'proposals', 'questions', 'reads', 'reserved', 'synthesis', 'test_runs', 'tree', 'used']);
    const run = await ds.getRepository(RunEntity).findOneByOrFail({ id: RUN });
    const state = await loadBuildRunState(ds.manager, run, new Date());
    expect(state.proposals).toEqual([{ id: `${RUN}-P1`, label: 'P1', callId: 'c1r1', round: 1, revisionOf: null, status: 'active', body: { title: HARD } }]);
    expect(state.openQuestions).toEqual([{ role: 'critic', question: HARD }]);
    expect(state.fileReads).toEqual([{ opId: 'op_r1', label: 'R1', role: 'critic', callId: 'c1r1', paths: [HARD], reason: HARD, refused: [], files }]);
    expect(state.usage.used).toEqual({ calls: 2, tokens: 18, costUsd: 0.25 });
    expect(state.usage.reserved.calls).toBe(2); // c2 and its retry, still open
    expect(state.synthesis).toBeNull();
  });

  it('BUILD_RUN_STATE: a finished apply op whose commit is half recorded is an error naming the op and the field', async () => {
    await ds.query(`INSERT INTO proposals (id, run_id, call_id, label, round, status, body) VALUES ($1, $2, 'c1r1', 'P9', 1, 'active', '{}')`, [`${RUN}-P9`, RUN]);
    await ds.query(`INSERT INTO implementations (id, run_id, call_id, label, proposal_id, fix_round, status, body, artifact_ids) VALUES ($1, $2, 'c1r1', 'I9', $3, 0, 'applied', '{}', '[]')`, [
      `${RUN}-I9`,
      RUN,
      `${RUN}-P9`,
    ]);
    await ds.query(`INSERT INTO workspace_ops (id, run_id, kind, status, implementation_id, result, finished_at) VALUES ('op_a9', $1, 'apply', 'done', $2, $3, now())`, [
      RUN,
      `${RUN}-I9`,
      JSON.stringify({ written: [], tree: [], artifact_ids: [], diff_artifact_id: 'op_a9-diff', commit: 'abc' }),
    ]);
    const run = await ds.getRepository(RunEntity).findOneByOrFail({ id: RUN });
    const attempt = loadBuildRunState(ds.manager, run, new Date());
    await expect(attempt).rejects.toBeInstanceOf(WorkspaceOpRowError);
    await expect(attempt).rejects.toThrow(/^workspace op op_a9 \(apply\): result\.workspace_source: /);
  });

  it('the step writes: every record, decision, call and op written in one batch reads back exact, hard text included', async () => {
    const R = 'run_sql_w';
    await ds.getRepository(RunEntity).insert({ id: R, projectId: 'prj_sql', workflow: 'build', status: 'running', stage: 'PROPOSE', config: {} } as QueryDeepPartialEntity<RunEntity>);
    const messages = [{ role: 'user' as const, content: HARD }];
    const call = {
      kind: 'agent_call' as const, callId: `${R}-c1`, role: 'proposer' as const, stage: 'PROPOSE' as const, label: 'P1', provider: 'openai', model: 'gpt',
      schemaName: 'proposal' as const, messages, contextRefs: [HARD], maxTokens: 100, temperature: 0.2, timeoutMs: 1000, attempt: 1, repairOf: null, estimatedTokens: 42,
      // The ledger's worst case: the estimate plus max output tokens, and that at a table price.
      reservedTokens: 142, reservedCostUsd: 0.25,
    };
    const proposal = { id: `${R}-P1`, label: 'P1', callId: call.callId, round: 1, revisionOf: null, status: 'proposed' as const, body: { title: HARD, steps: [HARD] } };
    const critique = { id: `${R}-C1`, label: 'C1', callId: call.callId, targetKind: 'proposal' as const, targetLabel: 'P1', verdict: 'revise', body: { verdict: 'revise', issues: [HARD] } };
    const impl = { id: `${R}-I1`, label: 'I1', callId: call.callId, proposalLabel: 'P1', fixRound: 0, status: 'pending' as const, applyError: null, body: { files: [{ path: HARD, content: HARD }] } };
    const synthesis = { id: `${R}-S1`, label: 'S1', callId: null, partial: true, body: null };
    await batch((b) => {
      addStatement(b, stepWrites.INSERT_AGENT_CALL, R, 1, call as never);
      addStatement(b, buildRows.INSERT_PROPOSAL, R, proposal as never);
      addStatement(b, buildRows.INSERT_PROPOSAL, R, proposal as never); // replayed: nothing added
      addStatement(b, buildRows.UPDATE_PROPOSAL_STATUS, R, 'P1', 'criticized');
      addStatement(b, buildRows.INSERT_CRITIQUE, R, critique as never);
      addStatement(b, buildRows.INSERT_IMPLEMENTATION, R, impl as never);
      addStatement(b, buildRows.UPDATE_IMPLEMENTATION_STATUS, R, 'I1', 'rejected', HARD);
      addStatement(b, buildRows.INSERT_SYNTHESIS, R, synthesis);
      addStatement(b, openQuestions.INSERT_OPEN_QUESTION, R, 'critic', HARD);
      addStatement(b, stepWrites.INSERT_DECISIONS, R, [
        { from: 'INIT', to: 'PROPOSE', reason: HARD, refs: [HARD] },
        { from: 'PROPOSE', to: 'CRITIQUE', reason: 'second', refs: [] },
      ]);
      addStatement(b, stepWrites.INSERT_WORKSPACE_OP, R, `${R}-op1`, 'tests', `${R}-I1`, { command: HARD, timeoutS: 5, testLabel: 'T1' });
      addStatement(b, stepWrites.INSERT_READ_OP, R, `${R}-op2`, { label: 'R1', role: 'critic', call_id: call.callId, paths: [HARD], reason: null, refused: [], max_bytes_per_file: 10 });
    });
    const run = await ds.getRepository(RunEntity).findOneByOrFail({ id: R });
    const state = await loadBuildRunState(ds.manager, run, new Date());
    expect(state.proposals).toEqual([{ ...proposal, status: 'criticized' }]);
    expect(state.critiques).toEqual([critique]);
    expect(state.implementations).toEqual([{ ...impl, status: 'rejected', applyError: HARD }]);
    expect(state.synthesis).toEqual(synthesis);
    expect(state.openQuestions).toEqual([{ role: 'critic', question: HARD }]);
    expect(state.fileReads).toEqual([{ opId: `${R}-op2`, label: 'R1', role: 'critic', callId: call.callId, paths: [HARD], reason: null, refused: [], files: null }]);
    expect(state.usage.reserved).toEqual({ calls: 1, tokens: 142, costUsd: 0.25 });
    const [row] = await ds.query(`SELECT messages, context_refs, status, seq, max_tokens FROM agent_calls WHERE id = $1`, [call.callId]);
    expect(row).toEqual({ messages, context_refs: [HARD], status: 'queued', seq: 1, max_tokens: 100 });
    expect(await ds.query(`SELECT from_stage, to_stage, reason, refs FROM decisions WHERE run_id = $1 ORDER BY id`, [R])).toEqual([
      { from_stage: 'INIT', to_stage: 'PROPOSE', reason: HARD, refs: [HARD] },
      { from_stage: 'PROPOSE', to_stage: 'CRITIQUE', reason: 'second', refs: [] },
    ]);
    const [op] = await ds.query(`SELECT kind, status, implementation_id, result FROM workspace_ops WHERE id = $1`, [`${R}-op1`]);
    expect(op).toEqual({ kind: 'tests', status: 'queued', implementation_id: `${R}-I1`, result: { command: HARD, timeoutS: 5, testLabel: 'T1' } });
  });

  it("a solo run's implementation (pipeline: solo, no proposal) writes and reads back with no proposal", async () => {
    const R = 'run_sql_solo';
    await ds.getRepository(RunEntity).insert({ id: R, projectId: 'prj_sql', workflow: 'build', status: 'running', stage: 'IMPLEMENT', config: {} } as QueryDeepPartialEntity<RunEntity>);
    const call = {
      kind: 'agent_call' as const, callId: `${R}-c1`, role: 'engineer' as const, stage: 'IMPLEMENT' as const, label: 'I1', provider: 'openai', model: 'gpt',
      schemaName: 'implementation' as const, messages: [{ role: 'user' as const, content: 'implement' }], contextRefs: [], maxTokens: 100, temperature: 0.2, timeoutMs: 1000,
      attempt: 1, repairOf: null, estimatedTokens: 42, reservedTokens: 142, reservedCostUsd: 0,
    };
    const impl = { id: `${R}-I1`, label: 'I1', callId: call.callId, proposalLabel: null, fixRound: 0, status: 'pending' as const, applyError: null, body: { files: [{ path: 'a.py', content: 'x = 1' }] } };
    await batch((b) => {
      addStatement(b, stepWrites.INSERT_AGENT_CALL, R, 1, call as never);
      addStatement(b, buildRows.INSERT_IMPLEMENTATION, R, impl as never);
    });
    const run = await ds.getRepository(RunEntity).findOneByOrFail({ id: R });
    expect((await loadBuildRunState(ds.manager, run, new Date())).implementations).toEqual([impl]);
  });

  it('the job reads: a test run recorded once (a replay adds nothing), and the stage the last halt left', async () => {
    const R = 'run_sql_w'; // written by the test before: it has implementation I1
    const t = {
      id: `${R}-T1`, runId: R, implementationId: `${R}-I1`, label: 'T1', command: HARD, exitCode: 1,
      passed: 2, failed: 1, errors: 0, timedOut: false, outputArtifactId: null, durationS: 0.5, runner: 'docker',
    };
    await runStatement(ds, buildRows.INSERT_TEST_RUN, t);
    const replay = await runStatement(ds, buildRows.INSERT_TEST_RUN, { ...t, passed: 99 });
    expect(replay.rowCount).toBe(0);
    const state = await loadBuildRunState(ds.manager, await ds.getRepository(RunEntity).findOneByOrFail({ id: R }), new Date());
    expect(state.testRuns).toEqual([
      {
        id: `${R}-T1`,
        label: 'T1',
        implementationLabel: 'I1',
        result: { command: HARD, exit_code: 1, passed: 2, failed: 1, errors: 0, duration_s: 0.5, stdout_tail: '', timed_out: false },
      },
    ]);
    expect((await runStatement(ds, jobReads.LAST_HALT_FROM_STAGE, R)).rows).toEqual([]);
    await runStatement(ds, stepWrites.INSERT_DECISIONS, R, [
      { from: 'CRITIQUE', to: 'HALTED', reason: 'first', refs: [] },
      { from: 'TEST', to: 'HALTED', reason: 'second', refs: [] },
    ]);
    expect((await runStatement(ds, jobReads.LAST_HALT_FROM_STAGE, R)).rows).toEqual([{ from_stage: 'TEST' }]);
  });

  it('UPDATE_RUN_AFTER_STEP: one text for every step; what comes as NULL (config, verdict, started/finished, signature) is kept, event_seq and the head hash move on', async () => {
    const R = 'run_sql_u';
    await ds.getRepository(RunEntity).insert({ id: R, projectId: 'prj_sql', workflow: 'build', status: 'queued', stage: 'INIT', config: { project: HARD } } as QueryDeepPartialEntity<RunEntity>);
    const base = {
      status: 'running', stage: 'PROPOSE', round: 1, fixRound: 0, criteria: [{ id: 'R1', text: HARD }], unresolved: false, haltReason: null,
      config: undefined, workspacePath: `/ws/${HARD}`, labelCounters: { P: 2 }, callSeq: 3, verdict: null, confidence: null,
      startedAt: new Date('2026-12-01T10:00:00.000Z'), finishedAt: null, events: 2, headHash: 'h2', signature: null,
      workflowState: { tree: [HARD, 'a.ts'], proposals: [{ label: 'P1', body: { summary: HARD, nested: { list: [1, null, HARD] } } }], event_seq: 2 },
    };
    const [first] = await batch((b) => addStatement(b, buildRows.UPDATE_RUN_AFTER_STEP, R, base));
    expect(first.rowCount).toBe(1);
    const row = () => ds.getRepository(RunEntity).findOneByOrFail({ id: R });
    expect(await row()).toMatchObject({
      status: 'running', stage: 'PROPOSE', round: 1, criteria: [{ id: 'R1', text: HARD }], criteriaLocked: true, workspacePath: `/ws/${HARD}`,
      labelCounters: { P: 2 }, callSeq: 3, config: { project: HARD }, verdict: null, startedAt: base.startedAt, finishedAt: null, eventSeq: 2,
      headHash: 'h2', signature: null,
    });
    // The snapshot goes as jsonb, whole: quotes, backslashes, unicode, arrays and nesting come back as they went.
    expect((await row()).workflowState).toEqual(base.workflowState);
    await batch((b) =>
      addStatement(b, buildRows.UPDATE_RUN_AFTER_STEP, R, {
        ...base, status: 'done', stage: 'DONE', criteria: null, config: { project: 'raised caps' }, verdict: 'ACCEPT', confidence: 0.75,
        startedAt: null, finishedAt: new Date('2026-12-01T11:00:00.000Z'), events: 1, haltReason: HARD,
        headHash: 'h3', signature: { sequence: 3, hash: 'h3' },
      }),
    );
    expect(await row()).toMatchObject({
      status: 'done', criteria: null, criteriaLocked: false, config: { project: 'raised caps' }, verdict: 'ACCEPT', confidence: 0.75,
      startedAt: base.startedAt, finishedAt: new Date('2026-12-01T11:00:00.000Z'), eventSeq: 3, haltReason: HARD,
      headHash: 'h3', signature: { sequence: 3, hash: 'h3' },
    });
    // No events: the head as it was comes back, and a null signature keeps the one the row has.
    await batch((b) => addStatement(b, buildRows.UPDATE_RUN_AFTER_STEP, R, { ...base, events: 0, headHash: 'h3' }));
    expect(await row()).toMatchObject({ verdict: 'ACCEPT', confidence: 0.75, config: { project: 'raised caps' }, eventSeq: 3, headHash: 'h3', signature: { sequence: 3, hash: 'h3' } });
    const [missing] = await batch((b) => addStatement(b, buildRows.UPDATE_RUN_AFTER_STEP, 'run_nowhere', base));
    expect(missing.rowCount).toBe(0);
  });
  it("INSERT_COPIED_AGENT_CALL then SETTLE_FINISHED_CALL: a fork's copy holds the original's prompt and outcome at its own place, and bills nothing", async () => {
    const O = 'run_sql_orig';
    const F = 'run_sql_fork';
    for (const id of [O, F]) await ds.getRepository(RunEntity).insert({ id, projectId: 'prj_sql', workflow: 'build', status: 'running', stage: 'PROPOSE', config: {} } as QueryDeepPartialEntity<RunEntity>);
    const sent = [{ role: 'user', content: HARD }];
    await ds.query(
      `INSERT INTO agent_calls (id, run_id, seq, stage, role, provider, model, label, attempt, status, prompt_hash, messages, schema_name, max_tokens, temperature, timeout_ms,
                                response_text, parsed, valid, input_tokens, output_tokens, cost_usd, latency_ms, started_at, finished_at)
       VALUES ($1, $2, 1, 'PROPOSE', 'proposer', 'openai', 'gpt', 'P1', 1, 'completed', 'h0', $3, 'proposal', 100, 0.2, 1000, $4, $5, true, 12, 8, 0.5, 900, now(), now())`,
      [`${O}-c1`, O, JSON.stringify(sent), HARD, JSON.stringify({ title: HARD })],
    );
    // The fork's command: its own id, seq and (new) prompt; the row keeps the prompt the reply answered.
    const command = {
      kind: 'agent_call' as const, callId: `${F}-c1`, role: 'proposer' as const, stage: 'PROPOSE' as const, label: 'P1', provider: 'anthropic', model: 'claude',
      schemaName: 'proposal' as const, messages: [{ role: 'user' as const, content: 'the fork would have asked this' }], contextRefs: ['R1'], maxTokens: 50, temperature: 0.7, timeoutMs: 5,
      attempt: 1, repairOf: null, estimatedTokens: 1, reservedTokens: 51, reservedCostUsd: 0.1,
    };
    await batch((b) => addStatement(b, stepWrites.INSERT_COPIED_AGENT_CALL, F, 3, command as never, { runId: O, callId: `${O}-c1` }));
    const [copy] = await ds.query(`SELECT * FROM agent_calls WHERE id = $1`, [`${F}-c1`]);
    expect(copy).toMatchObject({
      run_id: F, seq: 3, stage: 'PROPOSE', role: 'proposer', label: 'P1', attempt: 1, retry: 0, context_refs: ['R1'],
      provider: 'openai', model: 'gpt', messages: sent, prompt_hash: 'h0', max_tokens: 100,
      status: 'completed', response_text: HARD, parsed: { title: HARD }, valid: true, input_tokens: 12, output_tokens: 8, cost_usd: '0.500000', latency_ms: 900,
      copied_from: `${O}-c1`,
    });
    // In the fork's own time: queued, started and finished now (the original row keeps its own times and latency).
    const [times] = await ds.query(`SELECT c.finished_at >= o.finished_at AND c.started_at = c.finished_at AS own FROM agent_calls c, agent_calls o WHERE c.id = $1 AND o.id = $2`, [`${F}-c1`, `${O}-c1`]);
    expect(times.own).toBe(true);
    expect(await ds.query(`SELECT count(*)::int AS n FROM budget_reservations WHERE run_id = $1`, [F])).toEqual([{ n: 0 }]);
    // Settled as the agent.done the writer queues with it (no outcome carried): read back whole, nothing counted.
    const [settled] = await batch((b) => addStatement(b, SETTLE_FINISHED_CALL, `${F}-c1`, F, undefined));
    expect(settled.rows[0]).toMatchObject({ id: `${F}-c1`, status: 'completed', valid: true, input_tokens: 12, copied_from: `${O}-c1`, superseded: false });
    expect(await ds.query(`SELECT coalesce(sum(calls), 0)::int AS calls, coalesce(sum(input_tokens), 0)::int AS tokens FROM usage_by_provider WHERE run_id = $1`, [F])).toEqual([{ calls: 0, tokens: 0 }]);
    // A key naming another run's call copies nothing.
    const [none] = await batch((b) => addStatement(b, stepWrites.INSERT_COPIED_AGENT_CALL, F, 4, { ...command, callId: `${F}-c2` } as never, { runId: F, callId: `${O}-c1` }));
    expect(none.rowCount).toBe(0);
  });
});
