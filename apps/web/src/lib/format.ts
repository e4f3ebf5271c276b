/** How numbers and times read on the pages: one place, so the list and the run page agree. */

export const fmtInt = (n: number | null | undefined): string => (n === null || n === undefined ? '—' : n.toLocaleString('en-US'));

/**
 * A cost, wherever one shows (the header, Budget and its warnings, the burn chart's axis, the
 * calls, the runs list): null is unknown (an unpriced call), never $0. Under a dollar always to four
 * decimals, so a run's cost, its calls' and its cap read alike ($0.0090 of $0.0100: a switch at a
 * cent had it $0.0090 beside $0.01); from a dollar up, cents.
 */
export function fmtCost(usd: number | null | undefined): string {
  if (usd === null || usd === undefined) return '—';
  if (usd === 0) return '$0.00';
  return Math.abs(usd) < 1 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

/** A figure against a budget cap (a budget_warning's used and limit): dollars for a cost cap, else a count. */
export const fmtCapFigure = (cap: string, n: number): string => (cap.endsWith('max_cost_usd') ? fmtCost(n) : fmtInt(n));

export function fmtDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  return `${m} min ${Math.round(s - m * 60)} s`;
}

/** How long ago, from `now` (the list's age column). */
export function fmtAge(iso: string | null, now: number): string {
  if (!iso) return '—';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '—';
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86400) return `${Math.floor(s / 3600)} h`;
  return `${Math.floor(s / 86400)} d`;
}

export const fmtPercent = (n: number | null | undefined): string => (n === null || n === undefined ? '—' : `${Math.round(n * 100)} %`);
