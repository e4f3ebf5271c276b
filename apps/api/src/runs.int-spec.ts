import { Queue } from 'bullmq';
import { stringify as toYaml } from 'yaml';
import { jobId, QUEUE, type ProjectConfig } from '@roundtable/contracts';
import { AgentCallEntity, OutboxEntity, ProjectEntity, RunEntity, RunEventEntity } from '@roundtable/persistence';
import { createRedisConnection, queuePrefix } from '@roundtable/queues';
import { ApiHarness, demoConfig, startApi } from './api-test-harness';

jest.setTimeout(30_000);

let api: ApiHarness;

beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await api?.close();
});

interface Issue {
  path: string;
  message: string;
}
/** The fields these tests read from a reply; each test reads those its route returns. */
interface Reply {
  id: string;
  error: string;
  message: string;
  issues: Issue[];
  [field: string]: unknown;
}
type Row = Record<string, unknown>;

async function post(body: string, contentType: string): Promise<{ status: number; json: Reply; headers: Headers }> {
  const res = await fetch(`${api.base}/v1/runs`, { method: 'POST', headers: { 'content-type': contentType }, body });
  return { status: res.status, json: (await res.json()) as Reply, headers: res.headers };
}
const postJson = (cfg: unknown) => post(JSON.stringify(cfg), 'application/json');
async function getJson<T = Reply>(path: string): Promise<{ status: number; json: T }> {
  const res = await fetch(`${api.base}${path}`);
  return { status: res.status, json: (await res.json()) as T };
}
const runCount = () => api.ds.getRepository(RunEntity).count();

