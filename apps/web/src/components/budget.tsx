import { callsPastCapNote, type RunView } from '@roundtable/run-view';
import type { CapName } from '../lib/act-requests';
import type { RunDetail } from '../lib/api-types';
import { fmtCapFigure, fmtCost, fmtInt } from '../lib/format';
import { runUsage } from '../lib/run-usage';
import { Section } from './section';
import { findWebWorkflow } from '../workflows';

interface Line {
  name: string;
  used: number | null;
  cap: number | null;
  show: (n: number | null) => string;
  /** Why the count is past its cap, when it is (the closing call after a halt). */
  note?: string | null;
}

function BudgetLine({ l }: { l: Line }) {
  const share = l.used !== null && l.cap ? Math.min(1, l.used / l.cap) : null;
  const tone = share === null ? '' : share >= 1 ? 'over' : share >= 0.8 ? 'near' : '';
  return (
    <div className={`budget-line ${tone}`}>
      <span className="budget-name">{l.name}</span>
      <span className="budget-figures">
        {l.show(l.used)} <span className="muted">of {l.cap === null ? 'no cap' : l.show(l.cap)}</span>
        {l.note && <span className="muted small"> ({l.note})</span>}
      </span>
      {share !== null && (
        <meter min={0} max={1} low={0.8} high={0.99} optimum={0} value={share} aria-label={`${l.name}: ${Math.round(share * 100)} % of the cap`}>
          {Math.round(share * 100)} %
        </meter>
      )}
    </div>
  );
}

/**
 * The run's usage against its caps. Calls, tokens and cost are the header's figures (lib/run-usage.ts:
 * the live tally while the run goes on); the caps, seconds and rounds come from GET /v1/runs/:id.
 */
export function Budget({ view, detail }: { view: RunView; detail: RunDetail | null }) {
  const u = detail?.usage;
  const c = detail?.caps;
  const usage = runUsage(view, detail);
  const lines: Line[] = [
    { name: 'Calls', used: usage.calls, cap: c?.max_calls ?? null, show: fmtInt, note: callsPastCapNote(usage.calls, c?.max_calls) },
    { name: 'Tokens', used: usage.tokens, cap: c?.max_tokens ?? null, show: fmtInt },
    { name: 'Cost', used: usage.costUsd, cap: c?.max_cost_usd ?? null, show: fmtCost },
    { name: 'Seconds', used: u?.seconds !== undefined && u?.seconds !== null ? Math.round(u.seconds) : null, cap: c?.max_seconds ?? null, show: fmtInt },
  ];
  // The rounds are the build's; a workflow not known (yet) shows them, as the caps may hold them.
  const counted = findWebWorkflow(view.workflow)?.caps;
  const counts = (cap: CapName) => !counted || counted.includes(cap);
  if (counts('max_rounds')) lines.push({ name: 'Rounds', used: detail?.round ?? null, cap: c?.max_rounds ?? null, show: fmtInt });
  if (counts('max_fix_rounds')) lines.push({ name: 'Fix rounds', used: detail?.fix_round ?? null, cap: c?.max_fix_rounds ?? null, show: fmtInt });
  const unpriced = usage.unpricedCalls;
  const failed = usage.failedCalls;
  const warnings = view.notices.filter((n) => n.kind === 'budget_warning');
  return (
    <Section title="Budget">
      <div className="budget">
        {lines.map((l) => (
          <BudgetLine key={l.name} l={l} />
        ))}
      </div>
      <p className="muted">
        {failed > 0 && `${failed} failed call${failed === 1 ? '' : 's'} counted. `}
        {unpriced > 0 && `${unpriced} call${unpriced === 1 ? '' : 's'} had no known price, so the cost leaves ${unpriced === 1 ? 'it' : 'them'} out.`}
      </p>
      {warnings.length > 0 && (
        <ul className="notices">
          {warnings.map((w) => w.kind === 'budget_warning' && (
            <li key={w.sequence} className="warn">
              {w.payload.cap}: {fmtCapFigure(w.payload.cap, w.payload.used)} used of {fmtCapFigure(w.payload.cap, w.payload.limit)}
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}
