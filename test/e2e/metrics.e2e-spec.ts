import path from 'node:path';
import { healthUrl, Pipeline, projectConfigFrom, startPipeline, TERMINAL_STATUSES, waitFor, type RunningService } from '@roundtable/testing';

jest.setTimeout(180_000);

const REPO = path.resolve(__dirname, '../..');
const DEMO = path.join(REPO, 'examples/dd-demo/project.yaml');
const HALT_CASSETTE = path.join(REPO, 'test/fixtures/budget-halt/cassette.yaml');
const TOKEN = 'e2e-metrics-token-0123456789';

/** One sample's value from a Prometheus text exposition, by its exact name and labels; undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+)\{([^}]*)\} (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = m[2].split(/,(?=[a-z_]+=")/);
    if (want.every((w) => have.includes(w))) return Number(m[3]);
  }
  return undefined;
}

/** Sum of every sample of a family whose labels include `labels`. */
function total(text: string, name: string, labels: Record<string, string> = {}): number {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  return text
    .split('\n')
    .map((line) => /^([a-z_]+)\{([^}]*)\} (\S+)$/.exec(line))
    .filter((m): m is RegExpExecArray => !!m && m[1] === name && want.every((w) => m[2].split(/,(?=[a-z_]+=")/).includes(w)))
    .reduce((n, m) => n + Number(m[3]), 0);
}

const FAMILIES = [
  'roundtable_queue_jobs',
  'roundtable_job_duration_seconds',
  'roundtable_agent_calls_total',
  'roundtable_agent_tokens_total',
  'roundtable_agent_cost_usd_total',
  'roundtable_run_outcomes_total',
  'roundtable_budget_halts_total',
  'roundtable_sandbox_runs_total',
  'roundtable_sandbox_run_duration_seconds',
];

/**
 * The whole system behind its doors (API_TOKENS set on the api process), one demo run to done and
 * one run halted by max_calls, then every service's /metrics: the worker ops ports (HEALTH_PORT) and
 * the api's own /metrics with a token.
 */
describe('metrics and logs across real services', () => {
  let pipeline: Pipeline;
  let done: string;
  let halted: string;

  const api = (p: string, init: RequestInit = {}) =>
    fetch(`${pipeline.api}${p}`, { ...init, headers: { authorization: `Bearer ${TOKEN}`, ...(init.headers as Record<string, string>) } });
  const service = (name: RunningService['name']) => pipeline.services.find((s) => s.name === name)!;
  const scrape = async (name: RunningService['name']) => {
    const res = await fetch(`${await healthUrl(service(name))}/metrics`);
    expect(res.status).toBe(200);
    return res.text();
  };

  async function runToEnd(config: Record<string, unknown>): Promise<string> {
    const res = await api('/v1/runs', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(config) });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    await waitFor(
      `run ${id} to end`,
      async () => {
        const run = (await (await api(`/v1/runs/${id}`)).json()) as { status: string };
        return (TERMINAL_STATUSES as readonly string[]).includes(run.status) ? run : undefined;
      },
      120_000,
    ).catch((e: Error) => {
      throw new Error(`${e.message}\n${pipeline.logs()}`);
    });
    return id;
  }

  beforeAll(async () => {
    pipeline = await startPipeline({ providerQueues: 'replay', env: { API_TOKENS: `e2e:${TOKEN}:write` } });
    done = await runToEnd(projectConfigFrom(DEMO));
    halted = await runToEnd(projectConfigFrom(DEMO, { budget: { max_calls: 4 }, providers: { replay: { type: 'replay', cassette: HALT_CASSETTE } } }));
  });

  afterAll(async () => {
    await pipeline?.stop();
  });

  it('ran one demo to done and one to a max_calls halt, through the token door', async () => {
    const status = async (id: string) => ((await (await api(`/v1/runs/${id}`)).json()) as { status: string }).status;
    expect([await status(done), await status(halted)]).toEqual(['done', 'halted']);
    expect((await fetch(`${pipeline.api}/v1/runs/${done}`)).status).toBe(401);
  });

  it("the api's /metrics needs a token on its port; its internal ops port (HEALTH_PORT) serves the same without one", async () => {
    expect((await fetch(`${pipeline.api}/metrics`)).status).toBe(401);
    const ops = await fetch(`${await healthUrl(service('api'))}/metrics`);
    expect(ops.status).toBe(200);
    expect(sample(await ops.text(), 'roundtable_queue_jobs', { queue: 'agent.replay', state: 'completed', service: 'api' })).toBe(13);
  });

  it('every service exposes every family', async () => {
    const texts = [await (await api('/metrics')).text(), ...(await Promise.all((['orchestrator', 'provider-worker', 'test-runner'] as const).map(scrape)))];
    for (const text of texts) for (const family of FAMILIES) expect(text).toContain(`# TYPE ${family} `);
  });

  it('queue depth by queue and state, the same from the api and any worker (what KEDA scales on)', async () => {
    const fromApi = await (await api('/metrics')).text();
    const fromWorker = await scrape('provider-worker');
    // 8 calls for the demo, 5 for the halted run; completed jobs are kept (removeOnComplete: 1000).
    expect(sample(fromApi, 'roundtable_queue_jobs', { queue: 'agent.replay', state: 'completed', service: 'api' })).toBe(13);
    expect(sample(fromWorker, 'roundtable_queue_jobs', { queue: 'agent.replay', state: 'completed', service: 'provider-worker' })).toBe(13);
    for (const queue of ['orchestrator', 'workspace', 'tests', 'agent.replay']) {
      for (const state of ['waiting', 'active', 'delayed', 'prioritized', 'failed']) {
        expect(sample(fromApi, 'roundtable_queue_jobs', { queue, state })).toBe(0);
      }
    }
  });

  it('agent calls, tokens and USD by provider and model, from the provider-worker', async () => {
    const text = await scrape('provider-worker');
    const rows = await pipeline.sql<{ model: string; n: number; input: number; output: number }>(
      `SELECT model, count(*)::int AS n, sum(input_tokens)::int AS input, sum(output_tokens)::int AS output FROM agent_calls GROUP BY model`,
    );
    expect(rows.length).toBeGreaterThanOrEqual(3);
    for (const r of rows) {
      expect(sample(text, 'roundtable_agent_calls_total', { provider: 'replay', model: r.model, status: 'completed' })).toBe(r.n);
      expect(sample(text, 'roundtable_agent_tokens_total', { provider: 'replay', model: r.model, direction: 'input' })).toBe(r.input);
      expect(sample(text, 'roundtable_agent_tokens_total', { provider: 'replay', model: r.model, direction: 'output' })).toBe(r.output);
    }
    expect(total(text, 'roundtable_agent_calls_total')).toBe(13);
    const [{ usd }] = await pipeline.sql<{ usd: string }>(`SELECT sum(cost_usd) AS usd FROM agent_calls`);
    expect(total(text, 'roundtable_agent_cost_usd_total')).toBeCloseTo(Number(usd), 6);
    expect(sample(text, 'roundtable_job_duration_seconds_count', { queue: 'agent.replay', name: 'agent.call', outcome: 'completed' })).toBe(13);
  });

  it('run outcomes and budget halts, from the orchestrator', async () => {
    const text = await scrape('orchestrator');
    expect(sample(text, 'roundtable_run_outcomes_total', { workflow: 'build', status: 'done' })).toBe(1);
    expect(sample(text, 'roundtable_run_outcomes_total', { workflow: 'build', status: 'halted' })).toBe(1);
    expect(sample(text, 'roundtable_budget_halts_total', { cap: 'max_calls' })).toBe(1);
    expect(sample(text, 'roundtable_job_duration_seconds_count', { queue: 'orchestrator', name: 'run.start', outcome: 'completed' })).toBe(2);
  });

  it('sandbox runs by runner and outcome, and their durations, from the test-runner', async () => {
    const text = await scrape('test-runner');
    const tests = await pipeline.sql<{ runner: string; exit_code: number }>(`SELECT runner, exit_code FROM test_runs ORDER BY label`);
    expect(tests).toHaveLength(2);
    const runner = tests[0].runner;
    expect(sample(text, 'roundtable_sandbox_runs_total', { runner, outcome: 'failed' })).toBe(1);
    expect(sample(text, 'roundtable_sandbox_runs_total', { runner, outcome: 'passed' })).toBe(1);
    expect(sample(text, 'roundtable_sandbox_run_duration_seconds_count', { runner })).toBe(2);
    expect(sample(text, 'roundtable_sandbox_run_duration_seconds_sum', { runner })).toBeGreaterThan(0);
  });

  it('every worker answers /healthz and /readyz on its ops port; the test-runner checks Docker too', async () => {
    for (const name of ['orchestrator', 'provider-worker', 'test-runner'] as const) {
      const base = await healthUrl(service(name));
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      const ready = await fetch(`${base}/readyz`);
      const deps = name === 'test-runner' ? ['postgres', 'redis', 'docker'] : ['postgres', 'redis'];
      expect({ status: ready.status, body: await ready.json() }).toEqual({ status: 200, body: { status: 'ok', checks: Object.fromEntries(deps.map((d) => [d, 'ok'])) } });
    }
  });

  it('logs one JSON object per line, carrying the run id, and never the prompt text or the token', async () => {
    for (const s of pipeline.services) {
      const lines = s.output().split('\n').filter(Boolean);
      expect(lines.length).toBeGreaterThan(2);
      for (const line of lines) expect(JSON.parse(line)).toEqual(expect.objectContaining({ level: expect.any(String), time: expect.any(String), service: s.name, msg: expect.any(String) }));
      // The objective is in every prompt; the token is in the api's environment.
      expect(s.output()).not.toContain('peak-to-trough');
      expect(s.output()).not.toContain(TOKEN);
    }
    const ended = service('orchestrator')
      .output()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((r) => r.run_id === done || r.run_id === halted);
    expect(ended).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ run_id: done, status: 'done', msg: `run ${done} ended done` }),
        expect.objectContaining({ run_id: halted, status: 'halted', cap: 'max_calls' }),
      ]),
    );
  });
});
