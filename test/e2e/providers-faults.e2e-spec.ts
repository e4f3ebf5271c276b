import { FakeLlmServer, Pipeline, startFakeLlmServer, startPipeline, submitRun, waitForTerminal, type FakeScriptEntryInput } from '@roundtable/testing';
import { callRows, demoOn, demoReplies, withFirst } from './support/provider-runs';

jest.setTimeout(120_000);

/**
 * Provider faults through the whole system: the fake wire server misbehaves on the proposer's
 * first request(s); the provider-worker retries with backoff (every try a row), lets a 429 back
 * the queue off, halts on a usage limit with the provider's words, and the workflow switches to
 * a fallback provider as a recorded decision.
 */
const KEYS = { E2E_ANTHROPIC_KEY: 'sk-ant-e2e-0123456789', E2E_OPENAI_KEY: 'sk-e2e-openai-0123456789' };
const DELAYS = [50, 100, 200];

describe('provider faults across real services (separate processes)', () => {
  let pipeline: Pipeline;
  let server: FakeLlmServer | undefined;

  beforeAll(async () => {
    // `*`: each provider's queue starts when its first call waits, with that run's rate limit and concurrency.
    pipeline = await startPipeline({ providerQueues: '*', env: { ...KEYS, PROVIDER_RETRY_DELAYS_MS: DELAYS.join(','), PROVIDER_DISCOVERY_MS: '100' } });
  });

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  afterAll(async () => {
    await pipeline?.stop();
  });

  const anthropic = (s: FakeLlmServer, extra: Record<string, unknown> = {}) => ({ type: 'anthropic', api_key_env: 'E2E_ANTHROPIC_KEY', base_url: s.baseUrls.anthropic, ...extra });
  const openai = (s: FakeLlmServer) => ({ type: 'openai_compat', api_key_env: 'E2E_OPENAI_KEY', base_url: s.baseUrls.openai });

  async function runWith(proposerFirst: FakeScriptEntryInput[], config: (s: FakeLlmServer) => Record<string, unknown>, replies = demoReplies()) {
    server = await startFakeLlmServer({ script: { replies: withFirst('proposer', proposerFirst, replies) } });
    const res = await submitRun(pipeline.api, config(server));
    expect(res.status).toBe(202);
    const id = res.body.id as string;
    return { id, run: await waitForTerminal(pipeline, id, 90_000) };
  }

  const proposerRows = async (id: string) => (await callRows(pipeline, id)).filter((r) => r.role === 'proposer');
  const sql = <T = Record<string, unknown>>(text: string, params: unknown[]) => pipeline.sql<T>(text, params);

  it('429 → the queue backs off for the retry-after, then the retry succeeds; the failed try is its own row', async () => {
    const { id, run } = await runWith([{ role: 'proposer', fault: 429, retry_after_s: 0.6 }], (s) =>
      demoOn({ limited: anthropic(s, { rate_limit: { max: 40, duration_ms: 1000 }, concurrency: 2 }) }, 'limited', 'claude-haiku-4-5'),
    );
    expect(run).toMatchObject({ status: 'done', verdict: 'ACCEPT' });

    const [first, second, ...rest] = await proposerRows(id);
    expect(rest).toEqual([]);
    expect(first).toMatchObject({ label: 'P1', attempt: 1, retry: 0, status: 'failed', error_code: 'RATE_LIMITED', input_tokens: null });
    expect(first.error).toContain('HTTP 429');
    expect(first.error).toContain('would exceed the rate limit');
    expect(second).toMatchObject({ label: 'P1', attempt: 1, retry: 1, retry_of: first.id, status: 'completed', valid: true, cost_source: 'table' });
    expect(second.seq).toBeGreaterThan(first.seq);
    // The provider's retry-after (0.6 s), not the 50 ms backoff, decided the wait.
    expect(second.started_at!.getTime() - first.finished_at!.getTime()).toBeGreaterThanOrEqual(550);

    // Every try is a request: counted in usage, and no reservation outlives the run.
    const [usage] = await sql<{ calls: number }>(`SELECT calls FROM usage_by_provider WHERE run_id = $1`, [id]);
    expect(usage.calls).toBe(9);
    expect(await sql(`SELECT * FROM budget_reservations WHERE run_id = $1`, [id])).toEqual([]);
    const failed = await sql<{ payload: { call_id: string; error_code: string } }>(`SELECT payload FROM run_events WHERE run_id = $1 AND type = 'agent_call_failed'`, [id]);
    expect(failed.map((e) => [e.payload.call_id, e.payload.error_code])).toEqual([[first.id, 'RATE_LIMITED']]);
    // The queue was started with this run's rate limit and concurrency.
    expect(pipeline.logs(100_000)).toMatch(/consuming queue \S+:agent\.limited \(concurrency 2 \(project file\), rate limit 40 per 1000 ms \(project file\)\)/);
  });

  it('500 ×3 → success on the 4th try, four rows with the backoff between them', async () => {
    const { id, run } = await runWith([{ role: 'proposer', fault: 500, times: 3 }], (s) => demoOn({ openai: openai(s) }, 'openai', 'gpt-5'));
    expect(run).toMatchObject({ status: 'done', verdict: 'ACCEPT' });
    const rows = await proposerRows(id);
    expect(rows.map((r) => [r.retry, r.status, r.error_code])).toEqual([
      [0, 'failed', 'SERVER_ERROR'],
      [1, 'failed', 'SERVER_ERROR'],
      [2, 'failed', 'SERVER_ERROR'],
      [3, 'completed', null],
    ]);
    expect(rows.slice(1).map((r) => r.retry_of)).toEqual(rows.slice(0, 3).map((r) => r.id));
    expect(rows.every((r) => r.attempt === 1 && r.label === 'P1')).toBe(true);
    rows.slice(0, 3).forEach((r) => expect(r.error).toMatch(/HTTP 500.*The server had an error/));
    rows.slice(1).forEach((r, i) => expect(r.started_at!.getTime() - rows[i].finished_at!.getTime()).toBeGreaterThanOrEqual(DELAYS[i] - 5));
    expect(new Set((await callRows(pipeline, id)).map((r) => r.seq)).size).toBe(11);
    expect(server!.requests.filter((q) => q.role === 'proposer').map((q) => q.status)).toEqual([500, 500, 500, 200]);
  });

  it('a hang past timeout_s → TIMEOUT recorded, and the retry answers', async () => {
    const { id, run } = await runWith([{ role: 'proposer', fault: 'hang', hang_ms: 20_000 }], (s) =>
      demoOn({ anthropic: anthropic(s) }, 'anthropic', 'claude-haiku-4-5', { proposer: { timeout_s: 1 } }),
    );
    expect(run).toMatchObject({ status: 'done', verdict: 'ACCEPT' });
    const [hung, retried] = await proposerRows(id);
    expect(hung).toMatchObject({ status: 'failed', error_code: 'TIMEOUT', retry: 0 });
    expect(hung.error).toContain('within 1000 ms');
    expect(hung.finished_at!.getTime() - hung.started_at!.getTime()).toBeLessThan(5000);
    expect(retried).toMatchObject({ status: 'completed', retry: 1, retry_of: hung.id });
  });

  it('a usage limit → no retry, the run HALTED with the provider words and HTTP status in its record and report', async () => {
    const { id, run } = await runWith([{ role: 'proposer', fault: 'usage_limit' }], (s) => demoOn({ anthropic: anthropic(s) }, 'anthropic', 'claude-haiku-4-5'));
    const words = 'You have reached your specified API usage limits. You will regain access on 2026-12-01 at 00:00 UTC.';
    expect(run).toMatchObject({ status: 'halted' });
    expect(run.halt_reason).toContain('USAGE_LIMIT');
    expect(run.halt_reason).toContain('HTTP 400');
    expect(run.halt_reason).toContain(words);
    const rows = await callRows(pipeline, id);
    expect(rows.map((r) => [r.role, r.status, r.error_code])).toEqual([['proposer', 'failed', 'USAGE_LIMIT']]);
    const report = await (await fetch(`${pipeline.api}/v1/runs/${id}/report`)).text();
    expect(report).toContain(words);
    expect(report).toContain('HTTP 400');
    expect(report).not.toMatch(/synthesis failed/i);
  });

  it('a usage limit with a fallback → the fallback provider takes over, and the switch is a recorded decision', async () => {
    const { id, run } = await runWith([{ role: 'proposer', fault: 'usage_limit' }], (s) =>
      demoOn({ anthropic: anthropic(s), openai: openai(s) }, 'anthropic', 'claude-haiku-4-5', { proposer: { fallback: 'openai', fallback_model: 'gpt-5' } }),
    );
    expect(run).toMatchObject({ status: 'done', verdict: 'ACCEPT', halt_reason: null });
    const rows = await proposerRows(id);
    expect(rows.map((r) => [r.provider, r.model, r.status, r.error_code])).toEqual([
      ['anthropic', 'claude-haiku-4-5', 'failed', 'USAGE_LIMIT'],
      ['openai', 'gpt-5', 'completed', null],
    ]);
    const [proposal] = await sql<{ call_id: string }>(`SELECT call_id FROM proposals WHERE run_id = $1 AND label = 'P1'`, [id]);
    expect(proposal.call_id).toBe(rows[1].id);

    const decisions = await sql<{ from_stage: string; to_stage: string; reason: string; refs: string[] }>(
      `SELECT from_stage, to_stage, reason, refs FROM decisions WHERE run_id = $1 AND reason LIKE '%fallback provider%'`,
      [id],
    );
    expect(decisions).toHaveLength(1);
    expect(decisions[0]).toMatchObject({ from_stage: 'PROPOSE', to_stage: 'PROPOSE', refs: [rows[0].id] });
    expect(decisions[0].reason).toContain('anthropic/claude-haiku-4-5 failed (USAGE_LIMIT)');
    expect(decisions[0].reason).toContain('openai/gpt-5');
    const events = await sql<{ payload: Record<string, string> }>(`SELECT payload FROM run_events WHERE run_id = $1 AND type = 'provider_fallback'`, [id]);
    expect(events.map((e) => e.payload)).toEqual([expect.objectContaining({ role: 'proposer', from: 'anthropic', to: 'openai' })]);
    expect(server!.requests.filter((q) => q.role === 'proposer').map((q) => [q.wire, q.status])).toEqual([
      ['anthropic', 400],
      ['openai', 200],
    ]);
  });

  it("a bad key (AUTH) halts the run, and the partial synthesis goes to the synthesizer's fallback: the bad key is not sent twice", async () => {
    // The partial synthesis sees no proposal: the demo's synthesis without its full-run prompt guards.
    const replies = demoReplies()
      .filter((r) => r.role === 'proposer' || r.role === 'synthesizer')
      .map(({ expects: _e, forbids: _f, ...r }) => r);
    const { id, run } = await runWith(
      [{ role: 'proposer', fault: 401 }],
      (s) => demoOn({ anthropic: anthropic(s), openai: openai(s) }, 'anthropic', 'claude-haiku-4-5', { synthesizer: { fallback: 'openai', fallback_model: 'gpt-5' } }),
      replies,
    );
    expect(run).toMatchObject({ status: 'halted' });
    expect(run.halt_reason).toContain('proposer call failed (AUTH)');
    const rows = await callRows(pipeline, id);
    expect(rows.map((r) => [r.role, r.provider, r.status, r.error_code])).toEqual([
      ['proposer', 'anthropic', 'failed', 'AUTH'],
      ['synthesizer', 'openai', 'completed', null],
    ]);
    expect(server!.requests.map((q) => [q.wire, q.status])).toEqual([
      ['anthropic', 401],
      ['openai', 200],
    ]);
    const events = await sql<{ payload: Record<string, string> }>(`SELECT payload FROM run_events WHERE run_id = $1 AND type = 'provider_fallback'`, [id]);
    expect(events.map((e) => e.payload)).toEqual([expect.objectContaining({ role: 'synthesizer', from: 'anthropic', to: 'openai' })]);
  });
});
