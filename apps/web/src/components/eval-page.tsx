import { useEffect, useState } from 'react';
import type { EvalDetail } from '../lib/api-types';
import { budgetText, EVAL_POLL_MS, progressText } from '../lib/evals';
import { fmtCost, fmtInt } from '../lib/format';
import { EVALS_PATH } from '../lib/route';
import { useApp } from './app-context';
import { EvalMatrix } from './eval-matrix';
import { EvalPlot } from './eval-plot';
import { EvalPairs, EvalSummaryTable } from './eval-summary';
import { Link } from './link';
import { StatusBadge } from './runs-page';
import { Section } from './section';
import { errorText, useAsync } from './use-async';

const SCORER_TEXT: Record<EvalDetail['score'], string> = {
  hidden_tests: 'hidden tests',
  verdict: 'verdict against the reference',
};

/**
 * /evals/:id (issue 25): an eval's header and progress, the summary per configuration, the
 * paired differences, the pass-rate-against-cost plot and the per-task matrix, asked again every
 * few seconds while it runs — as the experiment page does, by polling its detail.
 */
export function EvalPage({ evalId }: { evalId: string }) {
  const { api } = useApp();
  const [generation, setGeneration] = useState(0);
  const detail = useAsync(() => api.evalDetail(evalId), `${evalId}|${generation}`);
  // A refresh that fails keeps the last eval shown (and asking again), saying so, rather than blanking the page.
  const [last, setLast] = useState<EvalDetail | null>(null);
  useEffect(() => {
    if (detail.state === 'ok') setLast(detail.value);
  }, [detail]);
  const d = detail.state === 'ok' ? detail.value : last;
  const running = d?.status === 'running';
  useEffect(() => {
    if (!running) return;
    const t = setTimeout(() => setGeneration((g) => g + 1), EVAL_POLL_MS);
    return () => clearTimeout(t);
  }, [running, generation]);

  if (detail.state === 'error' && !d) {
    return (
      <>
        <p className="crumbs">
          <Link to={EVALS_PATH}>Evals</Link> / <span className="mono">{evalId}</span>
        </p>
        <h1>Eval {evalId}</h1>
        <p role="alert" className="error">
          Could not load the eval: {errorText(detail.error)}
        </p>
      </>
    );
  }
  if (!d) return <p className="muted">Loading the eval…</p>;
  return (
    <>
      {detail.state === 'error' && (
        <p role="alert" className="error">
          Could not refresh the eval (showing what was last read): {errorText(detail.error)}
        </p>
      )}
      <EvalView detail={d} />
    </>
  );
}

function EvalView({ detail: d }: { detail: EvalDetail }) {
  const samples = new Map(d.configs.map((c) => [c.name, c.samples]));
  return (
    <>
      <p className="crumbs">
        <Link to={EVALS_PATH}>Evals</Link> / <span className="mono">{d.id}</span>
      </p>
      <h1>Eval: {d.suite}</h1>
      <dl className="run-facts">
        <div>
          <dt id="lbl-eval-status">Status</dt>
          <dd aria-labelledby="lbl-eval-status" data-testid="eval-status">
            <StatusBadge status={d.status} />
          </dd>
        </div>
        <div>
          <dt>Progress</dt>
          <dd data-testid="eval-progress">
            {progressText(d.progress)} <span className="muted">cells done</span>
          </dd>
        </div>
        <div>
          <dt>Scored by</dt>
          <dd>{SCORER_TEXT[d.score] ?? d.score}</dd>
        </div>
        <div>
          <dt>Budget per task</dt>
          <dd data-testid="eval-budget">{budgetText(d.budget)}</dd>
        </div>
        <div>
          <dt>Tasks × configurations</dt>
          <dd>
            {d.tasks.length} × {d.configs.length}
          </dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>
            <time dateTime={d.created_at}>{whenText(d.created_at)}</time>
            {d.submitted_by ? ` by ${d.submitted_by}` : ''}
          </dd>
        </div>
        {d.finished_at && (
          <div>
            <dt>Finished</dt>
            <dd>
              <time dateTime={d.finished_at}>{whenText(d.finished_at)}</time>
            </dd>
          </div>
        )}
      </dl>
      {d.status === 'running' && (
        <div className="eval-progress">
          <label htmlFor="eval-progress-bar">Cells done</label>
          <progress id="eval-progress-bar" max={Math.max(1, d.progress.total)} value={d.progress.done}>
            {progressText(d.progress)}
          </progress>
          <span className="muted small">
            {progressText(d.progress)} · refreshed every {EVAL_POLL_MS / 1000} s
          </span>
        </div>
      )}
      <p className="muted">
        Every configuration had the same budget per task: at most {fmtInt(d.budget.max_tokens)} tokens
        {d.budget.max_cost_usd !== undefined ? ` and ${fmtCost(d.budget.max_cost_usd)}` : ''}. The summary&apos;s &ldquo;max per task&rdquo; columns show the most any one task used.
      </p>
      <Section title="Summary">
        <EvalSummaryTable summary={d.summary} budget={d.budget} samples={samples} />
      </Section>
      <Section title="Paired differences">
        <EvalPairs pairs={d.summary.pairs} />
      </Section>
      <Section title="Pass rate against cost">
        <EvalPlot detail={d} />
      </Section>
      <Section title="Per-task results">
        <EvalMatrix detail={d} />
      </Section>
      <Section title="What these figures mean">
        <ul className="eval-notes">
          <li>
            Few tasks make uncertain figures: a pass rate over 20 tasks can move by 20 points or more with another draw of tasks. The 95 % interval beside each pass rate (Wilson) says how far; two
            configurations whose intervals overlap may not differ at all.
          </li>
          <li>The interval is for the pass rate only; tokens, cost and wall time are what the cells used, summed, with no interval.</li>
          <li>A cell in error is left out of its configuration&apos;s pass rate (it is neither a pass nor a fail) but its spend is counted.</li>
          <li>
            A paired difference compares two configurations on the tasks both scored. It is called significant only when the exact McNemar test (p below 0.05) and the 95 % paired bootstrap interval
            (leaving out zero) agree; otherwise it says &ldquo;no significant difference&rdquo; — which is not evidence that the two are equal.
          </li>
        </ul>
      </Section>
    </>
  );
}

/** 2026-04-01T09:30:12.345Z as 2026-04-01 09:30 UTC. */
const whenText = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;
