import type { EvalCellView, EvalConfigSummary, EvalConfigView, EvalPairSummary, EvalSummary } from '@roundtable/contracts';
import { mcnemarExact, pairedBootstrapDiff, seedOf, wilsonInterval } from './eval-stats';

/** A difference is reported significant at this McNemar p-value, and only if the bootstrap interval excludes 0 as well. */
export const EVAL_SIGNIFICANCE = 0.05;

/** A cell that has a verdict: scored, with passed set (a cell in error is not a failure of the configuration). */
function isScored(cell: EvalCellView): cell is EvalCellView & { passed: boolean } {
  return cell.status === 'scored' && cell.passed !== null;
}

function configSummary(config: EvalConfigView, cells: readonly EvalCellView[]): EvalConfigSummary {
  const scored = cells.filter(isScored);
  const passed = scored.filter((c) => c.passed).length;
  const n = scored.length;
  // Spend counts every cell, errors included: what the configuration cost is what it used.
  return {
    name: config.name,
    kind: config.kind,
    n,
    passed,
    pass_rate: n > 0 ? passed / n : null,
    interval: wilsonInterval(passed, n),
    tokens: cells.reduce((s, c) => s + c.tokens, 0),
    cost_usd: cells.reduce((s, c) => s + c.cost_usd, 0),
    seconds: cells.reduce((s, c) => s + c.seconds, 0),
    max_task_tokens: cells.reduce((m, c) => Math.max(m, c.tokens), 0),
    max_task_cost_usd: cells.reduce((m, c) => Math.max(m, c.cost_usd), 0),
  };
}

/** task → passed, for the cells of one configuration that have a verdict (the first cell of a task counts). */
function verdicts(cells: readonly EvalCellView[]): Map<string, boolean> {
  const out = new Map<string, boolean>();
  for (const c of cells) if (isScored(c) && !out.has(c.task)) out.set(c.task, c.passed);
  return out;
}

function pairSummary(a: string, b: string, va: Map<string, boolean>, vb: Map<string, boolean>): EvalPairSummary {
  // Sorted by task id so the bootstrap sees the same order whatever order the cells came in.
  const tasks = [...va.keys()].filter((t) => vb.has(t)).sort();
  const pairs = tasks.map((t): [boolean, boolean] => [va.get(t)!, vb.get(t)!]);
  const aOnly = pairs.filter(([x, y]) => x && !y).length;
  const bOnly = pairs.filter(([x, y]) => !x && y).length;
  const p = mcnemarExact(aOnly, bOnly);
  const { diff, interval } = pairedBootstrapDiff(pairs, { seed: seedOf(`${a}\u0000${b}`) });
  const excludesZero = interval[0] > 0 || interval[1] < 0;
  return { a, b, n: pairs.length, a_only: aOnly, b_only: bOnly, diff, interval, p_value: p, significant: p < EVAL_SIGNIFICANCE && excludesZero };
}

/**
 * An eval's summary from its cells (EvalDetail.summary): per configuration, in the order given,
 * its pass rate over the cells scored and its spend over all its cells; and for every unordered
 * pair (a before b in config order) the comparison on the tasks both scored. A cell of a
 * configuration not in `configs` is ignored. Both tests must agree for "significant": the exact
 * McNemar p-value below 0.05 and a paired bootstrap interval that excludes 0.
 */
export function summarizeEval(configs: readonly EvalConfigView[], cells: readonly EvalCellView[]): EvalSummary {
  const byConfig = new Map<string, EvalCellView[]>(configs.map((c) => [c.name, []]));
  for (const cell of cells) byConfig.get(cell.config)?.push(cell);
  const summaries = configs.map((c) => configSummary(c, byConfig.get(c.name)!));
  const scored = configs.map((c) => verdicts(byConfig.get(c.name)!));
  const pairs: EvalPairSummary[] = [];
  for (let i = 0; i < configs.length; i++) {
    for (let j = i + 1; j < configs.length; j++) pairs.push(pairSummary(configs[i].name, configs[j].name, scored[i], scored[j]));
  }
  return { configs: summaries, pairs };
}
