import type { EvalCellView, EvalConfigSummary, EvalDetail, EvalPairSummary } from './api-types';
import { fmtCost, fmtInt } from './format';

/**
 * How an eval's figures read on its pages (issue 25): the pass rate, intervals, a pair's finding,
 * a matrix cell's mark and the plot's alt text. Pure, so the list, the summary, the pairs and the
 * matrix say the same thing the same way.
 */

/** How often an eval's pages ask again while it runs (each cell's run has its own live page). */
export const EVAL_POLL_MS = 3000;

/** Cells scored or in error, of all: "37/60". */
export const progressText = (p: { done: number; total: number }): string => `${p.done}/${p.total}`;

/** A rate as a whole percent, "75 %" (as fmtPercent reads). */
const pct = (x: number): string => `${Math.round(x * 100)} %`;

/** "15/20 (75 %)"; nothing scored yet is "0/0", with no rate to invent. */
export function passRateText(passed: number, n: number): string {
  return n === 0 ? '0/0' : `${passed}/${n} (${pct(passed / n)})`;
}

/** A pass rate's 95 % interval, "58–89 %"; none (nothing scored) is "—". */
export function intervalText(interval: [number, number] | null): string {
  if (!interval) return '—';
  return `${Math.round(interval[0] * 100)}–${pct(interval[1])}`;
}

/** A difference of two pass rates in percentage points, signed: "+15 pts", "−5 pts", "0 pts". */
export function pointsText(diff: number): string {
  const n = Math.round(diff * 100);
  // −0 and a rounding to 0 both read "0 pts"; a true minus sign, not a hyphen.
  if (n === 0) return '0 pts';
  return `${n > 0 ? '+' : '−'}${Math.abs(n)} pts`;
}

/** A paired difference's interval in points: "−5 to +35 pts". */
export function pointsIntervalText(interval: [number, number]): string {
  return `${pointsText(interval[0]).replace(/ pts$/, '')} to ${pointsText(interval[1])}`;
}

/** McNemar's p: three decimals, and "< 0.001" below that (never "0.000"). */
export function pValueText(p: number): string {
  return p < 0.001 ? '< 0.001' : p.toFixed(3);
}

/**
 * A pair's finding in words (never colour alone): the api's `significant` is its claim that the
 * McNemar test and the paired interval agree; which way is read from the difference.
 */
export function pairFinding(pair: EvalPairSummary): { significant: boolean; text: string } {
  if (!pair.significant) return { significant: false, text: 'no significant difference' };
  const ahead = pair.diff >= 0 ? pair.a : pair.b;
  return { significant: true, text: `significant: ${ahead} passes more` };
}

/** The whole pair in one line, as a screen reader or a copied row would want it. */
export function pairLine(pair: EvalPairSummary): string {
  return (
    `${pair.a} vs ${pair.b} on ${pair.n} tasks: ${pointsText(pair.diff)} (95 % interval ${pointsIntervalText(pair.interval)}); ` +
    `only ${pair.a} solved ${pair.a_only}, only ${pair.b} solved ${pair.b_only}; McNemar p ${pValueText(pair.p_value)}: ${pairFinding(pair).text}`
  );
}

/** A configuration's kind as words: as configured, solo, one provider, vote ×5. */
export function kindText(kind: EvalConfigSummary['kind'], samples = 1): string {
  switch (kind) {
    case 'as_configured':
      return 'as configured';
    case 'one_provider':
      return 'one provider';
    case 'vote':
      return samples > 1 ? `vote ×${samples}` : 'vote';
    case 'solo':
      return 'solo';
  }
}

/** The most one task used against the cap every configuration had: "12,000 of 50,000", or just the figure without a cap. */
export function maxOfCap(used: number, cap: number | undefined, fmt: (n: number) => string): string {
  return cap === undefined ? fmt(used) : `${fmt(used)} of ${fmt(cap)}`;
}

/** The eval's budget per task, the same for every configuration. */
export function budgetText(b: EvalDetail['budget']): string {
  const parts = [`${fmtInt(b.max_tokens)} tokens`];
  if (b.max_cost_usd !== undefined) parts.push(fmtCost(b.max_cost_usd));
  if (b.max_seconds !== undefined) parts.push(`${fmtInt(b.max_seconds)} s`);
  return parts.join(' · ');
}

export type CellState = 'passed' | 'failed' | 'running' | 'error' | 'unscored' | 'pending';

/** A matrix cell's mark and the words that say it (the mark alone is for the eye; the label is always there too). */
export interface CellMark {
  state: CellState;
  mark: string;
  label: string;
}

export function cellMark(cell: EvalCellView | undefined): CellMark {
  if (!cell) return { state: 'pending', mark: '·', label: 'not started' };
  switch (cell.status) {
    case 'running':
      return { state: 'running', mark: '…', label: 'running' };
    case 'error':
      return { state: 'error', mark: '!', label: 'error' };
    case 'scored':
      if (cell.passed === true) return { state: 'passed', mark: '✓', label: 'passed' };
      if (cell.passed === false) return { state: 'failed', mark: '✗', label: 'failed' };
      return { state: 'unscored', mark: '?', label: 'no result' };
  }
}

/**
 * What a cell links to: its chosen run, or, for a vote (more than one run), every run with the
 * chosen one marked. A cell still running has no chosen run yet: its runs are linked as they are.
 */
export function cellRuns(cell: EvalCellView): { id: string; status: string; chosen: boolean }[] {
  if (cell.runs.length <= 1 && cell.chosen_run) {
    const run = cell.runs.find((r) => r.id === cell.chosen_run);
    return [{ id: cell.chosen_run, status: run?.status ?? '', chosen: true }];
  }
  return cell.runs.map((r) => ({ ...r, chosen: r.id === cell.chosen_run }));
}

/** The matrix: one row per task (in the eval's order), one cell per configuration (in its order); undefined where no cell is yet. */
export function evalMatrix(d: Pick<EvalDetail, 'tasks' | 'configs' | 'cells'>): { task: EvalDetail['tasks'][number]; cells: (EvalCellView | undefined)[] }[] {
  const byKey = new Map(d.cells.map((c) => [`${c.task}\u0000${c.config}`, c]));
  return d.tasks.map((task) => ({ task, cells: d.configs.map((c) => byKey.get(`${task.id}\u0000${c.name}`)) }));
}

/** The plot's alt text: what the image shows, configuration by configuration, so it is not lost to someone who cannot see it. */
export function plotAlt(d: Pick<EvalDetail, 'suite' | 'summary'>): string {
  const head = `Pass rate against cost for the ${d.suite} eval, one point per configuration with its 95 % interval`;
  if (d.summary.configs.length === 0) return `${head}: nothing scored yet.`;
  const points = d.summary.configs.map((c) =>
    c.pass_rate === null ? `${c.name} nothing scored yet` : `${c.name} ${pct(c.pass_rate)} (${intervalText(c.interval)}) for ${fmtCost(c.cost_usd)}`,
  );
  return `${head}: ${points.join('; ')}.`;
}

/**
 * SVG text as a `data:image/svg+xml;base64,…` URL for an `<img>`: the plot is shown as an image,
 * never put into the page as markup (an image runs no script and reaches nothing). Base64 of its
 * UTF-8 bytes, since btoa takes only Latin-1 and a plot's labels may hold "±" or "—".
 */
export function svgDataUrl(svg: string): string {
  const bytes = new TextEncoder().encode(svg);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return `data:image/svg+xml;base64,${btoa(binary)}`;
}
