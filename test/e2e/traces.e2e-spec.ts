import path from 'node:path';
import { Pipeline, projectConfigFrom, ReceivedSpan, startOtlpReceiver, startPipeline, submitRun, waitForTerminal } from '@roundtable/testing';

jest.setTimeout(180_000);

const REPO = path.resolve(__dirname, '../..');
const DEMO = path.join(REPO, 'examples/dd-demo/project.yaml');

describe('one run is one trace across the services (OTLP/HTTP to a receiver the test starts)', () => {
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let pipeline: Pipeline | undefined;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    pipeline = await startPipeline({
      providerQueues: 'replay',
      // A short batch delay; stop() (SIGTERM) flushes whatever is left.
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '200' },
    });
  });

  afterAll(async () => {
    await pipeline?.stop();
    await receiver?.close();
  });

  it('exports the demo run as one trace: the submission its root, steps, agent calls with GenAI attributes, workspace ops and test runs', async () => {
    const p = pipeline!;
    const res = await submitRun(p.api, projectConfigFrom(DEMO));
    expect(res.status).toBe(202);
    const id = res.body.id as string;
    const run = await waitForTerminal(p, id, 120_000);
    expect(run).toMatchObject({ status: 'done', verdict: 'ACCEPT' });
    const calls = await p.sql<{ id: string; provider: string; model: string; input_tokens: number; output_tokens: number; cost_usd: string | null; cost_source: string | null }>(
      `SELECT id, provider, model, input_tokens, output_tokens, cost_usd, cost_source FROM agent_calls WHERE run_id = $1 ORDER BY seq`,
      [id],
    );
    expect(calls).toHaveLength(8);
    // The services' shutdown flushes their batched spans: after stop() the receiver has them all.
    const logs = p.logs();
    await p.stop();
    pipeline = undefined;

    const spans = receiver.spans;
    const root = spans.find((s) => s.name === 'POST /v1/runs' && s.attributes['roundtable.run.id'] === id);
    expect(root).toBeDefined();
    expect(root!.service).toBe('api');
    expect(root!.parentSpanId).toBeUndefined();
    // The trace id is findable from the run: the api logs it next to the run id.
    expect(logs).toContain(`run ${id}: trace ${root!.traceId}`);

    // Every span that names the run is in the run's one trace, and every service sent some.
    const ofRun = spans.filter((s) => s.attributes['roundtable.run.id'] === id);
    expect(new Set(ofRun.map((s) => s.traceId))).toEqual(new Set([root!.traceId]));
    const trace = spans.filter((s) => s.traceId === root!.traceId);
    expect(new Set(trace.map((s) => s.service))).toEqual(new Set(['api', 'orchestrator', 'provider-worker', 'test-runner']));
    const byId = new Map(trace.map((s) => [s.spanId, s]));
    // No dangling parent: every span's parent was exported in the same trace.
    for (const s of trace) if (s !== root) expect(byId.has(s.parentSpanId!)).toBe(true);
    const chainOf = (s: ReceivedSpan): ReceivedSpan[] => {
      const chain: ReceivedSpan[] = [];
      for (let at: ReceivedSpan | undefined = s; at; at = at.parentSpanId ? byId.get(at.parentSpanId) : undefined) chain.push(at);
      return chain;
    };

    // Steps: one per orchestrator job, with the workflow and the stage before and after.
    const steps = trace.filter((s) => s.name.startsWith('roundtable.step '));
    const stepNames = steps.map((s) => s.name);
    expect(stepNames.filter((n) => n === 'roundtable.step run.start')).toHaveLength(1);
    expect(stepNames.filter((n) => n === 'roundtable.step agent.done')).toHaveLength(8);
    expect(stepNames.filter((n) => n === 'roundtable.step tests.done')).toHaveLength(2);
    expect(stepNames).toContain('roundtable.step workspace.done');
    for (const s of steps) {
      expect(s.service).toBe('orchestrator');
      expect(s.attributes).toMatchObject({ 'roundtable.job.name': s.name.slice('roundtable.step '.length), 'roundtable.workflow': 'build' });
      expect(typeof s.attributes['roundtable.stage.before']).toBe('string');
      expect(chainOf(s).at(-1)).toBe(root); // each step's chain reaches the run's root
    }
    const start = steps.find((s) => s.name === 'roundtable.step run.start')!;
    expect(start.parentSpanId).toBe(root!.spanId);
    expect(start.attributes['roundtable.stage.before']).toBe('INIT');
    expect(steps.some((s) => s.attributes['roundtable.stage.after'] === 'DONE')).toBe(true);

    // Agent calls: one span per agent_calls row, GenAI's attributes matching the row, its parent the step that queued it.
    const agentSpans = trace.filter((s) => s.attributes['gen_ai.operation.name'] === 'chat');
    expect(agentSpans).toHaveLength(8);
    for (const call of calls) {
      const s = agentSpans.find((a) => a.attributes['roundtable.call.id'] === call.id);
      expect(s).toBeDefined();
      expect(s!.service).toBe('provider-worker');
      expect(s!.name).toBe(`chat ${call.model}`);
      expect(s!.kind).toBe(3); // SPAN_KIND_CLIENT
      expect(s!.attributes).toMatchObject({
        'gen_ai.provider.name': call.provider,
        'gen_ai.request.model': call.model,
        'gen_ai.usage.input_tokens': Number(call.input_tokens),
        'gen_ai.usage.output_tokens': Number(call.output_tokens),
      });
      // Our own cost attributes say what the row says (a replayed reply may have no price: then neither has one).
      expect(s!.attributes['roundtable.cost_source']).toBe(call.cost_source ?? undefined);
      expect(s!.attributes['roundtable.cost_usd']).toBe(call.cost_usd == null ? undefined : Number(call.cost_usd));
      const parent = byId.get(s!.parentSpanId!)!;
      expect(parent.name).toMatch(/^roundtable\.step /);
      expect(chainOf(s!).at(-1)).toBe(root);
    }

    // Workspace operations and the sandbox runs inside the test runs.
    const ops = trace.filter((s) => s.name.startsWith('roundtable.workspace '));
    const opNames = ops.map((s) => s.name);
    expect(opNames).toContain('roundtable.workspace workspace.apply');
    expect(opNames.filter((n) => n === 'roundtable.workspace tests.run')).toHaveLength(2);
    for (const s of ops) {
      expect(s.service).toBe('test-runner');
      expect(byId.get(s.parentSpanId!)!.name).toMatch(/^roundtable\.step /);
    }
    const sandboxRuns = trace.filter((s) => s.name === 'roundtable.sandbox.run');
    expect(sandboxRuns).toHaveLength(2);
    for (const s of sandboxRuns) expect(byId.get(s.parentSpanId!)!.name).toBe('roundtable.workspace tests.run');
    expect(sandboxRuns.map((s) => s.attributes['roundtable.tests.failed']).sort()).toEqual([0, 1]);
  });
});
