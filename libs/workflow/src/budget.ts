import type { BudgetConfig } from '@roundtable/contracts';
import type { ChatMessage, SharedUsage, UsageSnapshot, UsageTotals } from './engine/call-types';

/**
 * Budget arithmetic (seed §10 #3, ARCHITECTURE "budget before every enqueue"). Usage counts
 * finished calls plus reservations of calls still in flight, so calls queued in parallel can
 * never overshoot a cap together.
 */

export type BudgetCheck = { ok: true } | { ok: false; cap: string; reason: string };

export interface PlannedCall {
  provider: string;
  /** The tokens the call may use at worst (the ledger passes the prompt estimate + max output tokens). */
  estimatedTokens: number;
  /** What the call may cost at worst, at the model's table price; 0 or absent = unpriced. */
  costUsd?: number;
}

export interface BudgetWarning {
  cap: string;
  used: number;
  limit: number;
}

/** A cap is warned about once it is this full. */
export const BUDGET_WARNING_RATIO = 0.8;

const ZERO: UsageTotals = { calls: 0, tokens: 0, costUsd: 0 };

function sum(a: UsageTotals | undefined, b: UsageTotals | undefined): UsageTotals {
  const x = a ?? ZERO;
  const y = b ?? ZERO;
  return { calls: x.calls + y.calls, tokens: x.tokens + y.tokens, costUsd: (x.costUsd ?? 0) + (y.costUsd ?? 0) };
}

function committed(usage: UsageSnapshot): UsageTotals {
  return sum(usage.used, usage.reserved);
}

function committedFor(usage: UsageSnapshot, provider: string): UsageTotals {
  return sum(usage.usedByProvider[provider], usage.reservedByProvider[provider]);
}

export function formatUsd(n: number): string {
  return `$${n.toFixed(n !== 0 && Math.abs(n) < 0.01 ? 4 : 2)}`;
}

function formatSeconds(n: number): string {
  return `${Math.round(n * 10) / 10} s`;
}

interface Caps {
  max_calls?: number;
  max_tokens?: number;
  max_cost_usd?: number;
}

/** The checks shared by the run-wide caps and one provider's caps; `prefix` names the scope. */
function checkCaps(caps: Caps, now: UsageTotals, call: PlannedCall, prefix: string): BudgetCheck {
  if (caps.max_calls !== undefined && now.calls + 1 > caps.max_calls) {
    return {
      ok: false,
      cap: `${prefix}max_calls`,
      reason: `${prefix}max_calls reached: ${now.calls} of ${caps.max_calls} calls used or in flight`,
    };
  }
  if (caps.max_tokens !== undefined && now.tokens + call.estimatedTokens > caps.max_tokens) {
    return {
      ok: false,
      cap: `${prefix}max_tokens`,
      reason:
        `${prefix}max_tokens would be exceeded: ${now.tokens} tokens used or reserved + ` +
        `${call.estimatedTokens} estimated for the next call > ${caps.max_tokens}`,
    };
  }
  if (caps.max_cost_usd !== undefined && now.costUsd >= caps.max_cost_usd) {
    return {
      ok: false,
      cap: `${prefix}max_cost_usd`,
      reason: `${prefix}max_cost_usd reached: ${formatUsd(now.costUsd)} of ${formatUsd(caps.max_cost_usd)} spent or reserved`,
    };
  }
  const cost = call.costUsd ?? 0;
  if (caps.max_cost_usd !== undefined && now.costUsd + cost > caps.max_cost_usd) {
    return {
      ok: false,
      cap: `${prefix}max_cost_usd`,
      reason:
        `${prefix}max_cost_usd would be exceeded: ${formatUsd(now.costUsd)} spent or reserved + ` +
        `${formatUsd(cost)} at the table price for the next call > ${formatUsd(caps.max_cost_usd)}`,
    };
  }
  return { ok: true };
}

/**
 * A team's or a project's caps (the operator's policy, issue 26) for one more call: what every
 * run of the scope has used or holds in flight, today (UTC) and ever, against its caps. The
 * reason names the scope's policy path and says it counts all runs.
 */
