import { readOperatorPolicy } from '@roundtable/contracts';
import { AgentCallEntity, OutboxEntity, RunEntity } from '@roundtable/persistence';
import { ApiHarness, demoConfig, startApi } from './api-test-harness';

jest.setTimeout(30_000);

/**
 * POST /v1/runs/:id/fork at the api (issue 22): a new run of the original's config with the edits
 * laid over it, queued with the original's calls before the stage as what it may copy; judged as
 * a new submission (schema and operator policy), so a write token asks for nothing it could not
 * submit; a read token may not fork; the original lists its forks and the fork names its origin.
 */
const TOKENS = { writer: 'w'.repeat(24), reader: 'r'.repeat(24) };
let api: ApiHarness;

beforeAll(async () => {
  api = await startApi({ API_TOKENS: [{ name: 'writer', token: TOKENS.writer, role: 'write' }, { name: 'reader', token: TOKENS.reader, role: 'read' }] }, { policy: readOperatorPolicy().policy });
});
afterAll(async () => {
  await api?.close();
});

async function call(method: 'GET' | 'POST', path: string, token: string, body?: unknown) {
  const res = await fetch(`${api.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each test reads the reply's fields it checks
  return { status: res.status, location: res.headers.get('location'), json: (await res.json()) as Record<string, any> };
}

/** A done demo run whose calls are P1 (PROPOSE), C1 and its repair (CRITIQUE), P2 (REVISE), as the orchestrator would have left them. */
async function endedRun(status = 'done'): Promise<string> {
  const res = await call('POST', '/v1/runs', TOKENS.writer, demoConfig());
  const runId = res.json.id as string;
  const rows = [
    { seq: 1, stage: 'PROPOSE', role: 'proposer', label: 'P1', attempt: 1 },
    { seq: 2, stage: 'CRITIQUE', role: 'critic', label: 'C1', attempt: 1 },
    { seq: 3, stage: 'CRITIQUE', role: 'critic', label: 'C1', attempt: 2 },
    { seq: 4, stage: 'REVISE', role: 'reviser', label: 'P2', attempt: 1 },
  ];
  await api.ds.getRepository(AgentCallEntity).insert(
    rows.map((r) => ({
      ...r, id: `${runId}-c${r.seq}`, runId, provider: 'replay', model: 'm', status: 'completed',
      promptHash: 'h', messages: [{ role: 'user', content: `prompt ${r.seq}` }], schemaName: 'Proposal', maxTokens: 100, temperature: 0.2, timeoutMs: 1000, inputTokens: 10, outputTokens: 5,
    })) as never,
  );
  await api.ds.query(`UPDATE runs SET status = $2, stage = 'DONE' WHERE id = $1`, [runId, status]);
  return runId;
}

describe('POST /v1/runs/:id/fork', () => {
  it('queues a new run with the edits laid over the original config, copying the calls before the stage, linked both ways', async () => {
    const original = await endedRun();
    const requirements = ['Returns 0.0 for an empty series', 'Standard library only'];
    const res = await call('POST', `/v1/runs/${original}/fork`, TOKENS.writer, { from: 'REVISE', edits: { requirements, budget: { max_calls: 20 } } });
    expect(res.status).toBe(202);
    expect(res.json).toMatchObject({ status: 'queued', forked_from: { run_id: original, stage: 'REVISE', copied_calls: 3 } });
    const fork = res.json.id as string;
    expect(fork).not.toBe(original);
    expect(res.location).toBe(`/v1/runs/${fork}`);

    const row = await api.ds.getRepository(RunEntity).findOneByOrFail({ id: fork });
    expect(row.forkedFrom).toEqual({
      run_id: original,
      stage: 'REVISE',
      calls: {
        'P1#1#0': { id: `${original}-c1`, role: 'proposer', stage: 'PROPOSE' },
        'C1#1#0': { id: `${original}-c2`, role: 'critic', stage: 'CRITIQUE' },
        'C1#2#0': { id: `${original}-c3`, role: 'critic', stage: 'CRITIQUE' },
      },
    });
    const config = row.config as { requirements: string[]; objective: string; budget: { max_calls: number; max_rounds: number } };
    expect(config.requirements).toEqual(requirements);
    // Objects are merged key by key: the rest of the budget and the objective are the original's.
    expect(config.budget).toMatchObject({ max_calls: 20, max_rounds: 3 });
    expect(config.objective).toBe(demoConfig().objective);
    expect(await api.ds.getRepository(OutboxEntity).countBy({ runId: fork, jobName: 'run.start' })).toBe(1);
    const [created] = await api.ds.query(`SELECT payload FROM run_events WHERE run_id = $1 AND type = 'run_created'`, [fork]);
    expect(created.payload).toMatchObject({ project: 'dd-demo', workflow: 'build', forked_from: { run_id: original, stage: 'REVISE' } });
    expect(created.payload.caps.max_calls).toBe(20);

    const forkView = await call('GET', `/v1/runs/${fork}`, TOKENS.reader);
    expect(forkView.json.forked_from).toEqual({ run_id: original, stage: 'REVISE', copied_calls: 3 });
    expect(forkView.json.forks).toEqual([]);
    // What the next fork's edits start from: the fork's own inputs, the edited list.
    expect(forkView.json.inputs).toEqual({ objective: demoConfig().objective, requirements });
    const originalView = await call('GET', `/v1/runs/${original}`, TOKENS.reader);
    expect(originalView.json.forked_from).toBeNull();
    expect(originalView.json.forks).toEqual([{ id: fork, stage: 'REVISE', status: 'queued' }]);
  });

  it('copies nothing when forked from the first stage that made a call, and forks a halted run too', async () => {
    const original = await endedRun('halted');
    const res = await call('POST', `/v1/runs/${original}/fork`, TOKENS.writer, { from: 'PROPOSE' });
    expect(res.status).toBe(202);
    expect(res.json.forked_from).toEqual({ run_id: original, stage: 'PROPOSE', copied_calls: 0 });
  });

  it('refuses a stage the run made no call at, naming the stages it did', async () => {
    const original = await endedRun();
    const res = await call('POST', `/v1/runs/${original}/fork`, TOKENS.writer, { from: 'TEST' });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('invalid_fork_request');
    expect(res.json.issues).toEqual([{ path: 'from', message: expect.stringContaining('made calls at PROPOSE, CRITIQUE, REVISE') }]);
  });

  it('refuses a body it does not understand, naming the field', async () => {
    const original = await endedRun();
    const bad = await call('POST', `/v1/runs/${original}/fork`, TOKENS.writer, { from: 'NOWHERE' });
    expect(bad.status).toBe(400);
    expect(bad.json.message).toMatch(/^from must be a stage: INIT, PROPOSE/);
    const extra = await call('POST', `/v1/runs/${original}/fork`, TOKENS.writer, { from: 'REVISE', stage: 'x' });
    expect(extra.status).toBe(400);
    expect(extra.json.message).toContain('stage is not a field of a fork request');
    const wf = await call('POST', `/v1/runs/${original}/fork`, TOKENS.writer, { from: 'REVISE', edits: { workflow: 'panel' } });
    expect(wf.status).toBe(400);
    expect(wf.json.message).toContain('edits.workflow cannot change');
  });

  it('judges the forked config as a submission: an edit the schema or the policy refuses is a 400 naming its field, and no run is made', async () => {
    const original = await endedRun();
    const before = await api.ds.getRepository(RunEntity).count();
    const schema = await call('POST', `/v1/runs/${original}/fork`, TOKENS.writer, { from: 'REVISE', edits: { requirements: 'not a list' } });
    expect(schema.status).toBe(400);
    expect(schema.json.error).toBe('invalid_project_config');
    expect(JSON.stringify(schema.json.issues)).toContain('requirements');
    // What a write token might try: a provider URL of its own (the key would go there), a CLI binary, a repository outside the roots.
    const url = await call('POST', `/v1/runs/${original}/fork`, TOKENS.writer, {
      from: 'REVISE',
      edits: { providers: { evil: { type: 'openai', base_url: 'http://attacker.invalid/v1', api_key_env: 'OPENAI_API_KEY' } }, agents: { critic: { provider: 'evil', model: 'gpt-5' } } },
    });
    expect(url.status).toBe(400);
    expect(url.json.error).toBe('invalid_project_config');
    expect(JSON.stringify(url.json.issues)).toContain('providers.evil');
    const repo = await call('POST', `/v1/runs/${original}/fork`, TOKENS.writer, { from: 'REVISE', edits: { repo: '/etc' } });
    expect(repo.status).toBe(400);
    expect(JSON.stringify(repo.json.issues)).toContain('repo');
    expect(await api.ds.getRepository(RunEntity).count()).toBe(before);
  });

  it('409 while the run has not ended, 404 for no run, 403 for a read token', async () => {
    const running = await endedRun('running');
    const busy = await call('POST', `/v1/runs/${running}/fork`, TOKENS.writer, { from: 'REVISE' });
    expect(busy.status).toBe(409);
    expect(busy.json).toMatchObject({ error: 'run_not_ended', status: 'running' });
    expect((await call('POST', '/v1/runs/run_nothere00/fork', TOKENS.writer, { from: 'REVISE' })).status).toBe(404);
    const read = await call('POST', `/v1/runs/${running}/fork`, TOKENS.reader, { from: 'REVISE' });
    expect(read.status).toBe(403);
  });

  it("refuses to copy an agent-mode engineer's tool turns, which share one label", async () => {
    const original = await endedRun();
    await api.ds.getRepository(AgentCallEntity).insert(
      [5, 6].map((seq) => ({
        id: `${original}-c${seq}`, runId: original, seq, stage: 'IMPLEMENT', role: 'engineer', provider: 'replay', model: 'm', label: 'I1', attempt: 1, status: 'completed',
        promptHash: 'h', messages: [], schemaName: 'EngineerTurn', maxTokens: 100, temperature: 0.2, timeoutMs: 1000,
      })) as never,
    );
    await api.ds.getRepository(AgentCallEntity).insert({
      id: `${original}-c7`, runId: original, seq: 7, stage: 'REVIEW', role: 'validator', provider: 'replay', model: 'm', label: 'R1', attempt: 1, status: 'completed',
      promptHash: 'h', messages: [], schemaName: 'Review', maxTokens: 100, temperature: 0.2, timeoutMs: 1000,
    } as never);
    const res = await call('POST', `/v1/runs/${original}/fork`, TOKENS.writer, { from: 'REVIEW' });
    expect(res.status).toBe(400);
    expect(res.json.message).toContain('several turns of I1');
    expect((await call('POST', `/v1/runs/${original}/fork`, TOKENS.writer, { from: 'IMPLEMENT' })).status).toBe(202);
  });
});

describe("GET /v1/runs/:id leaves a fork's copied calls out of its usage", () => {
  it('counts only the calls the run asked for itself', async () => {
    const original = await endedRun();
    const res = await call('POST', `/v1/runs/${original}/fork`, TOKENS.writer, { from: 'REVISE' });
    const fork = res.json.id as string;
    await api.ds.getRepository(AgentCallEntity).insert([
      { id: `${fork}-c1`, runId: fork, seq: 1, stage: 'PROPOSE', role: 'proposer', provider: 'replay', model: 'm', label: 'P1', attempt: 1, status: 'completed', copiedFrom: `${original}-c1`, inputTokens: 10, outputTokens: 5, costUsd: 0.5, promptHash: 'h', messages: [], schemaName: 'Proposal', maxTokens: 100, temperature: 0.2, timeoutMs: 1000 },
      { id: `${fork}-c2`, runId: fork, seq: 2, stage: 'REVISE', role: 'reviser', provider: 'replay', model: 'm', label: 'P2', attempt: 1, status: 'completed', inputTokens: 7, outputTokens: 3, costUsd: 0.25, promptHash: 'h', messages: [], schemaName: 'Proposal', maxTokens: 100, temperature: 0.2, timeoutMs: 1000 },
    ] as never);
    const view = await call('GET', `/v1/runs/${fork}`, TOKENS.reader);
    expect(view.json.usage).toMatchObject({ calls: 1, input_tokens: 7, output_tokens: 3, cost_usd: 0.25 });
    const list = await call('GET', `/v1/runs?limit=50`, TOKENS.reader);
    expect((list.json as unknown as { id: string; usage: unknown }[]).find((r) => r.id === fork)?.usage).toEqual({ calls: 1, tokens: 10, cost_usd: 0.25 });
    const calls = await call('GET', `/v1/runs/${fork}/calls`, TOKENS.reader);
    expect((calls.json as unknown as { id: string; copied_from: string | null }[]).map((c) => [c.id, c.copied_from])).toEqual([
      [`${fork}-c1`, `${original}-c1`],
      [`${fork}-c2`, null],
    ]);
  });
});