describe('POST /v1/runs', () => {
  it('queues a run from a JSON config: rows, run_created event and the run.start job, in one go', async () => {
    const res = await postJson(demoConfig());
    expect(res.status).toBe(202);
    const id: string = res.json.id;
    expect(id).toMatch(/^run_[0-9a-f]{10}$/);
    expect(res.json).toEqual({
      id,
      status: 'queued',
      links: { self: `/v1/runs/${id}`, events: `/v1/runs/${id}/events`, report: `/v1/runs/${id}/report`, calls: `/v1/runs/${id}/calls` },
    });
    expect(res.headers.get('location')).toBe(`/v1/runs/${id}`);

    const run = await api.ds.getRepository(RunEntity).findOneByOrFail({ id });
    expect(run).toMatchObject({ status: 'queued', stage: 'INIT', workflow: 'build' });
    expect((run.config as unknown as ProjectConfig).providers.replay).toHaveProperty('cassette', demoConfig().providers.replay.cassette);
    expect((run.config as unknown as ProjectConfig).budget.max_calls).toBe(16);
    const project = await api.ds.getRepository(ProjectEntity).findOneByOrFail({ id: run.projectId });
    expect(project.id).toMatch(/^prj_[0-9a-f]{10}$/);
    expect(project.name).toBe('dd-demo');
    expect(project.requirements).toHaveLength(3);

    const events = await api.ds.getRepository(RunEventEntity).find({ where: { runId: id } });
    // With the caps the run starts with, so a follower draws its first part against them after a resume raised some (issue 22).
    const caps = { max_rounds: 3, max_fix_rounds: 1, max_calls: 16, max_tokens: 200_000, max_cost_usd: 5, max_seconds: 900 };
    expect(events.map((e) => [e.sequence, e.type, e.payload])).toEqual([[1, 'run_created', { project: 'dd-demo', workflow: 'build', caps }]]);
    const outbox = await api.ds.getRepository(OutboxEntity).findOneByOrFail({ runId: id });
    expect(outbox).toMatchObject({ queue: QUEUE.orchestrator, jobName: 'run.start', jobId: jobId(id, 'start') });
    expect(outbox.sentAt).not.toBeNull();

    const redis = createRedisConnection(api.env.REDIS_URL);
    const queue = new Queue(QUEUE.orchestrator, { connection: redis, prefix: queuePrefix(api.env.QUEUE_PREFIX, QUEUE.orchestrator) });
    try {
      const job = await queue.getJob(jobId(id, 'start'));
      expect(job?.name).toBe('run.start');
      expect(job?.data).toEqual({ runId: id });
    } finally {
      await queue.close();
      redis.disconnect();
    }
  });

  it.each(['application/yaml', 'text/yaml', 'application/x-yaml', 'text/plain'])('accepts the config as YAML text (%s)', async (type) => {
    const res = await post(toYaml(demoConfig()), type);
    expect(res.status).toBe(202);
    const run = await api.ds.getRepository(RunEntity).findOneByOrFail({ id: res.json.id });
    expect((run.config as unknown as ProjectConfig).project).toBe('dd-demo');
  });

  it('answers malformed YAML with a 400 that gives the line', async () => {
    const before = await runCount();
    const res = await post('project: dd-demo\nobjective: [unclosed\nproviders: {}\n', 'application/yaml');
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('invalid_project_config');
    expect(res.json.message).toMatch(/line \d+/);
    expect(res.json.issues[0].message).toBe('line 2, column 12: malformed YAML: this "[" is never closed: a "]" is missing before line 3, column 1');
    expect(await runCount()).toBe(before);
  });

  it('answers malformed JSON with a 400 that says so', async () => {
    const res = await post('{"project": "dd-demo",', 'application/json');
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('malformed_body');
    expect(res.json.message).toBe('malformed JSON body: line 1, column 1: this "{" is never closed: a "}" is missing before the end of the text');
    expect(res.json).toMatchObject({ line: 1, column: 1 });
    expect(JSON.stringify(res.json)).not.toMatch(/at .*\.js:\d+/);
  });

  it('refuses a body that is neither JSON nor YAML with 415', async () => {
    const res = await post('project=dd-demo', 'application/x-www-form-urlencoded');
    expect(res.status).toBe(415);
    expect(res.json.error).toBe('unsupported_media_type');
    expect(res.json.message).toContain('application/yaml');
  });

  it('names an unknown provider by the field that refers to it', async () => {
    const cfg = demoConfig();
    cfg.agents.critic.provider = 'nosuch';
    const res = await postJson(cfg);
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('invalid_project_config');
    expect(res.json.issues).toContainEqual({ path: 'agents.critic.provider', message: expect.stringContaining('"nosuch"') });
  });

  // The trust boundary (issue 12): a posted ${VAR} is refused, never expanded from the api's environment.
  it('refuses a variable the config leaves for the server to expand, naming the field', async () => {
    process.env.NOPE_MODEL = 'expanded-from-the-server';
    try {
      const cfg = demoConfig();
      cfg.agents.critic.model = '${NOPE_MODEL}';
      const res = await postJson(cfg);
      expect(res.status).toBe(400);
      expect(res.json.message).toContain('agents.critic.model');
      expect(res.json.issues).toContainEqual({ path: 'agents.critic.model', message: expect.stringContaining('never expand variables') });
      expect(JSON.stringify(res.json)).not.toContain('expanded-from-the-server');
    } finally {
      delete process.env.NOPE_MODEL;
    }
  });

  it('names the provider and the variable when an api_key_env is not set', async () => {
    delete process.env.RT_TEST_NO_SUCH_KEY;
    const cfg = demoConfig();
    cfg.providers.anthropic = { type: 'anthropic', api_key_env: 'RT_TEST_NO_SUCH_KEY' };
    cfg.agents.critic.provider = 'anthropic';
    const res = await postJson(cfg);
    expect(res.status).toBe(400);
    const issue = res.json.issues.find((i) => i.path === 'providers.anthropic.api_key_env');
    expect(issue?.message).toContain('"anthropic"');
    expect(issue?.message).toContain('RT_TEST_NO_SUCH_KEY');
  });

  it('refuses a relative cassette path, naming the field', async () => {
    const cfg = demoConfig();
    cfg.providers.replay.cassette = 'cassette.yaml';
    const res = await postJson(cfg);
    expect(res.status).toBe(400);
    expect(res.json.issues).toEqual([{ path: 'providers.replay.cassette', message: expect.stringContaining('relative') }]);
  });

  it('refuses paths the services could not read, listing every one', async () => {
    const before = await runCount();
    const cfg = demoConfig();
    // Under /tmp, a root of the suite's policy: a path outside every root is refused before its existence is asked (trust-boundary.int-spec.ts).
    cfg.providers.replay.cassette = '/tmp/nonexistent/rt-test/cassette.yaml';
    cfg.repo = '/tmp/nonexistent/rt-test/repo';
    const res = await postJson(cfg);
    expect(res.status).toBe(400);
    expect(res.json.issues).toEqual(
      expect.arrayContaining([
        { path: 'providers.replay.cassette', message: expect.stringContaining('/tmp/nonexistent/rt-test/cassette.yaml') },
        { path: 'repo', message: expect.stringContaining('/tmp/nonexistent/rt-test/repo') },
      ]),
    );
    expect(res.json.message).toContain('/tmp/nonexistent/rt-test/cassette.yaml');
    expect(await runCount()).toBe(before);
  });

  it('refuses a cassette path that is a directory', async () => {
    const cfg = demoConfig();
    cfg.providers.replay.cassette = '/tmp';
    const res = await postJson(cfg);
    expect(res.status).toBe(400);
    expect(res.json.issues).toEqual([{ path: 'providers.replay.cassette', message: '/tmp is not a file' }]);
  });
});

