import type { EvalDetail, EvalPairSummary, EvalSummary } from '../lib/api-types';
import { intervalText, kindText, maxOfCap, pairFinding, pairLine, passRateText, pointsIntervalText, pointsText, pValueText } from '../lib/evals';
import { fmtCost, fmtDuration, fmtInt } from '../lib/format';
import { Empty } from './section';
import { TableScroll } from './table-scroll';

/**
 * The summary per configuration: its pass rate with the 95 % interval, what it spent, and the
 * most one task used beside the cap every configuration had (so the equal budget shows).
 */
export function EvalSummaryTable({ summary, budget, samples }: { summary: EvalSummary; budget: EvalDetail['budget']; samples: Map<string, number> }) {
  if (summary.configs.length === 0) return <Empty>No configuration has a scored task yet.</Empty>;
  return (
    <TableScroll label="Summary per configuration">
      <table className="eval-table" data-testid="eval-summary">
        <caption className="visually-hidden">Summary per configuration</caption>
        <thead>
          <tr>
            <th scope="col">Configuration</th>
            <th scope="col">Kind</th>
            <th scope="col" className="num">
              Pass rate
            </th>
            <th scope="col">95 % interval</th>
            <th scope="col" className="num">
              Tokens
            </th>
            <th scope="col" className="num">
              Cost
            </th>
            <th scope="col" className="num">
              Wall time
            </th>
            <th scope="col" className="num">
              Max tokens per task
            </th>
            <th scope="col" className="num">
              Max cost per task
            </th>
          </tr>
        </thead>
        <tbody>
          {summary.configs.map((c) => (
            <tr key={c.name} data-testid="eval-summary-row" data-config={c.name}>
              <th scope="row" className="mono">
                {c.name}
              </th>
              <td>{kindText(c.kind, samples.get(c.name))}</td>
              <td className="num" data-testid="eval-pass-rate">
                {passRateText(c.passed, c.n)}
              </td>
              <td>{intervalText(c.interval)}</td>
              <td className="num">{fmtInt(c.tokens)}</td>
              <td className="num">{fmtCost(c.cost_usd)}</td>
              <td className="num">{fmtDuration(c.seconds * 1000)}</td>
              <td className="num">{maxOfCap(c.max_task_tokens, budget.max_tokens, fmtInt)}</td>
              <td className="num">{maxOfCap(c.max_task_cost_usd, budget.max_cost_usd, fmtCost)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

/** Each pair of configurations on the tasks both scored: the difference, who solved what the other did not, McNemar's p, and the finding in words. */
export function EvalPairs({ pairs }: { pairs: EvalPairSummary[] }) {
  if (pairs.length === 0) return <Empty>No pairs to compare yet: it takes two configurations with tasks both scored.</Empty>;
  return (
    <TableScroll label="Paired differences">
      <table className="eval-table" data-testid="eval-pairs">
        <caption className="visually-hidden">Paired differences, A against B on the tasks both scored</caption>
        <thead>
          <tr>
            <th scope="col">A vs B</th>
            <th scope="col" className="num">
              Tasks
            </th>
            <th scope="col" className="num">
              A − B
            </th>
            <th scope="col">95 % interval</th>
            <th scope="col" className="num">
              Only A solved
            </th>
            <th scope="col" className="num">
              Only B solved
            </th>
            <th scope="col" className="num">
              McNemar p
            </th>
            <th scope="col">Finding</th>
          </tr>
        </thead>
        <tbody>
          {pairs.map((p) => {
            const finding = pairFinding(p);
            return (
              <tr key={`${p.a}|${p.b}`} data-testid="eval-pair-row" data-a={p.a} data-b={p.b} data-significant={String(finding.significant)} title={pairLine(p)}>
                <th scope="row">
                  <span className="mono">{p.a}</span> vs <span className="mono">{p.b}</span>
                </th>
                <td className="num">{p.n}</td>
                <td className="num">{pointsText(p.diff)}</td>
                <td>{pointsIntervalText(p.interval)}</td>
                <td className="num">{p.a_only}</td>
                <td className="num">{p.b_only}</td>
                <td className="num">{pValueText(p.p_value)}</td>
                <td data-testid="eval-pair-finding">{finding.significant ? <strong className="badge good">{finding.text}</strong> : <span className="badge">{finding.text}</span>}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </TableScroll>
  );
}
