import path from 'node:path';
import {
  FakeLlmServer,
  getJson,
  loadFakeScript,
  Pipeline,
  projectConfigFrom,
  startFakeLlmServer,
  startPipeline,
  submitRun,
  waitForTerminal,
  type FakeScriptEntryInput,
} from '@roundtable/testing';

jest.setTimeout(120_000);

const REPO = path.resolve(__dirname, '../..');
const DEMO = path.join(REPO, 'examples/panel-demo/project.yaml');
const CASSETTE = path.join(REPO, 'examples/panel-demo/cassette.yaml');
const KEYS = { E2E_ANTHROPIC_KEY: 'sk-ant-e2e-0123456789', E2E_OPENAI_KEY: 'sk-e2e-openai-0123456789' };
const WORDS = 'You have reached your specified API usage limits. You will regain access on 2026-12-01 at 00:00 UTC.';

interface CallView {
  id: string;
  seq: number;
  stage: string;
  role: string;
  provider: string;
  model: string;
  label: string;
  attempt: number;
  retry: number;
  retry_of: string | null;
  status: string;
  valid: boolean | null;
  error: string | null;
  error_code: string | null;
}

/** The panel demo's scripted replies with `entries` played before `judge`'s first one (faults come first). */
function withFirst(judge: string, entries: Omit<FakeScriptEntryInput, 'role'>[]): FakeScriptEntryInput[] {
  const replies = loadFakeScript(CASSETTE).replies;
  const at = replies.findIndex((r) => r.role === judge);
  return [...replies.slice(0, at), ...entries.map((e) => ({ ...e, role: judge })), ...replies.slice(at)];
}

/**
 * Issue 13, panel parity, through separate processes: the panel runs on the build's engine, so a
 * judge whose provider reports a usage limit goes to its `fallback` provider as the build's roles
 * do — a recorded decision and a provider_fallback event — and the calls API, filtered by that
 * judge, shows both tries. The vc judge talks to the fake wire server (Anthropic, then OpenAI);
 * the other judges and the moderator stay on the demo's replay cassette.
 */
describe('panel parity across real services (separate processes)', () => {
  let pipeline: Pipeline;
  let server: FakeLlmServer;

  beforeAll(async () => {
    server = await startFakeLlmServer({ script: { replies: withFirst('vc', [{ fault: 'usage_limit' }]) } });
    pipeline = await startPipeline({ providerQueues: '*', env: { ...KEYS, PROVIDER_DISCOVERY_MS: '100' } });
  });

  afterAll(async () => {
    await pipeline?.stop();
    await server?.close();
  });

  it("a judge whose provider reports a usage limit goes to its fallback: the run ends done, with the decision, the event and both calls under the judge's role", async () => {
    const demo = projectConfigFrom(DEMO) as { providers: Record<string, unknown>; judges: Record<string, Record<string, unknown>> };
    const cfg = projectConfigFrom(DEMO, {
      providers: {
        ...demo.providers,
        anthropic: { type: 'anthropic', api_key_env: 'E2E_ANTHROPIC_KEY', base_url: server.baseUrls.anthropic },
        openai: { type: 'openai_compat', api_key_env: 'E2E_OPENAI_KEY', base_url: server.baseUrls.openai },
      },
      judges: { ...demo.judges, vc: { provider: 'anthropic', model: 'claude-sonnet-4-5', fallback: 'openai', fallback_model: 'gpt-5' } },
    });
    const res = await submitRun(pipeline.api, cfg);
    expect(res.status).toBe(202);
    const id = res.body.id as string;

    const run = await waitForTerminal(pipeline, id, 90_000);
    // The fallback's verdict is the vc's (the cassette's V1), so the panel ends as the demo does.
    expect(run).toMatchObject({ workflow: 'panel', status: 'done', verdict: 'ITERATE', halt_reason: null });

    // The calls API, filtered by the judge and its stage: the failed try and the fallback's call.
    const roast = await getJson(pipeline.api, `/v1/runs/${id}/calls?role=vc&stage=ROAST`);
    expect(roast.status).toBe(200);
    const [failed, fallback, ...rest] = roast.body as unknown as CallView[];
    expect(rest).toEqual([]);
    expect(failed).toMatchObject({ role: 'vc', stage: 'ROAST', provider: 'anthropic', model: 'claude-sonnet-4-5', status: 'failed', error_code: 'USAGE_LIMIT', retry: 0, retry_of: null });
    expect(failed.error).toContain(WORDS);
    expect(fallback).toMatchObject({ role: 'vc', stage: 'ROAST', label: failed.label, provider: 'openai', model: 'gpt-5', attempt: 1, status: 'completed', valid: true, retry: 0 });
    // A fallback is a new call chain, not a retry of the failed try: retry_of stays empty.
    expect(fallback.retry_of).toBeNull();
    expect(fallback.seq).toBeGreaterThan(failed.seq);
    // role=vc alone holds both, first, then the vc's debate turns and re-vote.
    const all = (await getJson(pipeline.api, `/v1/runs/${id}/calls?role=vc`)).body as unknown as CallView[];
    expect(all.slice(0, 2).map((c) => c.id)).toEqual([failed.id, fallback.id]);
    expect(all.slice(2).map((c) => c.stage)).toEqual(['DEBATE', 'DEBATE', 'DEBATE', 'REVOTE']);
    expect(all.every((c) => c.role === 'vc')).toBe(true);
    const one = await getJson(pipeline.api, `/v1/runs/${id}/calls/${failed.id}`);
    expect(one.body).toMatchObject({ id: failed.id, retry: 0, retry_of: null, error_code: 'USAGE_LIMIT' });

    // The switch is a recorded decision, with the failed call as its reference, and an event.
    const decisions = await pipeline.sql<{ from_stage: string; to_stage: string; reason: string; refs: string[] }>(
      `SELECT from_stage, to_stage, reason, refs FROM decisions WHERE run_id = $1 AND reason LIKE '%fallback provider%'`,
      [id],
    );
    expect(decisions).toHaveLength(1);
    expect(decisions[0]).toMatchObject({ from_stage: 'ROAST', to_stage: 'ROAST', refs: [failed.id] });
    expect(decisions[0].reason).toContain('vc call on anthropic/claude-sonnet-4-5 failed (USAGE_LIMIT)');
    expect(decisions[0].reason).toContain('asking the fallback provider openai/gpt-5 instead');
    const events = await pipeline.sql<{ type: string; payload: Record<string, unknown> }>(
      `SELECT type, payload FROM run_events WHERE run_id = $1 AND type IN ('agent_call_failed', 'provider_fallback') ORDER BY sequence`,
      [id],
    );
    expect(events.map((e) => e.type)).toEqual(['agent_call_failed', 'provider_fallback']);
    expect(events[0].payload).toMatchObject({ call_id: failed.id, error_code: 'USAGE_LIMIT' });
    expect(events[1].payload).toEqual({ role: 'vc', from: 'anthropic', to: 'openai', reason: decisions[0].reason });

    // On the wire: the Anthropic request was refused, the OpenAI one answered.
    const vcWire = server.requests.filter((q) => q.role === 'vc').map((q) => [q.wire, q.status]);
    expect(vcWire.slice(0, 2)).toEqual([
      ['anthropic', 400],
      ['openai', 200],
    ]);
  });
});
