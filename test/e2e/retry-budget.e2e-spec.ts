import { FakeLlmServer, Pipeline, startFakeLlmServer, startPipeline, submitRun, waitForTerminal } from '@roundtable/testing';
import { callRows, demoOn, demoReplies, ROLES, withFirst } from './support/provider-runs';

jest.setTimeout(120_000);

/**
 * Retries are calls (issue 13 item 2), through the whole system: the provider-worker only
 * records and reports a failed try; the orchestrator's engine asks for the retry like any other
 * call, checked against max_calls with every reservation. Every call fails with a 500 three
 * times before it answers, under a max_calls that cannot hold that: the run halts at the cap,
 * not past it. The one call past it is the one the design exempts: the synthesizer's partial
 * synthesis after the halt ("exactly one call, even over budget"), whose own retry is checked
 * like any other and refused.
 */
const KEY = 'sk-e2e-openai-0123456789';
const DELAYS = [50, 100, 200];
const MAX_CALLS = 5;

describe('transient retries under a tight max_calls (separate processes)', () => {
  let pipeline: Pipeline;
  let server: FakeLlmServer | undefined;

  beforeAll(async () => {
    pipeline = await startPipeline({ providerQueues: '*', env: { E2E_OPENAI_KEY: KEY, PROVIDER_RETRY_DELAYS_MS: DELAYS.join(','), PROVIDER_DISCOVERY_MS: '100' } });
  });

  afterAll(async () => {
    await server?.close();
    await pipeline?.stop();
  });

  it('every call failing with 500 three times → the run halts at max_calls; the only call past it is the exempt closing call', async () => {
    // Each role's first three requests are 500s, then its scripted reply.
    const replies = ROLES.reduce((script, role) => withFirst(role, [{ role, fault: 500, times: 3 }], script), demoReplies());
    server = await startFakeLlmServer({ script: { replies } });
    const config = demoOn({ openai: { type: 'openai_compat', api_key_env: 'E2E_OPENAI_KEY', base_url: server.baseUrls.openai } }, 'openai', 'gpt-5', {}, {
      budget: { max_rounds: 3, max_fix_rounds: 1, max_calls: MAX_CALLS, max_tokens: 200000, max_cost_usd: 5, max_seconds: 900 },
    });
    const res = await submitRun(pipeline.api, config);
    expect(res.status).toBe(202);
    const id = res.body.id as string;
    const run = await waitForTerminal(pipeline, id, 90_000);

    expect(run.status).toBe('halted');
    expect(run.halt_reason).toContain('max_calls');

    const rows = await callRows(pipeline, id);
    // The halt comes when a call (here a retry) does not fit: max_calls calls were made, then
    // the synthesizer's one exempt call. Exactly that, and no more.
    expect(rows).toHaveLength(MAX_CALLS + 1);
    const closing = rows[rows.length - 1];
    expect(closing.role).toBe('synthesizer');
    expect(rows.slice(0, -1).every((r) => r.role !== 'synthesizer')).toBe(true);

    // The proposer's call took four tries, each a row the orchestrator wrote: retry n of the try before.
    const proposer = rows.filter((r) => r.role === 'proposer');
    expect(proposer.map((r) => [r.retry, r.status, r.error_code])).toEqual([
      [0, 'failed', 'SERVER_ERROR'],
      [1, 'failed', 'SERVER_ERROR'],
      [2, 'failed', 'SERVER_ERROR'],
      [3, 'completed', null],
    ]);
    expect(proposer.slice(1).map((r) => r.retry_of)).toEqual(proposer.slice(0, 3).map((r) => r.id));
    // Each retry waited its backoff: the engine enqueued it delayed.
    proposer.slice(1).forEach((r, i) => expect(r.started_at!.getTime() - proposer[i].finished_at!.getTime()).toBeGreaterThanOrEqual(DELAYS[i] - 5));

    // The critic's first try failed and its retry did not fit the cap: no retry row, the halt names the cap.
    const critic = rows.filter((r) => r.role === 'critic');
    expect(critic.map((r) => [r.retry, r.status, r.error_code])).toEqual([[0, 'failed', 'SERVER_ERROR']]);
    // The closing call failed too (its first try is a 500): its retry was refused like any call, so it closes fact-only.
    expect(closing).toMatchObject({ retry: 0, status: 'failed', error_code: 'SERVER_ERROR' });

    // Every row is one request, counted in usage; no reservation outlives the run.
    expect(server.requests).toHaveLength(rows.length);
    const [usage] = await pipeline.sql<{ calls: number }>(`SELECT sum(calls)::int AS calls FROM usage_by_provider WHERE run_id = $1`, [id]);
    expect(usage.calls).toBe(rows.length);
    expect(await pipeline.sql(`SELECT * FROM budget_reservations WHERE run_id = $1`, [id])).toEqual([]);
    // Every failed try was reported and is a fact of the run.
    const failed = await pipeline.sql<{ payload: { call_id: string } }>(`SELECT payload FROM run_events WHERE run_id = $1 AND type = 'agent_call_failed'`, [id]);
    expect(failed.map((e) => e.payload.call_id).sort()).toEqual(rows.filter((r) => r.status === 'failed').map((r) => r.id).sort());
  });
});
