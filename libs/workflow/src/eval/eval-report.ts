import type { EvalCellView, EvalConfigSummary, EvalDetail, EvalPairSummary } from '@roundtable/contracts';
import { formatUsd } from '../budget';

/**
 * An eval's detail as the CLI prints and saves it (issue 25): the table of configurations and
 * their pairwise comparisons, the task-by-configuration matrix, the JSON document `--json` and
 * the results file hold, and an SVG plot of pass rate against cost. Drawn from EvalDetail alone,
 * so the CLI, a saved file and the workbench say the same thing.
 */

const pct = (x: number): string => `${Math.round(x * 100)}%`;

/** 1234567 → "1,234,567" (not toLocaleString: the same output on every machine). */
export function groupThousands(n: number): string {
  const whole = Math.round(n);
  return `${whole < 0 ? '-' : ''}${String(Math.abs(whole)).replace(/\B(?=(\d{3})+(?!\d))/g, ',')}`;
}

/** Wall time: "42 s", "3m 05s", "1h 02m". */
export function formatWallTime(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

function passCell(c: EvalConfigSummary): string {
  return `${c.passed}/${c.n} ${c.pass_rate === null ? '—' : pct(c.pass_rate)}`;
}

function intervalCell(c: EvalConfigSummary): string {
  return c.interval ? `[${pct(c.interval[0])}, ${pct(c.interval[1])}]` : '—';
}

/** Columns padded to their widest cell; the last column is not padded. */
function columns(rows: string[][]): string[] {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => [...r[i]].length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell + ' '.repeat(widths[i] - [...cell].length))).join('  ').trimEnd());
}

const signed = (x: number): string => `${x < 0 ? '-' : '+'}${Math.abs(x).toFixed(2)}`;

/** "p=0.016", "p<0.001", "p=1". */
export function formatPValue(p: number): string {
  if (p < 0.001) return 'p<0.001';
  if (p >= 1) return 'p=1';
  return `p=${p.toFixed(3)}`;
}

/** One line of the paired block: "a vs b: +0.35 [0.15, 0.55], 7 vs 0 tasks, McNemar p=0.016 — significant". */
export function pairLine(p: EvalPairSummary): string {
  if (p.n === 0) return `${p.a} vs ${p.b}: no task scored by both`;
  const verdict = p.significant ? 'significant' : 'no significant difference';
  return `${p.a} vs ${p.b}: ${signed(p.diff)} [${p.interval[0].toFixed(2)}, ${p.interval[1].toFixed(2)}], ${p.a_only} vs ${p.b_only} tasks, McNemar ${formatPValue(p.p_value)} — ${verdict}`;
}

function budgetLine(detail: EvalDetail): string {
  const b = detail.budget;
  const parts = [`${groupThousands(b.max_tokens)} tokens`, ...(b.max_cost_usd !== undefined ? [formatUsd(b.max_cost_usd)] : []), formatWallTime(b.max_seconds)];
  return `budget per task and configuration: ${parts.join(', ')}`;
}

/**
 * The CLI's table: a heading, one row per configuration (name, kind, passed, its 95 % interval,
 * tokens, cost, wall time), then the paired block: each pair's difference in pass rate on the
 * tasks both scored, its bootstrap interval, the discordant counts and McNemar's p, and whether the
 * difference is significant.
 */
export function evalTable(detail: EvalDetail): string[] {
  const head = `eval ${detail.id} · suite ${detail.suite} (${detail.score}) · ${detail.status} · ${detail.progress.done}/${detail.progress.total} cells`;
  const rows = [
    ['config', 'kind', 'passed', '95% interval', 'tokens', 'cost', 'time (summed)'],
    ...detail.summary.configs.map((c) => [c.name, c.kind, passCell(c), intervalCell(c), groupThousands(c.tokens), formatUsd(c.cost_usd), formatWallTime(c.seconds)]),
  ];
  const lines = [head, budgetLine(detail), '', ...columns(rows)];
  if (detail.summary.pairs.length > 0) {
    lines.push('', 'paired (tasks both scored; difference in pass rate, 95% bootstrap interval):', ...detail.summary.pairs.map((p) => `  ${pairLine(p)}`));
  }
  return lines;
}

