import { scaleLinear } from 'd3-scale';
import type { CallSummary, RunCaps } from '../lib/api-types';
import { burnCharts, burnSeries, type BurnChart } from '../lib/budget-burn';
import { fmtCost, fmtInt } from '../lib/format';

const W = 240;
const H = 110;
const M = { top: 10, right: 10, bottom: 20, left: 52 }; // left: room for a tick in fmtCost's four decimals ($0.0050)

const show = (c: BurnChart, n: number) => (c.measure === 'usd' ? fmtCost(n) : fmtInt(Math.round(n)));

function BurnLine({ c, span }: { c: BurnChart; span: number }) {
  const t0 = c.points[0].at;
  const x = scaleLinear().domain([0, span]).range([M.left, W - M.right]);
  const y = scaleLinear().domain([0, c.top]).range([H - M.bottom, M.top]).nice();
  const last = c.points[c.points.length - 1].value;
  // A step line: the spend jumps when a call finishes.
  const d = c.points.map((p, i) => `${i ? `H${x((p.at - t0) / 1000).toFixed(1)} V` : `M${x(0)},`}${y(p.value).toFixed(1)}`).join(' ');
  const name = `${c.name}: ${show(c, last)} ${c.cap === null ? '(no cap)' : `of a cap of ${show(c, c.cap)}`}`;
  return (
    <figure className="burn">
      <svg viewBox={`0 0 ${W} ${H}`} width={W} height={H} role="img" aria-label={name} data-testid="burn-chart">
        <g className="axis">
          {y.ticks(3).map((t) => (
            <g key={t} transform={`translate(0,${y(t)})`}>
              <line x1={M.left} x2={W - M.right} />
              <text x={M.left - 4} textAnchor="end" dominantBaseline="middle">
                {c.measure === 'usd' ? fmtCost(t) : y.tickFormat(3, 's')(t)}
              </text>
            </g>
          ))}
          {x.ticks(4).map((t) => (
            <text key={t} x={x(t)} y={H - 6} textAnchor="middle">
              {x.tickFormat(4)(t)} s
            </text>
          ))}
        </g>
        {c.cap !== null && <line className="cap" x1={M.left} x2={W - M.right} y1={y(c.cap)} y2={y(c.cap)} />}
        <path className="burn-line" d={d} />
      </svg>
      <figcaption>{name}</figcaption>
    </figure>
  );
}

/** Calls, tokens, USD and seconds as each call finished, against the run's caps. */
export function BudgetBurn({ calls, caps, startedAt, now }: { calls: readonly CallSummary[]; caps: RunCaps | null; startedAt: number | null; now: number }) {
  const points = burnSeries(calls, startedAt);
  const charts = burnCharts(points, caps, startedAt);
  const t0 = charts[0].points[0].at;
  const span = Math.max(1, ((points.length ? Math.max(points[points.length - 1].at, now) : now) - t0) / 1000);
  return (
    <div className="burns">
      {charts.map((c) => (
        <BurnLine key={c.measure} c={c} span={span} />
      ))}
    </div>
  );
}
