import { Queue } from 'bullmq';
import { jobId, QUEUE, RunStatus } from '@roundtable/contracts';
import { OutboxEntity, RunEntity } from '@roundtable/persistence';
import { createRedisConnection, type RedisClient, queuePrefix } from '@roundtable/queues';
import { ApiHarness, demoConfig, startApi } from './api-test-harness';

jest.setTimeout(30_000);

let api: ApiHarness;
let redis: RedisClient;
let queue: Queue;

beforeAll(async () => {
  api = await startApi();
  redis = createRedisConnection(api.env.REDIS_URL);
  queue = new Queue(QUEUE.orchestrator, { connection: redis, prefix: queuePrefix(api.env.QUEUE_PREFIX, QUEUE.orchestrator) });
});
afterAll(async () => {
  await queue?.close();
  redis?.disconnect();
  await api?.close();
});

type Reply = Record<string, unknown> & { error?: string; message?: string; issues?: { path: string; message: string }[] };

async function newRun(status: RunStatus): Promise<string> {
  const res = await fetch(`${api.base}/v1/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(demoConfig()) });
  const { id } = (await res.json()) as { id: string };
  await api.ds.getRepository(RunEntity).update({ id }, { status });
  return id;
}

async function post(path: string, body?: unknown): Promise<{ status: number; json: Reply; location: string | null }> {
  const res = await fetch(`${api.base}${path}`, {
    method: 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Reply, location: res.headers.get('location') };
}

const controlRows = (runId: string) =>
  api.ds.getRepository(OutboxEntity).find({ where: [{ runId, jobName: 'run.cancel' }, { runId, jobName: 'run.resume' }], order: { id: 'ASC' } });

describe('POST /v1/runs/:id/cancel', () => {
  it.each<RunStatus>(['queued', 'running'])('answers 202 for a %s run, with a run.cancel outbox row sent to the orchestrator queue', async (status) => {
    const id = await newRun(status);
    const res = await post(`/v1/runs/${id}/cancel`);
    expect(res.status).toBe(202);
    expect(res.json).toEqual({
      id,
      requested: 'cancel',
      status,
      job_id: jobId(id, 'cancel'),
      links: { self: `/v1/runs/${id}`, events: `/v1/runs/${id}/events`, report: `/v1/runs/${id}/report`, calls: `/v1/runs/${id}/calls` },
    });
    expect(res.location).toBe(`/v1/runs/${id}`);

    const rows = await controlRows(id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ queue: QUEUE.orchestrator, jobName: 'run.cancel', jobId: jobId(id, 'cancel'), payload: { runId: id } });
    expect(rows[0].sentAt).not.toBeNull();
    const job = await queue.getJob(jobId(id, 'cancel'));
    expect(job?.name).toBe('run.cancel');
    expect(job?.data).toEqual({ runId: id });
  });

  it.each<RunStatus>(['done', 'cancelled', 'failed', 'halted', 'needs_input'])('answers 409 for a run already %s, and writes no job', async (status) => {
    const id = await newRun(status);
    const res = await post(`/v1/runs/${id}/cancel`);
    expect(res.status).toBe(409);
    expect(res.json).toEqual({ error: 'run_finished', message: `run ${id} is already ${status}; there is nothing to cancel`, status });
    expect(await controlRows(id)).toEqual([]);
    expect(await queue.getJob(jobId(id, 'cancel'))).toBeUndefined();
  });

  it('answers 404 for an unknown run', async () => {
    const res = await post('/v1/runs/run_nope/cancel');
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ error: 'run_not_found', message: 'no run run_nope' });
  });
});

describe('POST /v1/runs/:id/resume', () => {
  it('answers 202 for a halted run and sends run.resume with from and caps', async () => {
    const id = await newRun('halted');
    const res = await post(`/v1/runs/${id}/resume`, { from: 'CRITIQUE', caps: { max_calls: 24, max_cost_usd: 7.5 } });
    expect(res.status).toBe(202);
    expect(res.json).toMatchObject({ id, requested: 'resume', status: 'halted', job_id: jobId(id, 'resume', 1) });

    const [row] = await controlRows(id);
    expect(row).toMatchObject({
      queue: QUEUE.orchestrator,
      jobName: 'run.resume',
      jobId: jobId(id, 'resume', 1),
      payload: { runId: id, from: 'CRITIQUE', caps: { max_calls: 24, max_cost_usd: 7.5 } },
    });
    expect(row.sentAt).not.toBeNull();
    const job = await queue.getJob(jobId(id, 'resume', 1));
    expect(job?.name).toBe('run.resume');
    expect(job?.data).toEqual({ runId: id, from: 'CRITIQUE', caps: { max_calls: 24, max_cost_usd: 7.5 } });
  });

  it('resumes a halted panel run, and refuses a failed one (its judges would say the same again) and a build stage', async () => {
    const halted = await newRun('halted');
    await api.ds.query(`UPDATE runs SET workflow = 'panel' WHERE id = $1`, [halted]);
    const res = await post(`/v1/runs/${halted}/resume`, { caps: { max_calls: 60 } });
    expect(res.status).toBe(202);
    expect((await queue.getJob(jobId(halted, 'resume', 1)))?.data).toEqual({ runId: halted, caps: { max_calls: 60 } });

    const failed = await newRun('failed');
    await api.ds.query(`UPDATE runs SET workflow = 'panel' WHERE id = $1`, [failed]);
    const refused = await post(`/v1/runs/${failed}/resume`);
    expect(refused.status).toBe(409);
    expect(refused.json).toEqual({ error: 'run_not_resumable', message: `run ${failed} is failed; only a halted run can be resumed`, status: 'failed' });
    expect(await controlRows(failed)).toEqual([]);

    const other = await newRun('halted');
    await api.ds.query(`UPDATE runs SET workflow = 'panel' WHERE id = $1`, [other]);
    const wrongStage = await post(`/v1/runs/${other}/resume`, { from: 'PROPOSE' });
    expect(wrongStage.status).toBe(400);
    expect(wrongStage.json).toMatchObject({ error: 'invalid_resume_request', message: expect.stringContaining('from: a panel run has no stage PROPOSE') });
    expect(await controlRows(other)).toEqual([]);
  });

  it.each<RunStatus>(['needs_input', 'failed'])('answers 202 for a %s run with no body: a plain resume', async (status) => {
    const id = await newRun(status);
    const res = await post(`/v1/runs/${id}/resume`);
    expect(res.status).toBe(202);
    expect((await queue.getJob(jobId(id, 'resume', 1)))?.data).toEqual({ runId: id });
  });

  it('gives every resume request its own job id, also when they race (the run row is locked while counting)', async () => {
    const id = await newRun('halted');
    const replies = await Promise.all(Array.from({ length: 5 }, () => post(`/v1/runs/${id}/resume`, {})));
    expect(replies.map((r) => r.status)).toEqual([202, 202, 202, 202, 202]);
    const expected = [1, 2, 3, 4, 5].map((n) => jobId(id, 'resume', n));
    expect(replies.map((r) => r.json.job_id).sort()).toEqual([...expected].sort());
    expect((await controlRows(id)).map((r) => r.jobId).sort()).toEqual([...expected].sort());
    for (const j of expected) expect(await queue.getJob(j)).toBeDefined();
  });

  it.each<RunStatus>(['queued', 'running', 'done', 'cancelled'])('answers 409 for a %s run, and writes no job', async (status) => {
    const id = await newRun(status);
    const res = await post(`/v1/runs/${id}/resume`, { caps: { max_calls: 30 } });
    expect(res.status).toBe(409);
    expect(res.json).toEqual({
      error: 'run_not_resumable',
      message: `run ${id} is ${status}; only a halted, needs_input, failed run can be resumed`,
      status,
    });
    expect(await controlRows(id)).toEqual([]);
  });

  it.each([
    [{ from: 'LUNCH' }, 'from'],
    [{ caps: { max_calls: 0 } }, 'caps.max_calls'],
    [{ caps: { max_tokens: 10.5 } }, 'caps.max_tokens'],
    [{ caps: { max_cost_usd: '5' } }, 'caps.max_cost_usd'],
    [{ caps: { max_fix_rounds: -1 } }, 'caps.max_fix_rounds'],
    [{ caps: { max_cals: 30 } }, 'caps.max_cals'],
    [{ caps: 30 }, 'caps'],
    [{ form: 'CRITIQUE' }, 'form'],
  ])('refuses %j with a 400 naming %s, before looking at the run', async (body, field) => {
    const id = await newRun('halted');
    const res = await post(`/v1/runs/${id}/resume`, body);
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('invalid_resume_request');
    expect(res.json.message).toContain(field);
    expect(res.json.issues?.[0].path).toBe(field);
    expect(await controlRows(id)).toEqual([]);
  });

  it('refuses a body that is not an object', async () => {
    const id = await newRun('halted');
    const res = await post(`/v1/runs/${id}/resume`, ['CRITIQUE']);
    expect(res.status).toBe(400);
    expect(res.json.message).toContain('JSON object');
  });

  it('answers 404 for an unknown run', async () => {
    expect((await post('/v1/runs/run_nope/resume', {})).status).toBe(404);
  });
});

describe('POST /v1/runs/:id/appeal', () => {
  const APPEAL = { evidence: ['a paid pilot'], judges: ['vc'] };

  async function panelRun(): Promise<string> {
    const id = await newRun('done');
    await api.ds.query(`UPDATE runs SET workflow = 'panel' WHERE id = $1`, [id]);
    return id;
  }
  const appealRows = (runId: string) => api.ds.getRepository(OutboxEntity).find({ where: { runId, jobName: 'run.appeal' }, order: { id: 'ASC' } });

  it('answers 409 appeal_pending while an earlier appeal waits for the orchestrator, and checks the run again once it is applied', async () => {
    const id = await panelRun();
    const waiting = jobId(id, 'appeal');
    // An appeal the api accepted earlier: its job in the outbox, counted on the run.
    await api.ds.getRepository(OutboxEntity).insert({ runId: id, queue: QUEUE.orchestrator, jobName: 'run.appeal', jobId: waiting, payload: { runId: id, ...APPEAL } });
    await api.ds.query(`UPDATE runs SET requests = '{"run.appeal": 1}' WHERE id = $1`, [id]);

    const pending = await post(`/v1/runs/${id}/appeal`, APPEAL);
    expect(pending).toMatchObject({ status: 409, json: { error: 'appeal_pending', status: 'done' } });
    expect(pending.json.message).toBe(`run ${id} has an appeal waiting to be applied; ask again once it has started or been refused`);
    expect(await appealRows(id)).toHaveLength(1);

    // Applied (and, as far as the run's state says, not used): the request goes on to the run's own checks.
    await api.ds.query(`INSERT INTO applied_events (run_id, event_key) VALUES ($1, $2)`, [id, `run.appeal:${waiting}`]);
    await api.ds.query(`UPDATE runs SET requests_applied = '{"run.appeal": 1}' WHERE id = $1`, [id]);
    const checked = await post(`/v1/runs/${id}/appeal`, APPEAL);
    expect(checked).toMatchObject({ status: 409, json: { error: 'appeal_not_allowed', message: `run ${id} cannot be appealed: the panel has no synthesis to appeal` } });
    expect(await appealRows(id)).toHaveLength(1);
  });

  it('refuses an unknown field or cap by name, and queues nothing', async () => {
    const id = await panelRun();
    expect(await post(`/v1/runs/${id}/appeal`, { ...APPEAL, cap: {} })).toMatchObject({
      status: 400,
      json: { error: 'invalid_appeal_request', message: 'cap is not a field of an appeal (evidence, evidence_ids, judges, caps)' },
    });
    expect(await post(`/v1/runs/${id}/appeal`, { ...APPEAL, caps: { max_call: 30 } })).toMatchObject({
      status: 400,
      json: { error: 'invalid_appeal_request', message: 'caps.max_call is not a field of an appeal' },
    });
    expect(await post(`/v1/runs/${id}/appeal`, { ...APPEAL, caps: { max_calls: 0 } })).toMatchObject({
      status: 400,
      json: { error: 'invalid_appeal_request', message: 'caps.max_calls must be above 0' },
    });
    expect(await appealRows(id)).toEqual([]);
  });
});