describe('reading runs', () => {
  let runId: string;

  const call = (over: Partial<AgentCallEntity>): Partial<AgentCallEntity> => ({
    runId,
    stage: 'PROPOSE',
    role: 'proposer',
    provider: 'replay',
    model: 'claude-sonnet-4-5',
    attempt: 1,
    status: 'completed',
    promptHash: 'h',
    messages: [{ role: 'user', content: 'propose' }],
    contextRefs: [],
    schemaName: 'proposal',
    ...over,
  });

  beforeAll(async () => {
    const res = await postJson(demoConfig());
    runId = res.json.id;
    await api.ds.getRepository(RunEntity).update({ id: runId }, { status: 'running', stage: 'CRITIQUE', round: 1, startedAt: new Date(Date.now() - 30_000) });
    await api.ds.getRepository(AgentCallEntity).insert([
      call({ id: `${runId}-c1`, seq: 1, label: 'P1', valid: true, inputTokens: 1000, outputTokens: 300, costUsd: 0.012, costSource: 'pricing', responseText: '{"proposal_id":"P1"}', parsed: { proposal_id: 'P1' }, finishedAt: new Date() }),
      call({ id: `${runId}-c2`, seq: 2, stage: 'CRITIQUE', role: 'critic', provider: 'other', model: 'grok-4', label: 'C1', valid: false, error: 'missing verdict', errorCode: 'SCHEMA_INVALID', inputTokens: 800, outputTokens: 100, schemaName: 'critique', argv: ['grok', '--json'] }),
      call({ id: `${runId}-c3`, seq: 3, stage: 'CRITIQUE', role: 'critic', provider: 'other', model: 'grok-4', attempt: 2, status: 'failed', error: 'timeout', errorCode: 'TIMEOUT', schemaName: 'critique' }),
      call({ id: `${runId}-c4`, seq: 4, stage: 'CRITIQUE', role: 'critic', provider: 'other', model: 'grok-4', status: 'queued', schemaName: 'critique' }),
    ] as never);
  });

  it('404s an unknown run', async () => {
    const res = await getJson('/v1/runs/run_nope');
    expect(res).toEqual({ status: 404, json: { error: 'run_not_found', message: 'no run run_nope' } });
  });

  it('shows a run with its usage, from finished calls only, against its caps', async () => {
    const res = await getJson(`/v1/runs/${runId}`);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      id: runId,
      project: 'dd-demo',
      workflow: 'build',
      status: 'running',
      stage: 'CRITIQUE',
      round: 1,
      fix_round: 0,
      verdict: null,
      confidence: null,
      halt_reason: null,
      criteria: null,
      finished_at: null,
      caps: { max_calls: 16, max_tokens: 200000, max_cost_usd: 5, max_seconds: 900, max_rounds: 3, max_fix_rounds: 1, per_provider: {} },
      usage_by_provider: {
        replay: { calls: 1, input_tokens: 1000, output_tokens: 300, cost_usd: 0.012 },
        other: { calls: 2, input_tokens: 800, output_tokens: 100, cost_usd: null },
      },
    });
    expect(res.json.usage).toMatchObject({ calls: 3, failed_calls: 2, input_tokens: 1800, output_tokens: 400, tokens: 2200, cost_usd: 0.012, unpriced_calls: 1 });
    expect((res.json.usage as { seconds: number }).seconds).toBeGreaterThanOrEqual(29);
    expect(Date.parse(res.json.created_at as string)).not.toBeNaN();
    expect(Date.parse(res.json.started_at as string)).not.toBeNaN();
  });

  it('lists runs newest first, filtered by status and limited', async () => {
    const all = await getJson<Row[]>('/v1/runs');
    expect(all.status).toBe(200);
    expect(all.json.length).toBeGreaterThanOrEqual(2);
    const created = all.json.map((r) => Date.parse(r.created_at as string));
    expect([...created].sort((a, b) => b - a)).toEqual(created);
    expect(Object.keys(all.json[0]).sort()).toEqual(['created_at', 'finished_at', 'id', 'project', 'stage', 'status', 'usage', 'verdict', 'workflow']);

    const running = await getJson<Row[]>('/v1/runs?status=running');
    expect(running.json.map((r) => r.id)).toEqual([runId]);
    const one = await getJson<Row[]>('/v1/runs?limit=1');
    expect(one.json).toHaveLength(1);
  });

  it("gives each listed run its finished calls' count, tokens and known cost, as GET /v1/runs/:id counts them", async () => {
    const other = (await postJson(demoConfig())).json.id;
    await api.ds.getRepository(AgentCallEntity).insert([
      call({ runId: other, id: `${other}-c1`, seq: 1, label: 'P1', inputTokens: 50, outputTokens: 7, finishedAt: new Date() }),
    ] as never);
    const usageOf = (list: Row[], id: string) => list.find((r) => r.id === id)?.usage;
    const list = (await getJson<Row[]>('/v1/runs?limit=500')).json;
    // The run above: three finished calls (the queued one is not counted), one priced.
    expect(usageOf(list, runId)).toEqual({ calls: 3, tokens: 2200, cost_usd: 0.012 });
    expect(usageOf(list, other)).toEqual({ calls: 1, tokens: 57, cost_usd: null });
    const detail = (await getJson<{ usage: Row }>(`/v1/runs/${runId}`)).json.usage;
    expect({ calls: detail.calls, tokens: detail.tokens, cost_usd: detail.cost_usd }).toEqual(usageOf(list, runId));
    // A run without calls: zeros, and no cost claimed.
    const idle = (await postJson(demoConfig())).json.id;
    expect(usageOf((await getJson<Row[]>('/v1/runs?limit=500')).json, idle)).toEqual({ calls: 0, tokens: 0, cost_usd: null });
  });

  it('filters the list by workflow', async () => {
    const panel = (await postJson(demoConfig())).json.id;
    await api.ds.query(`UPDATE runs SET workflow = 'panel' WHERE id = $1`, [panel]);
    const panels = (await getJson<Row[]>('/v1/runs?workflow=panel&limit=500')).json;
    expect(panels.map((r) => r.id)).toEqual([panel]);
    const builds = (await getJson<Row[]>('/v1/runs?workflow=build&limit=500')).json;
    expect(builds.length).toBeGreaterThan(0);
    expect(builds.every((r) => r.workflow === 'build')).toBe(true);
    expect(builds.map((r) => r.id)).toContain(runId);
    expect((await getJson<Row[]>('/v1/runs?workflow=panel&status=running')).json).toEqual([]);
  });

  it.each([
    ['/v1/runs?status=bogus', 'status'],
    ['/v1/runs?limit=0', 'limit'],
    ['/v1/runs?limit=ten', 'limit'],
    ['/v1/runs?workflow=debate', 'workflow'],
    ['/v1/runs?workflow=build&workflow=panel', 'workflow'],
  ])('refuses a bad list filter %s, naming it', async (path, name) => {
    const res = await getJson(path);
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('invalid_query');
    expect(res.json.message).toContain(name);
    if (name === 'workflow') expect(res.json.message).toBe('workflow must be one of build, panel, experiment (given once)');
  });

  it('lists calls in order, filtered by role, stage and failure', async () => {
    const all = await getJson<Row[]>(`/v1/runs/${runId}/calls`);
    expect(all.status).toBe(200);
    expect(all.json.map((c) => c.seq)).toEqual([1, 2, 3, 4]);
    expect(all.json[0]).toMatchObject({ id: `${runId}-c1`, label: 'P1', input_tokens: 1000, cost_usd: 0.012, cost_source: 'pricing', valid: true });
    expect(all.json[0].messages).toBeUndefined();

    const ids = async (q: string) => (await getJson<Row[]>(`/v1/runs/${runId}/calls?${q}`)).json.map((c) => String(c.id).split('-').pop());
    expect(await ids('role=critic')).toEqual(['c2', 'c3', 'c4']);
    expect(await ids('stage=PROPOSE')).toEqual(['c1']);
    expect(await ids('failed=true')).toEqual(['c2', 'c3']);
    expect(await ids('failed=false')).toEqual(['c1', 'c4']);
    expect(await ids('role=critic&failed=false')).toEqual(['c4']);
  });

  it.each([
    ['role=judge', 'role'],
    ['stage=LUNCH', 'stage'],
    ['failed=yes', 'failed'],
  ])('refuses a bad calls filter %s, naming it', async (q, name) => {
    const res = await getJson(`/v1/runs/${runId}/calls?${q}`);
    expect(res.status).toBe(400);
    expect(res.json.message).toContain(name);
    expect(res.json.issues[0].path).toBe(name);
  });

  it('shows one call in full and 404s unknown calls and runs', async () => {
    const res = await getJson(`/v1/runs/${runId}/calls/${runId}-c2`);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      id: `${runId}-c2`,
      run_id: runId,
      messages: [{ role: 'user', content: 'propose' }],
      context_refs: [],
      schema_name: 'critique',
      prompt_hash: 'h',
      argv: ['grok', '--json'],
      valid: false,
      error_code: 'SCHEMA_INVALID',
      response_text: null,
      parsed: null,
      // 'critique' is no schema this version knows (they are named as AGENT_SCHEMAS names them: Critique …).
      schema: null,
    });
    expect((await getJson(`/v1/runs/${runId}/calls/nope`)).json).toEqual({ error: 'call_not_found', message: `no call nope in run ${runId}` });
    expect((await getJson(`/v1/runs/run_nope/calls`)).json.error).toBe('run_not_found');
    expect((await getJson(`/v1/runs/run_nope/calls/x`)).status).toBe(404);
  });

  it('renders the report as markdown', async () => {
    const res = await fetch(`${api.base}/v1/runs/${runId}/report`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    const text = await res.text();
    expect(text).toContain(`# dd-demo — run ${runId}`);
    expect(text).toContain('## Audit');
    // c2 had no price: the report gives the known sum and says how many calls it leaves out, never a bare n/a.
    expect(text).toMatch(/3 agent calls \(2 failed\), 2,200 tokens .*cost \$0\.01 \+ 1 call unpriced/);
  });

  it('answers a report for an unknown run with a JSON 404', async () => {
    const res = await fetch(`${api.base}/v1/runs/run_nope/report`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(await res.json()).toEqual({ error: 'run_not_found', message: 'no run run_nope' });
  });
});
