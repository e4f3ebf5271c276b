/**
 * The compare page's figures for two runs side by side (issue 22, "compare"): their usage, their
 * calls per role, and any rows a workflow gives (scores, verdicts), lined up by label. Pure: the
 * page fetches, these say what each cell reads.
 */
import type { CallSummary, RunDetail } from './api-types';
import { fmtCost, fmtDuration, fmtInt } from './format';

/** A labelled fact about one run (a workflow's compare rows, the verdict), as the page shows it. */
export interface CompareRow {
  label: string;
  value: string;
}

/** One label, and what each of the two runs says for it ('—' when that run has no such row). */
export interface SideBySide {
  label: string;
  a: string;
  b: string;
}

/** Lines up two runs' rows by label: a's order first, then the labels only b has, in b's order. */
export function alignRows(a: readonly CompareRow[], b: readonly CompareRow[]): SideBySide[] {
  const bByLabel = new Map(b.map((r) => [r.label, r.value]));
  const aLabels = new Set(a.map((r) => r.label));
  return [
    ...a.map((r) => ({ label: r.label, a: r.value, b: bByLabel.get(r.label) ?? '—' })),
    ...b.filter((r) => !aLabels.has(r.label)).map((r) => ({ label: r.label, a: '—', b: r.value })),
  ];
}

/** A run's verdict and its confidence, the rows every workflow has. */
export function verdictRows(run: Pick<RunDetail, 'verdict' | 'confidence' | 'status'>): CompareRow[] {
  return [
    { label: 'Status', value: run.status },
    { label: 'Verdict', value: run.verdict ?? '—' },
    { label: 'Confidence', value: run.confidence === null ? '—' : run.confidence.toFixed(2) },
  ];
}

export type RunUsage = RunDetail['usage'];

/** A usage figure of both runs: the two as shown, and b − a as shown (null when either is unknown). */
export interface UsageRow {
  label: string;
  a: string;
  b: string;
  delta: string | null;
}

/** b − a with its sign; ±0 when it is nothing at the shown precision (two costs a millionth of a dollar apart). */
function signed(d: number, fmt: (n: number) => string): string {
  const shown = fmt(Math.abs(d));
  if (d === 0 || !/[1-9]/.test(shown)) return '±0';
  return d > 0 ? `+${shown}` : `−${shown}`;
}

/** Calls, failed calls, tokens (in, out, all), USD and seconds of two runs, with b − a. */
export function usageRows(a: RunUsage, b: RunUsage): UsageRow[] {
  const row = (label: string, x: number | null, y: number | null, fmt: (n: number) => string): UsageRow => ({
    label,
    a: x === null ? '—' : fmt(x),
    b: y === null ? '—' : fmt(y),
    delta: x === null || y === null ? null : signed(y - x, fmt),
  });
  const seconds = (s: number) => fmtDuration(s * 1000);
  return [
    row('Calls', a.calls, b.calls, fmtInt),
    row('Failed calls', a.failed_calls, b.failed_calls, fmtInt),
    row('Input tokens', a.input_tokens, b.input_tokens, fmtInt),
    row('Output tokens', a.output_tokens, b.output_tokens, fmtInt),
    row('Tokens', a.tokens, b.tokens, fmtInt),
    row('Cost (USD)', a.cost_usd, b.cost_usd, fmtCost),
    row('Seconds', a.seconds, b.seconds, seconds),
  ];
}

/** One role's calls in a run. */
export interface RoleUsage {
  role: string;
  calls: number;
  failed: number;
  tokens: number;
  /** The known prices summed; null when none of its calls had one (never a guessed 0). */
  cost_usd: number | null;
}

/** A run's calls grouped by role, in the order each role was first called. Every try counts as a call, as the run's usage does. */
export function callsByRole(calls: readonly Pick<CallSummary, 'role' | 'status' | 'input_tokens' | 'output_tokens' | 'cost_usd'>[]): RoleUsage[] {
  const roles = new Map<string, RoleUsage>();
  for (const c of calls) {
    let r = roles.get(c.role);
    if (!r) roles.set(c.role, (r = { role: c.role, calls: 0, failed: 0, tokens: 0, cost_usd: null }));
    r.calls++;
    if (c.status === 'failed') r.failed++;
    r.tokens += (c.input_tokens ?? 0) + (c.output_tokens ?? 0);
    if (c.cost_usd !== null) r.cost_usd = (r.cost_usd ?? 0) + c.cost_usd;
  }
  return [...roles.values()];
}

/** A role and its calls in each run (null: that run never called it). */
export interface RolePair {
  role: string;
  a: RoleUsage | null;
  b: RoleUsage | null;
}

/** The roles of both runs, a's order first, then those only b called. */
export function alignRoles(a: readonly RoleUsage[], b: readonly RoleUsage[]): RolePair[] {
  const bByRole = new Map(b.map((r) => [r.role, r]));
  const aRoles = new Set(a.map((r) => r.role));
  return [...a.map((r) => ({ role: r.role, a: r, b: bByRole.get(r.role) ?? null })), ...b.filter((r) => !aRoles.has(r.role)).map((r) => ({ role: r.role, a: null, b: r }))];
}

/**
 * The two runs ticked on the runs list as the compare page's A and B: the older is A (left), so
 * the report diff reads old to new (same age: by id). Null unless exactly two are ticked.
 * `picked`: run id → its created_at (ISO, so the text sorts as the time).
 */
export function comparePair(picked: ReadonlyMap<string, string | null>): { a: string; b: string } | null {
  if (picked.size !== 2) return null;
  const [x, y] = [...picked.entries()].sort(([id1, t1], [id2, t2]) => (t1 ?? '').localeCompare(t2 ?? '') || id1.localeCompare(id2));
  return { a: x[0], b: y[0] };
}