export function checkScope(shared: SharedUsage, call: Pick<PlannedCall, 'costUsd'>): BudgetCheck {
  const { caps, used, scope, label } = shared;
  const whose = `(${label}, all runs)`;
  if (caps.max_calls_per_day !== undefined && used.callsToday + 1 > caps.max_calls_per_day) {
    return {
      ok: false,
      cap: `${scope}.max_calls_per_day`,
      reason: `${scope}.max_calls_per_day reached: ${used.callsToday} of ${caps.max_calls_per_day} calls used or in flight today ${whose}`,
    };
  }
  const cost = call.costUsd ?? 0;
  const usd = [
    ['max_usd_per_day', used.usdToday, caps.max_usd_per_day, ' today'],
    ['max_usd_total', used.usdTotal, caps.max_usd_total, ''],
  ] as const;
  for (const [name, now, cap, when] of usd) {
    if (cap === undefined) continue;
    if (now >= cap) {
      return { ok: false, cap: `${scope}.${name}`, reason: `${scope}.${name} reached: ${formatUsd(now)} of ${formatUsd(cap)} spent or reserved${when} ${whose}` };
    }
    if (now + cost > cap) {
      return {
        ok: false,
        cap: `${scope}.${name}`,
        reason: `${scope}.${name} would be exceeded: ${formatUsd(now)} spent or reserved${when} + ${formatUsd(cost)} at the table price for the next call > ${formatUsd(cap)} ${whose}`,
      };
    }
  }
  return { ok: true };
}

/** Every shared scope of the run (team, project) for one more call; the first refusal, or ok. */
export function checkSharedScopes(usage: UsageSnapshot, call: Pick<PlannedCall, 'costUsd'>): BudgetCheck {
  for (const shared of usage.shared ?? []) {
    const check = checkScope(shared, call);
    if (!check.ok) return check;
  }
  return { ok: true };
}

/** May one more call to `call.provider` start? Run-wide caps first, then the team's and the project's, then the provider's own. */
export function checkBudget(usage: UsageSnapshot, budget: BudgetConfig, call: PlannedCall): BudgetCheck {
  const run = checkCaps(budget, committed(usage), call, '');
  if (!run.ok) return run;
  const shared = checkSharedScopes(usage, call);
  if (!shared.ok) return shared;
  if (usage.elapsedSeconds >= budget.max_seconds) {
    return {
      ok: false,
      cap: 'max_seconds',
      reason: `max_seconds reached: ${formatSeconds(usage.elapsedSeconds)} of ${formatSeconds(budget.max_seconds)} elapsed`,
    };
  }
  const caps = budget.per_provider[call.provider];
  if (caps) return checkCaps(caps, committedFor(usage, call.provider), call, `per_provider.${call.provider}.`);
  return { ok: true };
}

/** Has `provider` hit one of its own caps, so that not even one more call may go to it? */
export function providerExhausted(usage: UsageSnapshot, budget: BudgetConfig, provider: string): boolean {
  const caps = budget.per_provider[provider];
  if (!caps) return false;
  const now = committedFor(usage, provider);
  return (
    (caps.max_calls !== undefined && now.calls >= caps.max_calls) ||
    (caps.max_tokens !== undefined && now.tokens >= caps.max_tokens) ||
    (caps.max_cost_usd !== undefined && now.costUsd >= caps.max_cost_usd)
  );
}

/** Every cap with its current figure, run-wide, per provider, then across runs (team, project). */
function capFigures(usage: UsageSnapshot, budget: BudgetConfig): BudgetWarning[] {
  const now = committed(usage);
  const figures: BudgetWarning[] = [
    { cap: 'max_calls', used: now.calls, limit: budget.max_calls },
    { cap: 'max_tokens', used: now.tokens, limit: budget.max_tokens },
  ];
  if (budget.max_cost_usd !== undefined) figures.push({ cap: 'max_cost_usd', used: now.costUsd, limit: budget.max_cost_usd });
  figures.push({ cap: 'max_seconds', used: usage.elapsedSeconds, limit: budget.max_seconds });
  for (const [provider, caps] of Object.entries(budget.per_provider)) {
    const p = committedFor(usage, provider);
    const prefix = `per_provider.${provider}.`;
    if (caps.max_calls !== undefined) figures.push({ cap: `${prefix}max_calls`, used: p.calls, limit: caps.max_calls });
    if (caps.max_tokens !== undefined) figures.push({ cap: `${prefix}max_tokens`, used: p.tokens, limit: caps.max_tokens });
    if (caps.max_cost_usd !== undefined) figures.push({ cap: `${prefix}max_cost_usd`, used: p.costUsd, limit: caps.max_cost_usd });
  }
  // A team's or a project's caps across runs: all its runs' figures, warned about by each run once.
  for (const { scope, caps, used } of usage.shared ?? []) {
    if (caps.max_calls_per_day !== undefined) figures.push({ cap: `${scope}.max_calls_per_day`, used: used.callsToday, limit: caps.max_calls_per_day });
    if (caps.max_usd_per_day !== undefined) figures.push({ cap: `${scope}.max_usd_per_day`, used: used.usdToday, limit: caps.max_usd_per_day });
    if (caps.max_usd_total !== undefined) figures.push({ cap: `${scope}.max_usd_total`, used: used.usdTotal, limit: caps.max_usd_total });
  }
  return figures;
}

