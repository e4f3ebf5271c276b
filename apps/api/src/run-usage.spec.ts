import { runSeconds, summarizeUsage, type ProviderCallTotals } from './run-usage';

const row = (over: Partial<ProviderCallTotals>): ProviderCallTotals => ({
  provider: 'replay',
  calls: 1,
  failedCalls: 0,
  inputTokens: 0,
  outputTokens: 0,
  costUsd: null,
  unpricedCalls: 0,
  ...over,
});

describe('summarizeUsage', () => {
  it('adds every provider into the run totals and keeps each provider apart', () => {
    const s = summarizeUsage(
      [
        row({ provider: 'anthropic', calls: 3, failedCalls: 1, inputTokens: 1000, outputTokens: 200, costUsd: 0.0123456 }),
        row({ provider: 'openai', calls: 2, inputTokens: 500, outputTokens: 50, costUsd: 0.01 }),
      ],
      42,
    );
    expect(s.usage).toEqual({ calls: 5, failed_calls: 1, input_tokens: 1500, output_tokens: 250, tokens: 1750, cost_usd: 0.022346, unpriced_calls: 0, seconds: 42 });
    expect(s.byProvider.anthropic).toEqual({ calls: 3, input_tokens: 1000, output_tokens: 200, cost_usd: 0.012346 });
    expect(s.byProvider.openai.cost_usd).toBe(0.01);
  });

  it('reports no cost, not zero, when no call had a known price', () => {
    const s = summarizeUsage([row({ calls: 4, unpricedCalls: 4 })], null);
    expect(s.usage.cost_usd).toBeNull();
    expect(s.byProvider.replay.cost_usd).toBeNull();
    expect(s.unpricedCalls).toBe(4);
    expect(s.usage.unpriced_calls).toBe(4);
  });

  it('sums the known prices when only some providers have one, and counts the unpriced calls', () => {
    const s = summarizeUsage([row({ provider: 'a', costUsd: 0.5 }), row({ provider: 'b', costUsd: null, unpricedCalls: 1 })], null);
    expect(s.usage.cost_usd).toBe(0.5);
    expect(s.byProvider.b.cost_usd).toBeNull();
    expect(s.unpricedCalls).toBe(1);
  });

  it('is all zeros for a run without finished calls', () => {
    expect(summarizeUsage([], null).usage).toEqual({
      calls: 0,
      failed_calls: 0,
      input_tokens: 0,
      output_tokens: 0,
      tokens: 0,
      cost_usd: null,
      unpriced_calls: 0,
      seconds: null,
    });
  });
});

describe('runSeconds', () => {
  const t0 = new Date('2025-01-01T00:00:00Z');
  it('is null before the run starts', () => {
    expect(runSeconds(null, null, t0)).toBeNull();
  });
  it('runs to now while the run is going, and stops at finished_at', () => {
    expect(runSeconds(t0, null, new Date(t0.getTime() + 12_340))).toBe(12.3);
    expect(runSeconds(t0, new Date(t0.getTime() + 5000), new Date(t0.getTime() + 99_000))).toBe(5);
    // Waits at gates are not the run's time: closed waits and the open one.
    expect(runSeconds(t0, null, new Date(t0.getTime() + 60_000), { waitedSeconds: 20 })).toBe(40);
    expect(runSeconds(t0, null, new Date(t0.getTime() + 60_000), { waitedSeconds: 20, gateOpenedAt: new Date(t0.getTime() + 50_000) })).toBe(30);
  });
});
