import { UnrecoverableError, Worker } from 'bullmq';
import type { DataSource } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import type { RedisClient } from '@roundtable/queues';
import { agentQueueName, jobId, QUEUE } from '@roundtable/contracts';
import { AgentCallEntity, RunEntity, WorkspaceOpEntity } from '@roundtable/persistence';
import { createRedisConnection, JobProducer, queuePrefix } from '@roundtable/queues';
import { deleteRedisPrefix, TEST_REDIS_URL, waitFor } from '@roundtable/testing';
import type { OrchestratorStepService } from '../orchestrator-step.service';
import { demoConfig, insertProject, orchestratorTestInfra, type OrchestratorTestInfra } from '../orchestrator-test.fixture';
import { RunReconciler, type ReconcilerSettings } from './run-reconciler';

jest.setTimeout(30_000);

/** Every row is "old enough" at once; halts only for runs whose updated_at a test moved back. */
const SETTINGS: ReconcilerSettings = { resendAfterMs: 1, leaseMarginMs: 1, defaultCallTimeoutMs: 1, haltAfterMs: 60 * 60_000 };

describe('RunReconciler against real Postgres and Redis', () => {
  let infra: OrchestratorTestInfra;
  let ds: DataSource;
  let redis: RedisClient;
  let prefix: string;
  let producer: JobProducer;
  let steps: OrchestratorStepService;
  let reconciler: RunReconciler;
  let stored: Record<string, unknown>;
  let n = 0;

  beforeAll(async () => {
    infra = await orchestratorTestInfra('rt_int_recon', 6);
    ({ ds, redis, prefix, producer, steps } = infra);
    reconciler = new RunReconciler(ds, producer, SETTINGS);
    stored = demoConfig();
    await insertProject(ds, 'prj_recon', 'recon', stored);
  });

  afterAll(async () => {
    await infra?.close();
  });

  afterEach(async () => {
    // Each test starts with an empty Redis, and no run of an earlier test left live to be swept.
    await deleteRedisPrefix(redis, prefix);
    await ds.query(`UPDATE runs SET status = 'cancelled' WHERE status IN ('queued', 'running', 'awaiting_approval')`);
  });

  /** A run as the api writes it, started: its prepare op queued and its job in Redis. */
  async function startedRun(): Promise<{ runId: string; prepareId: string }> {
    const runId = `run_recon${String(++n).padStart(4, '0')}`;
    await ds
      .getRepository(RunEntity)
      .insert({ id: runId, projectId: 'prj_recon', workflow: 'build', status: 'queued', stage: 'INIT', config: stored } as QueryDeepPartialEntity<RunEntity>);
    expect(await steps.apply('run.start', { runId })).toBe('applied');
    const prepare = await ds.getRepository(WorkspaceOpEntity).findOneByOrFail({ runId, kind: 'prepare' });
    return { runId, prepareId: prepare.id };
  }

  /** A started run moved on to PROPOSE: the prepare op reported, the proposer's call queued. */
  async function proposingRun(): Promise<{ runId: string; callId: string }> {
    const { runId, prepareId } = await startedRun();
    await ds.getRepository(WorkspaceOpEntity).update({ id: prepareId }, { status: 'done', result: { path: '/tmp/rt-recon-ws', tree: [] }, finishedAt: new Date() });
    expect(await steps.apply('workspace.done', { runId, opId: prepareId })).toBe('applied');
    const call = await ds.getRepository(AgentCallEntity).findOneByOrFail({ runId, role: 'proposer' });
    return { runId, callId: call.id };
  }

  /** Lets a worker take the queue's job and fail it with `error` (a plain BullMQ worker: one attempt, no retries of ours). */
  async function failJob(queueName: string, id: string, error: Error): Promise<void> {
    const connection = createRedisConnection(TEST_REDIS_URL);
    const failing = new Worker(queueName, async () => Promise.reject(error), { connection, prefix: queuePrefix(prefix, queueName) });
    try {
      await waitFor(`job ${id} to fail`, async () => ((await (await producer.queue(queueName).getJob(id))?.getState()) === 'failed' ? true : undefined));
    } finally {
      await failing.close();
      connection.disconnect();
    }
  }

  it('sends a queued workspace op again once Redis has lost its job, and only once', async () => {
    const { runId, prepareId } = await startedRun();
    const id = jobId(prepareId, 'prepare');
    expect(await producer.queue(QUEUE.workspace).getJob(id)).toBeDefined();
    await deleteRedisPrefix(redis, prefix);
    expect(await producer.queue(QUEUE.workspace).getJob(id)).toBeUndefined();

    const report = await reconciler.sweep();
    expect(report.resent).toEqual([{ kind: 'op', queue: QUEUE.workspace, jobId: id }]);
    const job = await producer.queue(QUEUE.workspace).getJob(id);
    expect(job).toMatchObject({ name: 'workspace.prepare', data: { runId, opId: prepareId } });
    // The job is there now: the next sweep leaves it alone.
    expect((await reconciler.sweep()).resent).toEqual([]);
  });

  it('checks more pending rows than one batch of lookups at once, resending every lost job once', async () => {
    // 60 runs' prepare ops: more than the 50 rows a sweep looks up in Redis at once.
    const runs: { runId: string; prepareId: string }[] = [];
    for (let i = 0; i < 60; i++) runs.push(await startedRun());
    await deleteRedisPrefix(redis, prefix);

    const report = await reconciler.sweep();
    expect(report.pending).toBe(60);
    expect(report.resent).toHaveLength(60);
    expect(new Set(report.resent.map((r) => r.jobId))).toEqual(new Set(runs.map((r) => jobId(r.prepareId, 'prepare'))));
    for (const r of runs) expect(await producer.queue(QUEUE.workspace).getJob(jobId(r.prepareId, 'prepare'))).toBeDefined();
    expect((await reconciler.sweep()).resent).toEqual([]);
  });

  it("sends a queued agent call again, and a finished call's lost agent.done", async () => {
    const { runId, callId } = await proposingRun();
    await deleteRedisPrefix(redis, prefix);
    const report = await reconciler.sweep();
    expect(report.resent).toEqual([{ kind: 'call', queue: agentQueueName('replay'), jobId: jobId(callId, 'call') }]);
    expect(await producer.queue(agentQueueName('replay')).getJob(jobId(callId, 'call'))).toMatchObject({ name: 'agent.call', data: { runId, callId } });

    // The provider-worker recorded the reply, and Redis lost the agent.done it sent.
    await ds.getRepository(AgentCallEntity).update({ id: callId }, { status: 'completed', valid: false, error: 'x', finishedAt: new Date() });
    await deleteRedisPrefix(redis, prefix);
    expect((await reconciler.sweep()).resent).toEqual([{ kind: 'call_done', queue: QUEUE.orchestrator, jobId: jobId(callId, 'done') }]);
    expect(await producer.queue(QUEUE.orchestrator).getJob(jobId(callId, 'done'))).toMatchObject({ name: 'agent.done', data: { runId, callId } });
  });

  it("sends an eval cell's eval.score again when Redis lost it, once all of the cell's runs have ended, and not before", async () => {
    await ds.query(`INSERT INTO evals (id, suite, score, budget, configs) VALUES ('eval_recon', 'coding', 'hidden_tests', '{}', '[]')`);
    await ds.query(`INSERT INTO eval_cells (id, eval_id, task_id, config) VALUES ('evc_recon', 'eval_recon', 't1', 'team')`);
    const ids = [`run_recon_e1_${++n}`, `run_recon_e2_${n}`];
    for (const [i, id] of ids.entries()) {
      await ds.getRepository(RunEntity).insert({
        id, projectId: 'prj_recon', workflow: 'build', status: i === 0 ? 'done' : 'running', stage: 'DONE', config: stored, evalCellId: 'evc_recon', finishedAt: i === 0 ? new Date(Date.now() - 60_000) : null,
      } as QueryDeepPartialEntity<RunEntity>);
    }
    // One sample still going: nothing to score yet.
    expect((await reconciler.sweep()).resent.filter((r) => r.kind === 'score')).toEqual([]);
    // Both ended (the last one's step sent eval.score, and Redis lost it): sent again, under the last run's id.
    await ds.query(`UPDATE runs SET status = 'halted', finished_at = now() - interval '1 minute' + interval '1 second' WHERE id = $1`, [ids[1]]);
    const report = await reconciler.sweep();
    expect(report.resent.filter((r) => r.kind === 'score')).toEqual([{ kind: 'score', queue: QUEUE.tests, jobId: jobId(ids[1], 'evalscore') }]);
    expect(await producer.queue(QUEUE.tests).getJob(jobId(ids[1], 'evalscore'))).toMatchObject({ name: 'eval.score', data: { runId: ids[1], cellId: 'evc_recon' } });
    // Scored: never asked again.
    await ds.query(`UPDATE eval_cells SET status = 'scored', passed = true WHERE id = 'evc_recon'`);
    await deleteRedisPrefix(redis, prefix);
    expect((await reconciler.sweep()).resent.filter((r) => r.kind === 'score')).toEqual([]);
  });

  it('retries a tests job that failed while Postgres was away, and sends it again when Redis lost it', async () => {
    const { runId } = await proposingRun();
    const opId = `${runId}-op-tests`;
    await ds.query(`INSERT INTO workspace_ops (id, run_id, kind, status, result) VALUES ($1, $2, 'tests', 'queued', '{}')`, [opId, runId]);
    const id = jobId(opId, 'tests');
    // What a Postgres restart left before infrastructure errors were retried for minutes: the job failed.
    await producer.addRaw(QUEUE.tests, 'tests.run', { runId, opId, implementationId: 'impl' }, id);
    await failJob(QUEUE.tests, id, Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }));
    const report = await reconciler.sweep();
    expect(report.retried).toEqual([{ kind: 'op', queue: QUEUE.tests, jobId: id }]);
    expect(await (await producer.queue(QUEUE.tests).getJob(id))!.getState()).toBe('waiting');

    await deleteRedisPrefix(redis, prefix);
    const again = await reconciler.sweep();
    expect(again.resent).toContainEqual({ kind: 'op', queue: QUEUE.tests, jobId: id });
    expect(await producer.queue(QUEUE.tests).getJob(id)).toMatchObject({ name: 'tests.run', data: { runId, opId, implementationId: null } });
  });

  /** The run.halt job a sweep sent for `runId`, applied as the orchestrator's processor would. */
  async function applyHalt(runId: string): Promise<{ reason: string; outcome: string }> {
    const jobs = await producer.queue(QUEUE.orchestrator).getJobs(['waiting', 'delayed', 'prioritized']);
    const job = jobs.find((j) => j.name === 'run.halt' && j.data.runId === runId);
    if (!job) throw new Error(`no run.halt job for ${runId} (jobs: ${jobs.map((j) => j.name).join(', ') || 'none'})`);
    expect(job.id).toBe(jobId(runId, 'halt', job.data.seenMs));
    return { reason: job.data.reason, outcome: await steps.apply('run.halt', job.data, job.id) };
  }

  const quietFor2Hours = (runId: string) => ds.query(`UPDATE runs SET updated_at = now() - interval '2 hours' WHERE id = $1`, [runId]);

  it('halts a run left with nothing in flight through its workflow, one step writing the run, and run.resume picks it up where it stopped', async () => {
    const { runId, callId } = await proposingRun();
    // The proposer's job failed for good (not the infrastructure): nothing will report it.
    const queue = agentQueueName('replay');
    await failJob(queue, jobId(callId, 'call'), new UnrecoverableError('bad payload for agent.call'));
    // Still within the grace period: not halted.
    expect((await reconciler.sweep()).halted).toEqual([]);
    await quietFor2Hours(runId);

    const report = await reconciler.sweep();
    expect(report.retried).toEqual([]);
    expect(report.halted).toEqual([{ runId, reason: expect.stringContaining(`agent.call job ${jobId(callId, 'call')} failed: bad payload for agent.call`) }]);
    // The sweep wrote nothing of the run: it sent a job.
    expect(await ds.getRepository(RunEntity).findOneByOrFail({ id: runId })).toMatchObject({ status: 'running', stage: 'PROPOSE' });
    const first = await applyHalt(runId);
    expect(first).toEqual({ reason: report.halted[0].reason, outcome: 'applied' });
    // The step halted it as the workflow halts: a decision from the stage it was in, run_halted,
    // and the closing call (the build runs one call at a time: nothing else is awaited).
    let run = await ds.getRepository(RunEntity).findOneByOrFail({ id: runId });
    expect(run).toMatchObject({ status: 'running', stage: 'SYNTHESIZE', haltReason: first.reason });
    const decisions = await ds.query(`SELECT from_stage, to_stage, reason FROM decisions WHERE run_id = $1 ORDER BY id DESC LIMIT 2`, [runId]);
    expect(decisions[1]).toEqual({ from_stage: 'PROPOSE', to_stage: 'HALTED', reason: first.reason });
    expect(decisions[0]).toMatchObject({ from_stage: 'HALTED', to_stage: 'SYNTHESIZE' });
    const [synthesizer] = await ds.getRepository(AgentCallEntity).find({ where: { runId, role: 'synthesizer' } });
    expect(synthesizer).toMatchObject({ stage: 'SYNTHESIZE', status: 'queued' });

    // That call's job fails for good too: the run is quiet again, and the next halt closes it fact-only.
    await failJob(queue, jobId(synthesizer.id, 'call'), new UnrecoverableError('bad payload for agent.call'));
    await quietFor2Hours(runId);
    expect((await reconciler.sweep()).halted).toHaveLength(1);
    expect((await applyHalt(runId)).outcome).toBe('applied');
    run = await ds.getRepository(RunEntity).findOneByOrFail({ id: runId });
    expect(run).toMatchObject({ status: 'halted' });
    const events: { type: string; sequence: number }[] = await ds.query(`SELECT type, sequence FROM run_events WHERE run_id = $1 ORDER BY sequence`, [runId]);
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['run_halted', 'synthesis_recorded', 'run_completed']));
    expect(events.at(-1)!.type).toBe('run_completed');
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1)); // gap-free
    expect(Number(run.eventSeq)).toBe(events.length);
    // A halted run is not swept again.
    expect((await reconciler.sweep()).halted).toEqual([]);

    expect(await steps.apply('run.resume', { runId }, jobId(runId, 'resume', 1))).toBe('applied');
    expect(await ds.getRepository(RunEntity).findOneByOrFail({ id: runId })).toMatchObject({ status: 'running', stage: 'PROPOSE', haltReason: null });
    const calls = await ds.getRepository(AgentCallEntity).find({ where: { runId, role: 'proposer' }, order: { seq: 'ASC' } });
    expect(calls.map((c) => c.status)).toEqual(['queued', 'queued']);
    expect(await producer.queue(queue).getJob(jobId(calls[1].id, 'call'))).toBeDefined();
  });

  it('leaves a run waiting at a gate alone however quiet, until its approval_timeout_s runs out: then it halts with the reason', async () => {
    const { runId } = await proposingRun();
    const waitAtGate = (config: Record<string, unknown>) =>
      ds.query(
        `UPDATE runs SET status = 'awaiting_approval', gate = '{"name":"criteria","subject":{}}'::jsonb, gate_opened_at = now() - interval '2 hours',
                         config = $2::jsonb, updated_at = now() - interval '2 hours' WHERE id = $1`,
        [runId, JSON.stringify(config)],
      );
    await waitAtGate(stored);
    // No timeout set: it waits as long as it takes, and holds nothing the sweep would resend.
    expect((await reconciler.sweep()).halted).toEqual([]);
    await waitAtGate({ ...stored, approval_timeout_s: 3600 });
    const report = await reconciler.sweep();
    expect(report.halted).toEqual([{ runId, reason: 'approval_timeout_s (3600 s) ran out at the criteria gate: nobody approved or refused it' }]);
    expect((await applyHalt(runId)).outcome).toBe('applied');
    const run = await ds.getRepository(RunEntity).findOneByOrFail({ id: runId });
    expect(run).toMatchObject({ haltReason: report.halted[0].reason, gate: null, gateOpenedAt: null });
    expect(run.status).not.toBe('awaiting_approval');
    // The two hours waited are kept apart: max_seconds does not count them.
    expect(Number(run.waitedSeconds)).toBeGreaterThanOrEqual(7200);
    const [halted] = await ds.query(`SELECT from_stage, to_stage FROM decisions WHERE run_id = $1 AND to_stage = 'HALTED'`, [runId]);
    expect(halted).toEqual({ from_stage: 'PROPOSE', to_stage: 'HALTED' });
    // Once halted it is no longer swept as a waiting run.
    expect((await reconciler.sweep()).halted).toEqual([]);
  });

  it('a running run with no pending work at all ends with its closing call', async () => {
    const { runId, prepareId } = await startedRun();
    // Its only op finished and was reported, yet no step followed (as if that step's writes were lost).
    await ds.getRepository(WorkspaceOpEntity).update({ id: prepareId }, { status: 'failed', error: 'x', finishedAt: new Date() });
    await ds.query(`INSERT INTO applied_events (run_id, event_key) VALUES ($1, $2)`, [runId, `workspace.done:${prepareId}`]);
    await quietFor2Hours(runId);
    const report = await reconciler.sweep();
    expect(report.halted).toEqual([{ runId, reason: expect.stringContaining('no work is pending for it') }]);
    expect((await applyHalt(runId)).outcome).toBe('applied');
    // Nothing in flight: the synthesizer gets its one call at once.
    const closing = await ds.getRepository(AgentCallEntity).find({ where: { runId, role: 'synthesizer' } });
    expect(closing.map((c) => [c.stage, c.status])).toEqual([['SYNTHESIZE', 'queued']]);
    expect(await ds.getRepository(RunEntity).findOneByOrFail({ id: runId })).toMatchObject({ stage: 'SYNTHESIZE', haltReason: report.halted[0].reason });
  });

  it('a halt is moot once a step moved the run after the sweep looked; sent twice, it is applied once', async () => {
    const { runId, callId } = await proposingRun();
    await failJob(agentQueueName('replay'), jobId(callId, 'call'), new UnrecoverableError('bad payload for agent.call'));
    await quietFor2Hours(runId);
    expect((await reconciler.sweep()).halted).toHaveLength(1);
    const jobs = await producer.queue(QUEUE.orchestrator).getJobs(['waiting']);
    const job = jobs.find((j) => j.name === 'run.halt' && j.data.runId === runId)!;
    // The same quiet spell swept again: the same job id, so BullMQ keeps one job.
    await reconciler.sweep();
    expect((await producer.queue(QUEUE.orchestrator).getJobs(['waiting'])).filter((j) => j.name === 'run.halt' && j.data.runId === runId)).toHaveLength(1);
    // A step moved the run in between (its updated_at is new): the halt changes nothing.
    await ds.query(`UPDATE runs SET updated_at = now() WHERE id = $1`, [runId]);
    expect(await steps.apply('run.halt', job.data, job.id)).toBe('ignored');
    expect(await ds.getRepository(RunEntity).findOneByOrFail({ id: runId })).toMatchObject({ status: 'running', stage: 'PROPOSE', haltReason: null });
  });

  it('two reconcilers at once send a lost job once, and a sweep lock held elsewhere makes a sweep skip', async () => {
    const { prepareId } = await startedRun();
    await deleteRedisPrefix(redis, prefix);
    const otherRedis = createRedisConnection(TEST_REDIS_URL);
    const otherProducer = new JobProducer(otherRedis, prefix);
    const other = new RunReconciler(ds, otherProducer, SETTINGS);
    try {
      const reports = await Promise.all([reconciler.sweep(), other.sweep()]);
      expect(reports.flatMap((r) => r.resent)).toEqual([{ kind: 'op', queue: QUEUE.workspace, jobId: jobId(prepareId, 'prepare') }]);
      const counts = await producer.queue(QUEUE.workspace).getJobCounts();
      expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(1);

      // Another replica in the middle of its sweep: this one does nothing.
      const holder = ds.createQueryRunner();
      await holder.connect();
      await holder.startTransaction();
      try {
        expect(await holder.query(`SELECT pg_try_advisory_xact_lock(hashtext('roundtable.reconciler')) AS locked`)).toEqual([{ locked: true }]);
        await deleteRedisPrefix(redis, prefix);
        expect(await other.sweep()).toMatchObject({ swept: false, resent: [] });
      } finally {
        await holder.rollbackTransaction();
        await holder.release();
      }
      expect((await other.sweep()).resent).toHaveLength(1);
    } finally {
      await otherProducer.close();
      otherRedis.disconnect();
    }
  });
});
