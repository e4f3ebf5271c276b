/** One provider's finished calls (completed or failed) of a run, as aggregated by SQL. */
export interface ProviderCallTotals {
  provider: string;
  calls: number;
  failedCalls: number;
  inputTokens: number;
  outputTokens: number;
  /** Sum of the known prices; null when no call of this provider had one. */
  costUsd: number | null;
  /** Completed calls without a known price. */
  unpricedCalls: number;
}

export interface ProviderUsage {
  calls: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number | null;
}

export interface RunUsage {
  calls: number;
  failed_calls: number;
  input_tokens: number;
  output_tokens: number;
  tokens: number;
  /** Sum of the known prices; null when no call had one (never a guessed 0). */
  cost_usd: number | null;
  /** Completed calls whose model has no table price: cost_usd leaves them out, and the budget reserved no USD for them. */
  unpriced_calls: number;
  seconds: number | null;
}

export interface UsageSummary {
  usage: RunUsage;
  byProvider: Record<string, ProviderUsage>;
  /** Completed calls without a known price: when any, a total cost cannot be claimed. */
  unpricedCalls: number;
}

const usd = (n: number): number => Math.round(n * 1e6) / 1e6;

function addCost(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return a + b;
}

/** Wall-clock seconds of the run, the same measure the max_seconds cap uses; null before it starts. */
export function runSeconds(
  startedAt: Date | null,
  finishedAt: Date | null,
  now: Date,
  waits: { waitedSeconds?: number | null; gateOpenedAt?: Date | null } = {},
): number | null {
  if (!startedAt) return null;
  const end = finishedAt ?? now;
  // Time spent waiting for a person at a gate is not the run's: max_seconds does not count it either.
  const open = waits.gateOpenedAt ? Math.max(0, end.getTime() - new Date(waits.gateOpenedAt).getTime()) : 0;
  const working = end.getTime() - startedAt.getTime() - Number(waits.waitedSeconds ?? 0) * 1000 - open;
  return Math.max(0, Math.round(working / 100) / 10);
}

export function summarizeUsage(rows: ProviderCallTotals[], seconds: number | null): UsageSummary {
  const usage: RunUsage = { calls: 0, failed_calls: 0, input_tokens: 0, output_tokens: 0, tokens: 0, cost_usd: null, unpriced_calls: 0, seconds };
  const byProvider: Record<string, ProviderUsage> = {};
  let unpricedCalls = 0;
  for (const r of rows) {
    byProvider[r.provider] = {
      calls: r.calls,
      input_tokens: r.inputTokens,
      output_tokens: r.outputTokens,
      cost_usd: r.costUsd === null ? null : usd(r.costUsd),
    };
    usage.calls += r.calls;
    usage.failed_calls += r.failedCalls;
    usage.input_tokens += r.inputTokens;
    usage.output_tokens += r.outputTokens;
    usage.cost_usd = addCost(usage.cost_usd, r.costUsd);
    unpricedCalls += r.unpricedCalls;
  }
  usage.tokens = usage.input_tokens + usage.output_tokens;
  usage.unpriced_calls = unpricedCalls;
  if (usage.cost_usd !== null) usage.cost_usd = usd(usage.cost_usd);
  return { usage, byProvider, unpricedCalls };
}