export const warnedKey = (cap: string): string => `warn:${cap}`;

/**
 * Caps at or above 80 %, each reported once per run: `counters` carries the caps already
 * warned about (`warn:<cap>` = 1) in, and comes back with the new ones added.
 */
export function budgetWarnings(
  usage: UsageSnapshot,
  budget: BudgetConfig,
  counters: Readonly<Record<string, number>> = {},
): { warnings: BudgetWarning[]; counters: Record<string, number> } {
  const next = { ...counters };
  const warnings: BudgetWarning[] = [];
  for (const f of capFigures(usage, budget)) {
    if (f.limit > 0 && f.used / f.limit >= BUDGET_WARNING_RATIO && !next[warnedKey(f.cap)]) {
      next[warnedKey(f.cap)] = 1;
      warnings.push(f);
    }
  }
  return { warnings, counters: next };
}

/** A deliberately rough prompt size: about four characters per token. */
export function estimateTokens(messages: readonly Pick<ChatMessage, 'content' | 'toolCalls'>[]): number {
  // A tool call's arguments (a whole file written) are prompt text on the next turn too.
  const chars = messages.reduce((n, m) => n + m.content.length + (m.toolCalls ? JSON.stringify(m.toolCalls).length : 0), 0);
  return Math.ceil(chars / 4);
}

/**
 * The cost line of a budget summary. Unpriced calls add nothing to the sum, so a sum that
 * leaves calls out says so, and a sum of none is "unknown", never a $0.00 that reads as free.
 */
export function costLine(costUsd: number, unpricedCalls: number, calls: number, capUsd: number | undefined): string {
  const cap = capUsd !== undefined ? ` of ${formatUsd(capUsd)}` : ' (no cap)';
  const unpriced = `${unpricedCalls} ${unpricedCalls === 1 ? 'call' : 'calls'} unpriced`;
  if (unpricedCalls > 0 && unpricedCalls >= calls) return `cost unknown (${unpriced})${capUsd !== undefined ? `; cap ${formatUsd(capUsd)}` : ' (no cap)'}`;
  if (unpricedCalls > 0) return `cost: ${formatUsd(costUsd)} + ${unpriced}${cap}`;
  return `cost: ${formatUsd(costUsd)}${cap}`;
}

/** One line per cap for the synthesizer and the report: what was used against what was allowed. */
export function budgetSummary(usage: UsageSnapshot, budget: BudgetConfig): string {
  const used = usage.used;
  const lines = [
    `calls: ${used.calls} of ${budget.max_calls}`,
    `tokens: ${used.tokens} of ${budget.max_tokens}`,
    costLine(used.costUsd, usage.unpricedCalls ?? 0, used.calls, budget.max_cost_usd),
    `elapsed: ${formatSeconds(usage.elapsedSeconds)} of ${formatSeconds(budget.max_seconds)}`,
  ];
  for (const [provider, caps] of Object.entries(budget.per_provider)) {
    const p = usage.usedByProvider[provider] ?? ZERO;
    const parts = [`${p.calls}${caps.max_calls !== undefined ? ` of ${caps.max_calls}` : ''} calls`, `${p.tokens}${caps.max_tokens !== undefined ? ` of ${caps.max_tokens}` : ''} tokens`];
    if (caps.max_cost_usd !== undefined) parts.push(`${formatUsd(p.costUsd)} of ${formatUsd(caps.max_cost_usd)}`);
    lines.push(`${provider}: ${parts.join(', ')}`);
  }
  return lines.join('\n');
}
