import path from 'node:path';
import { JUDGES } from '@roundtable/contracts';
import { loadPricing, priceOf } from '@roundtable/providers';
import { Pipeline, projectConfigFrom, startPipeline, submitRun, waitForTerminal } from '@roundtable/testing';

jest.setTimeout(120_000);

const REPO = path.resolve(__dirname, '../..');
const DEMO = path.join(REPO, 'examples/panel-demo/project.yaml');
/**
 * The table the orchestrator prices reservations with and the provider-worker prices replies
 * with, named explicitly so the test prices with the same one. Four of the demo's judges are
 * priced there; the customer's local model (qwen3:30b-a3b) deliberately is not.
 */
const PRICING_FILE = path.join(REPO, 'examples/pricing.yaml');
const PRICES = loadPricing(PRICING_FILE);
/** Long enough that the judges' reservations are still held when the sampler looks. */
const LATENCY_MS = 1500;

interface Worst {
  tokens: number;
  usd: number;
}

interface CallRow {
  id: string;
  role: string;
  stage: string;
  model: string;
  status: string;
  messages: { content: string }[];
  max_tokens: number;
  input_tokens: number | null;
  output_tokens: number | null;
  cost_usd: string | null;
}

/** One look at the budget, in one statement (one snapshot), while no closing call exists yet. */
interface Sample {
  closing: boolean;
  used_tokens: number;
  used_usd: string;
  reservations: { call_id: string; tokens: number; cost_usd: string | null }[];
}

/**
 * A call's worst case computed here, independently of the engine: the prompt at about four
 * characters a token plus the call's max output tokens, and that at the model's table price
 * (input price on the prompt, output price on the max output). An unpriced model costs 0.
 */