/** A cell's mark: ✓ passed, ✗ failed, · not scored yet (running, scoring or not started), ! error, ? scored without a verdict. */
export function cellMark(cell: EvalCellView | undefined): string {
  if (!cell) return '·';
  switch (cell.status) {
    case 'scored':
      return cell.passed === null ? '?' : cell.passed ? '✓' : '✗';
    case 'error':
      return '!';
    case 'running':
      return '·';
  }
}

/** The matrix: a header, one row per task (its id and difficulty, a mark per configuration), a legend. */
export function evalMatrix(detail: EvalDetail): string[] {
  const byKey = new Map(detail.cells.map((c) => [`${c.task}\u0000${c.config}`, c]));
  const names = detail.configs.map((c) => c.name);
  const rows = [
    ['task', 'difficulty', ...names],
    ...detail.tasks.map((t) => [t.id, t.difficulty, ...names.map((n) => cellMark(byKey.get(`${t.id}\u0000${n}`)))]),
  ];
  return [...columns(rows), '', '✓ passed  ✗ failed  · not scored yet  ! error'];
}

/** The eval as one JSON document (`--json`, the results file): fixed key order, cells in task then configuration order. */
export interface EvalJson {
  id: string;
  suite: string;
  score: EvalDetail['score'];
  status: EvalDetail['status'];
  created_at: string;
  finished_at: string | null;
  budget: EvalDetail['budget'];
  tasks: EvalDetail['tasks'];
  configs: EvalDetail['configs'];
  summary: EvalDetail['summary'];
  cells: EvalCellView[];
}

export function evalJson(detail: EvalDetail): EvalJson {
  const taskOrder = new Map(detail.tasks.map((t, i) => [t.id, i]));
  const configOrder = new Map(detail.configs.map((c, i) => [c.name, i]));
  const at = (m: Map<string, number>, k: string) => m.get(k) ?? Number.MAX_SAFE_INTEGER;
  const cells = [...detail.cells].sort(
    (a, b) => at(taskOrder, a.task) - at(taskOrder, b.task) || at(configOrder, a.config) - at(configOrder, b.config) || a.task.localeCompare(b.task) || a.config.localeCompare(b.config),
  );
  return {
    id: detail.id,
    suite: detail.suite,
    score: detail.score,
    status: detail.status,
    created_at: detail.created_at,
    finished_at: detail.finished_at,
    budget: detail.budget,
    tasks: detail.tasks,
    configs: detail.configs,
    summary: detail.summary,
    cells,
  };
}

/** Text for an SVG (or any XML) text node or attribute. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[ch]!);
}

/** A step of 1, 2 or 5 × 10^k near `raw`: round tick values. */
function niceStep(raw: number): number {
  const exp = Math.floor(Math.log10(raw));
  const f = raw / 10 ** exp;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * 10 ** exp;
}

/** 0, step, 2·step … up to the first at or above max (at least one step). */
function ticksUpTo(max: number): number[] {
  const step = max > 0 ? niceStep(max / 5) : 1;
  const count = Math.max(1, Math.ceil(max / step - 1e-9));
  return Array.from({ length: count + 1 }, (_, i) => Number((i * step).toPrecision(12)));
}

function tokenTick(v: number): string {
  if (v >= 1e6) return `${Number((v / 1e6).toPrecision(6))}M`;
  if (v >= 1e3) return `${Number((v / 1e3).toPrecision(6))}k`;
  return String(v);
}

function usdTick(v: number, step: number): string {
  const decimals = Math.max(0, Math.min(6, -Math.floor(Math.log10(step))));
  return `$${v.toFixed(Math.max(decimals, step < 1 ? 2 : 0))}`;
}

const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf'];
const round1 = (x: number) => Math.round(x * 10) / 10;

/**
 * Pass rate (y, 0–100 %) against total cost (x: USD, or tokens when every configuration's cost is
 * 0, as with unpriced or scripted models — the axis says which), one point per configuration
 * that has a pass rate, its Wilson interval as a vertical bar, its name beside it. A configuration
 * with nothing scored yet is named under the plot instead. Self-contained: no script, no
 * external reference; every text is escaped.
 */
