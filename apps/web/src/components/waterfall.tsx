import { scaleLinear } from 'd3-scale';
import type { KeyboardEvent } from 'react';
import type { CallSummary } from '../lib/api-types';
import { callPath } from '../lib/route';
import { waterfallOf, type WaterfallBar } from '../lib/waterfall';
import { useApp } from './app-context';

const W = 760;
const LEFT = 8;
const RIGHT = 16;
const ROW = 22;
const AXIS = 22;
const TRY_MARK = { first: '', retry: ' ↻ retry', repair: ' ✎ repair' } as const;

const barName = (b: WaterfallBar) =>
  `${b.call.label ?? b.call.role} (${b.call.stage}, ${b.call.provider}): ${b.call.status}${b.try === 'first' ? '' : `, ${b.try} (try ${b.call.retry + 1}, attempt ${b.call.attempt})`}`;

/** Every call on one time axis, queued → started → finished; calls in flight together side by side; a bar opens its call. */
export function Waterfall({ runId, calls, now }: { runId: string; calls: readonly CallSummary[]; now: number }) {
  const { navigate } = useApp();
  const w = waterfallOf(calls, now);
  if (!w.domain) return <p className="muted">No agent calls yet.</p>;
  const [t0, t1] = w.domain;
  const x = scaleLinear()
    .domain([0, Math.max(1, (t1 - t0) / 1000)])
    .range([LEFT, W - RIGHT])
    .nice();
  const at = (t: number) => x((t - t0) / 1000);
  const height = AXIS + w.lanes * ROW + 4;
  const open = (b: WaterfallBar) => navigate(callPath(runId, b.call.id));
  const onKey = (b: WaterfallBar) => (e: KeyboardEvent) => {
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      open(b);
    }
  };
  return (
    <figure className="waterfall">
      <svg viewBox={`0 0 ${W} ${height}`} width="100%" role="group" aria-label="Waterfall of the calls" data-testid="waterfall" data-lanes={w.lanes}>
        <g className="axis" aria-hidden="true">
          {x.ticks(8).map((t) => (
            <g key={t} transform={`translate(${x(t)},0)`}>
              <line y1={AXIS - 4} y2={height} />
              <text y={AXIS - 8} textAnchor="middle">
                {x.tickFormat(8)(t)} s
              </text>
            </g>
          ))}
        </g>
        {w.bars.map((b) => {
          const y = AXIS + b.lane * ROW + 3;
          const runFrom = b.started ?? b.end;
          return (
            <g
              key={b.call.id}
              role="link"
              tabIndex={0}
              aria-label={barName(b)}
              data-testid="waterfall-bar"
              data-lane={b.lane}
              data-stage={b.call.stage}
              data-role={b.call.role}
              className={`bar status-${b.call.status} try-${b.try}`}
              onClick={() => open(b)}
              onKeyDown={onKey(b)}
            >
              <title>{barName(b)}</title>
              <rect className="queued" x={at(b.queued)} y={y} width={Math.max(1, at(runFrom) - at(b.queued))} height={ROW - 6} />
              {b.started !== null && <rect className="ran" x={at(b.started)} y={y} width={Math.max(2, at(b.end) - at(b.started))} height={ROW - 6} />}
              <text x={at(b.end) + 3} y={y + ROW / 2 - 2} dominantBaseline="middle" className="bar-label">
                {b.call.label ?? b.call.role}
                {TRY_MARK[b.try]}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption className="muted">
        <span className="key queued" /> queued <span className="key ran" /> running → finished · ↻ a retry after a transient failure · ✎ a repair of a reply that did not validate. Seconds since the first call was queued.
      </figcaption>
    </figure>
  );
}