function worstCase(c: Pick<CallRow, 'messages' | 'max_tokens' | 'model'>): Worst {
  const prompt = Math.ceil(c.messages.reduce((n, m) => n + m.content.length, 0) / 4);
  const price = priceOf(PRICES, c.model);
  return { tokens: prompt + c.max_tokens, usd: price ? (prompt * price.input + c.max_tokens * price.output) / 1_000_000 : 0 };
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
/** How many of the judges, in dispatch order, fit under `cap` together. */
function fitting(worst: number[], cap: number): number {
  let n = 0;
  while (n < worst.length && sum(worst.slice(0, n + 1)) <= cap) n += 1;
  return n;
}

/**
 * Five parallel judges against a tight max_tokens / max_cost_usd, through real services. The
 * five roast calls are requested in ONE step, so whether they can overshoot a cap together is
 * decided entirely by the ledger counting the reservations made earlier in that same step.
 */
describe('panel: five parallel judges stop at max_tokens and max_cost_usd, not past them (real services)', () => {
  let pipeline: Pipeline;
  /** The five roast calls' worst cases, in dispatch order, from a run with no tight cap. */
  let calibration: Worst[];

  beforeAll(async () => {
    pipeline = await startPipeline({ env: { PRICING_FILE } });
    // Calibration: the roast prompts as the orchestrator builds them, read back from a run the
    // caps do not touch (no debate or re-vote: five judges and the moderator).
    const res = await submitRun(pipeline.api, projectConfigFrom(DEMO, { max_debate_rounds: 0, revote: false }));
    expect(res.status).toBe(202);
    const id = res.body.id as string;
    expect(await waitForTerminal(pipeline, id, 60_000)).toMatchObject({ status: 'done' });
    const roast = (await callsOf(id)).filter((c) => c.stage === 'ROAST');
    expect(roast.map((c) => c.role)).toEqual([...JUDGES]);
    calibration = roast.map(worstCase);
  });

  afterAll(async () => {
    await pipeline?.stop();
  });

  const callsOf = (id: string) =>
    pipeline.sql<CallRow>(
      `SELECT id, role, stage, model, status, messages, max_tokens, input_tokens, output_tokens, cost_usd FROM agent_calls WHERE run_id = $1 ORDER BY seq`,
      [id],
    );

  /**
   * Samples the run's recorded usage (usage_by_provider: what the ledger counts, updated in the
   * same transaction that releases a call's reservation) and its reservations until it is
   * terminal. Samples taken once the moderator's row exists are marked `closing`: that one call
   * is exempt from the caps (closing.ts), and it is queued only after every judge has landed.
   */
  async function sampleUntilTerminal(id: string): Promise<Sample[]> {
    const samples: Sample[] = [];
    for (;;) {
      const [s] = await pipeline.sql<Sample & { status: string }>(
        `SELECT (SELECT status FROM runs WHERE id = $1) AS status,
                EXISTS (SELECT 1 FROM agent_calls WHERE run_id = $1 AND role = 'moderator') AS closing,
                (SELECT coalesce(sum(input_tokens + output_tokens), 0)::int FROM usage_by_provider WHERE run_id = $1) AS used_tokens,
                (SELECT coalesce(sum(cost_usd), 0)::text FROM usage_by_provider WHERE run_id = $1) AS used_usd,
                (SELECT coalesce(json_agg(json_build_object('call_id', call_id, 'tokens', tokens, 'cost_usd', cost_usd)), '[]')
                   FROM budget_reservations WHERE run_id = $1) AS reservations`,
        [id],
      );
      samples.push(s);
      if (['done', 'halted', 'failed', 'cancelled', 'needs_input'].includes(s.status)) return samples;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** What every case asserts of the calls: k judges in dispatch order, then exactly the moderator. */
  async function startedJudges(id: string, k: number): Promise<CallRow[]> {
    const calls = await callsOf(id);
    expect(calls.map((c) => `${c.stage}:${c.role}`)).toEqual([...JUDGES.slice(0, k).map((j) => `ROAST:${j}`), 'MODERATE:moderator']);
    expect(calls.every((c) => c.status === 'completed')).toBe(true);
    const [{ n }] = await pipeline.sql<{ n: number }>(`SELECT count(*)::int AS n FROM budget_reservations WHERE run_id = $1`, [id]);
    expect(n).toBe(0); // every reservation released
    return calls.filter((c) => c.role !== 'moderator');
  }

  /** The reservations seen in flight are the judges' worst cases, all k held at one moment. */
  function expectReservationsSeen(samples: Sample[], judges: CallRow[]): void {
    const seen = new Map<string, { tokens: number; cost_usd: string | null }>();
    for (const s of samples) for (const r of s.reservations) seen.set(r.call_id, r);
    for (const j of judges) {
      const w = worstCase(j);
      expect(seen.get(j.id)?.tokens).toBe(w.tokens);
      const usd = seen.get(j.id)?.cost_usd;
      if (w.usd === 0) expect(usd === null || Number(usd) === 0).toBe(true);
      else expect(Number(usd)).toBeCloseTo(w.usd, 5); // the column keeps six decimals, rounded
    }
    // The reservations are written with the call rows, before any call is sent, in one step.
    expect(Math.max(...samples.filter((s) => !s.closing).map((s) => s.reservations.length))).toBe(judges.length);
  }

  it('max_tokens: the judges that fit together start, the next is refused, usage + reservations never pass the cap', async () => {
    const worst = calibration.map((w) => w.tokens);
    // Three judges' worst cases fit, a fourth does not: the cap sits halfway into the fourth.
    const cap = sum(worst.slice(0, 3)) + Math.floor(worst[3] / 2);
    const k = fitting(worst, cap);
    expect(k).toBe(3);
    // Why this catches a ledger that ignores same-step reservations: all five are requested in
    // one step with nothing recorded yet, so such a ledger checks each judge alone against the
    // cap, every one fits alone (below), and all five would start: 5 calls, not 3, and the
    // samples would see five reservations summing past the cap.
    expect(Math.max(...worst)).toBeLessThanOrEqual(cap);
    expect(sum(worst)).toBeGreaterThan(cap);

    const cfg = projectConfigFrom(DEMO, { budget: { max_calls: 40, max_tokens: cap, max_cost_usd: 100, max_seconds: 900 } }) as {
      providers: Record<string, Record<string, unknown>>;
    };
    cfg.providers.replay.latency_ms = LATENCY_MS;
    const res = await submitRun(pipeline.api, cfg);
    expect(res.status).toBe(202);
    const id = res.body.id as string;
    const samples = await sampleUntilTerminal(id);
    const run = await waitForTerminal(pipeline, id, 60_000);

    expect(run).toMatchObject({ workflow: 'panel', status: 'halted', stage: 'DONE', caps: expect.objectContaining({ max_tokens: cap }) });
    const judges = await startedJudges(id, k);
    // The refusal names the cap, with the reserved worst cases of the judges that started and
    // the refused judge's own worst case, which would have fitted alone.
    const started = sum(judges.map((j) => worstCase(j).tokens));
    const m = /^max_tokens would be exceeded: (\d+) tokens used or reserved \+ (\d+) estimated for the next call > (\d+)$/.exec(run.halt_reason as string);
    expect(m).not.toBeNull();
    const [usedOrReserved, next, named] = m!.slice(1).map(Number);
    expect({ usedOrReserved, named }).toEqual({ usedOrReserved: started, named: cap });
    expect(usedOrReserved).toBeLessThanOrEqual(cap);
    expect(usedOrReserved + next).toBeGreaterThan(cap);
    expect(next).toBeLessThanOrEqual(cap);
    const halts = await pipeline.sql<{ refs: string[] }>(`SELECT refs FROM decisions WHERE run_id = $1 AND to_stage = 'HALTED'`, [id]);
    expect(halts).toEqual([{ refs: ['max_tokens'] }]);

    expectReservationsSeen(samples, judges);
    // At no sampled moment before the exempt closing call did recorded usage + reservations pass the cap.
    const peak = Math.max(...samples.filter((s) => !s.closing).map((s) => s.used_tokens + sum(s.reservations.map((r) => r.tokens))));
    expect(peak).toBe(started); // the moment all k were in flight, nothing recorded yet
    expect(peak).toBeLessThanOrEqual(cap);
    // And what the judges recorded (the moderator's one exempt call excluded) stays under it.
    const recorded = sum(judges.map((j) => (j.input_tokens ?? 0) + (j.output_tokens ?? 0)));
    expect(recorded).toBeGreaterThan(0);
    expect(recorded).toBeLessThanOrEqual(cap);
  });

  it('max_cost_usd: the judges whose worst-case price fits together start, the next is refused, spend + reservations never pass the cap', async () => {
    const worst = calibration.map((w) => w.usd);
    // Dispatch order vc, engineer, pm, customer, competitor: vc and engineer fit together, pm does not.
    expect(worst.slice(0, 3).every((u) => u > 0)).toBe(true);
    const cap = Number((worst[0] + worst[1] + worst[2] / 2).toFixed(6));
    const k = fitting(worst, cap);
    expect(k).toBe(2);
    // As for max_tokens: each judge alone fits, so a ledger blind to the reservations made
    // earlier in the same step (or one that reserved no USD at all) would start all five.
    expect(Math.max(...worst)).toBeLessThanOrEqual(cap);
    expect(sum(worst)).toBeGreaterThan(cap);

    const cfg = projectConfigFrom(DEMO, { budget: { max_calls: 40, max_tokens: 400_000, max_cost_usd: cap, max_seconds: 900 } }) as {
      providers: Record<string, Record<string, unknown>>;
    };
    cfg.providers.replay.latency_ms = LATENCY_MS;
    const res = await submitRun(pipeline.api, cfg);
    expect(res.status).toBe(202);
    const id = res.body.id as string;
    const samples = await sampleUntilTerminal(id);
    const run = await waitForTerminal(pipeline, id, 60_000);

    expect(run).toMatchObject({ workflow: 'panel', status: 'halted', stage: 'DONE', caps: expect.objectContaining({ max_cost_usd: cap }) });
    const halts = await pipeline.sql<{ refs: string[] }>(`SELECT refs FROM decisions WHERE run_id = $1 AND to_stage = 'HALTED'`, [id]);
    expect(halts).toEqual([{ refs: ['max_cost_usd'] }]);
    const judges = await startedJudges(id, k);
    const started = sum(judges.map((j) => worstCase(j).usd));
    expect(started).toBeLessThanOrEqual(cap);
    // The refusal names the cap, what the started judges reserved and the refused judge's (pm's) worst case, as the report formats dollars.
    const dollars = (n: number) => `$${n.toFixed(n !== 0 && Math.abs(n) < 0.01 ? 4 : 2)}`;
    expect(run.halt_reason).toBe(
      `max_cost_usd would be exceeded: ${dollars(started)} spent or reserved + ${dollars(worst[k])} at the table price for the next call > ${dollars(cap)}`,
    );

    expectReservationsSeen(samples, judges);
    const usd = (s: Sample) => Number(s.used_usd) + sum(s.reservations.map((r) => Number(r.cost_usd ?? 0)));
    const peak = Math.max(...samples.filter((s) => !s.closing).map(usd));
    expect(peak).toBeCloseTo(started, 5);
    expect(peak).toBeLessThanOrEqual(cap);
    const recorded = sum(judges.map((j) => Number(j.cost_usd ?? 0)));
    expect(recorded).toBeGreaterThan(0);
    expect(recorded).toBeLessThanOrEqual(cap);
  });
});