export function evalPlotSvg(detail: EvalDetail): string {
  const W = 640;
  const H = 400;
  const left = 64;
  const right = W - 24;
  const top = 40;
  const bottom = H - 64;
  const configs = detail.summary.configs;
  const byUsd = configs.some((c) => c.cost_usd > 0);
  const xOf = (c: EvalConfigSummary) => (byUsd ? c.cost_usd : c.tokens);
  // 5 % headroom so the costliest point is not drawn on the plot's edge.
  const ticks = ticksUpTo(1.05 * Math.max(0, ...configs.map(xOf)));
  const xMax = ticks[ticks.length - 1];
  const step = ticks[1] - ticks[0];
  const sx = (v: number) => round1(left + (v / xMax) * (right - left));
  const sy = (rate: number) => round1(bottom - rate * (bottom - top));
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="11">`);
  out.push(`<title>${escapeXml(`eval ${detail.id}: ${detail.suite}, pass rate against ${byUsd ? 'cost' : 'tokens'}`)}</title>`);
  out.push(`<rect x="0" y="0" width="${W}" height="${H}" fill="#ffffff"/>`);
  out.push(`<text x="${W / 2}" y="22" text-anchor="middle" font-size="14">${escapeXml(`${detail.suite}: pass rate against ${byUsd ? 'cost' : 'tokens'}`)}</text>`);
  // grid and y ticks: 0 % to 100 % by 20
  for (let p = 0; p <= 100; p += 20) {
    const y = sy(p / 100);
    out.push(`<line x1="${left}" y1="${y}" x2="${right}" y2="${y}" stroke="#e5e5e5"/>`);
    out.push(`<text x="${left - 6}" y="${y + 4}" text-anchor="end">${p}%</text>`);
  }
  for (const v of ticks) {
    const x = sx(v);
    out.push(`<line x1="${x}" y1="${bottom}" x2="${x}" y2="${bottom + 5}" stroke="#333333"/>`);
    out.push(`<text x="${x}" y="${bottom + 18}" text-anchor="middle">${escapeXml(byUsd ? usdTick(v, step) : tokenTick(v))}</text>`);
  }
  out.push(`<line x1="${left}" y1="${bottom}" x2="${right}" y2="${bottom}" stroke="#333333"/>`);
  out.push(`<line x1="${left}" y1="${top}" x2="${left}" y2="${bottom}" stroke="#333333"/>`);
  const xLabel = byUsd ? 'total cost (USD)' : 'total tokens (every cost is $0: unpriced models)';
  out.push(`<text x="${(left + right) / 2}" y="${bottom + 36}" text-anchor="middle">${escapeXml(xLabel)}</text>`);
  out.push(`<text x="16" y="${(top + bottom) / 2}" text-anchor="middle" transform="rotate(-90 16 ${(top + bottom) / 2})">pass rate (%, 95% Wilson interval)</text>`);
  const unscored: string[] = [];
  // Where labels already are: a label that would land on one (points at the same place) goes a line lower.
  const placed: { x: number; y: number }[] = [];
  const LINE = 13;
  configs.forEach((c, i) => {
    if (c.pass_rate === null) {
      unscored.push(c.name);
      return;
    }
    const colour = PALETTE[i % PALETTE.length];
    const x = sx(xOf(c));
    const y = sy(c.pass_rate);
    out.push(`<g fill="${colour}" stroke="${colour}">`);
    if (c.interval) {
      const [lo, hi] = [sy(c.interval[0]), sy(c.interval[1])];
      out.push(`<line x1="${x}" y1="${lo}" x2="${x}" y2="${hi}" stroke-width="1.5"/>`);
      out.push(`<line x1="${x - 4}" y1="${lo}" x2="${x + 4}" y2="${lo}"/>`, `<line x1="${x - 4}" y1="${hi}" x2="${x + 4}" y2="${hi}"/>`);
    }
    out.push(`<circle cx="${x}" cy="${y}" r="4"/>`);
    // Labels sit right of their point, or left of it in the plot's right half so they stay inside.
    const rightHalf = x > (left + right) / 2;
    let labelY = y - 6;
    while (placed.some((p) => Math.abs(p.x - x) < 120 && Math.abs(p.y - labelY) < LINE)) labelY += LINE;
    placed.push({ x, y: labelY });
    out.push(`<text x="${rightHalf ? x - 8 : x + 8}" y="${labelY}" text-anchor="${rightHalf ? 'end' : 'start'}" stroke="none">${escapeXml(c.name)}</text>`);
    out.push('</g>');
  });
  if (unscored.length > 0) out.push(`<text x="${left}" y="${H - 8}" fill="#666666">${escapeXml(`nothing scored yet: ${unscored.join(', ')}`)}</text>`);
  out.push('</svg>');
  return out.join('\n');
}
