import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadPricing, priceCall } from '@roundtable/providers';
import { FakeLlmServer, Pipeline, startFakeLlmServer, startPipeline, submitRun, waitForTerminal } from '@roundtable/testing';
import { callRows, DEMO_CALLS, demoOn, demoReplies, writeTestPricing } from './support/provider-runs';

jest.setTimeout(120_000);

/**
 * The demo end to end with every role on one API provider: the real SDK in the provider-worker
 * process, over HTTP to the fake wire server, through a real `agent.<provider>` queue.
 */
const KEYS = { E2E_ANTHROPIC_KEY: 'sk-ant-e2e-0123456789', E2E_OPENAI_KEY: 'sk-e2e-openai-0123456789', E2E_GEMINI_KEY: 'AIza-e2e-0123456789' };

type Body = Record<string, unknown>;
interface Case {
  name: string;
  model: string;
  billing: string | null;
  config: (server: FakeLlmServer) => Record<string, unknown>;
  /** The structured-output mechanism, as the server received it. */
  mechanism: (body: Body) => void;
}

const CASES: Case[] = [
  {
    name: 'anthropic',
    model: 'claude-haiku-4-5',
    billing: 'api',
    config: (s) => ({ type: 'anthropic', api_key_env: 'E2E_ANTHROPIC_KEY', base_url: s.baseUrls.anthropic }),
    mechanism: (body) => {
      // Structured outputs, not a forced tool (models that think refuse one).
      expect(body.tools).toBeUndefined();
      const format = (body.output_config as { format: { type: string; schema: Body } }).format;
      expect(format.type).toBe('json_schema');
      expect(format.schema).toMatchObject({ type: 'object', additionalProperties: false });
    },
  },
  {
    name: 'openai',
    model: 'gpt-5',
    billing: 'api',
    config: (s) => ({ type: 'openai_compat', api_key_env: 'E2E_OPENAI_KEY', base_url: s.baseUrls.openai }),
    mechanism: (body) => {
      const format = body.response_format as { type: string; json_schema: { strict: boolean; schema: Body } };
      expect(format.type).toBe('json_schema');
      expect(format.json_schema.strict).toBe(true);
      expect(format.json_schema.schema).toMatchObject({ type: 'object', additionalProperties: false });
    },
  },
  {
    name: 'gemini',
    model: 'gemini-2.5-flash',
    billing: 'api',
    config: (s) => ({ type: 'gemini', api_key_env: 'E2E_GEMINI_KEY', base_url: s.baseUrls.gemini }),
    mechanism: (body) => {
      const gc = body.generationConfig as Body;
      expect(gc.responseMimeType).toBe('application/json');
      expect(gc.responseJsonSchema).toMatchObject({ type: 'object' });
    },
  },
  {
    name: 'ollama',
    model: 'qwen3:30b-a3b',
    billing: null,
    config: (s) => ({ type: 'ollama', host: s.baseUrls.ollama }),
    mechanism: (body) => {
      expect(body.format).toMatchObject({ type: 'object' });
      expect(body.stream).toBe(false);
    },
  },
];

describe('the demo on each API provider (real SDKs against the fake wire server, separate processes)', () => {
  let pipeline: Pipeline;
  let dir: string;
  let pricingFile: string;
  let server: FakeLlmServer | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'rt-e2e-providers-'));
    pricingFile = writeTestPricing(dir);
    pipeline = await startPipeline({ providerQueues: CASES.map((c) => c.name).join(','), env: { ...KEYS, PRICING_FILE: pricingFile } });
  });

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  afterAll(async () => {
    await pipeline?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(CASES)('$name: done ACCEPT, usage and table cost on every row, the schema mechanism on the wire', async (c) => {
    server = await startFakeLlmServer({ script: { replies: demoReplies() } });
    const res = await submitRun(pipeline.api, demoOn({ [c.name]: c.config(server) }, c.name, c.model));
    expect(res.status).toBe(202);
    const id = res.body.id as string;
    const run = await waitForTerminal(pipeline, id, 90_000);
    expect(run).toMatchObject({ status: 'done', verdict: 'ACCEPT', halt_reason: null });

    const rows = await callRows(pipeline, id);
    expect(rows.map((r) => `${r.role}:${r.label}`)).toEqual(DEMO_CALLS);
    const pricing = loadPricing(pricingFile);
    for (const r of rows) {
      expect(r).toMatchObject({ provider: c.name, model: c.model, status: 'completed', valid: true, retry: 0, cost_source: 'table', billing: c.billing, argv: null });
      expect(r.input_tokens).toBeGreaterThan(0);
      expect(r.output_tokens).toBeGreaterThan(0);
      const expected = priceCall(pricing, c.model, { inputTokens: r.input_tokens!, outputTokens: r.output_tokens!, cachedInputTokens: r.cached_input_tokens ?? 0 }, null);
      expect(Number(r.cost_usd)).toBeCloseTo(expected.costUsd!, 6);
      expect(Number(r.cost_usd)).toBeGreaterThan(0);
    }

    // One request per call, each answered, each with the provider's own structured-output mechanism.
    expect(server.requests.map((q) => [q.wire, q.status])).toEqual(rows.map(() => [c.name, 200]));
    expect(server.requests.map((q) => q.role)).toEqual(rows.map((r) => r.role));
    for (const q of server.requests) c.mechanism(q.body as Body);

    const [usage] = await pipeline.sql<{ calls: number; cost_usd: string }>(`SELECT calls, cost_usd FROM usage_by_provider WHERE run_id = $1`, [id]);
    expect(usage.calls).toBe(8);
    expect(Number(usage.cost_usd)).toBeCloseTo(rows.reduce((n, r) => n + Number(r.cost_usd), 0), 5);
  });
});
