import type { RunView } from '@roundtable/run-view';
import type { ExperimentRecords, Preregistration } from '../lib/api-types';
import { experimentPath } from '../lib/route';
import { CriteriaTable } from './experiment-criteria';
import { DecisionSection, decisionFactsOf } from './experiment-decision';
import { MethodSection } from './experiment-method';
import { PreregistrationView } from './experiment-prereg';
import { ReviewSection } from './experiment-review';
import { Link } from './link';
import { Empty, Section } from './section';

/**
 * An experiment (issue 24) as the run page's Experiment tab and the experiment page show it: the
 * preregistration, the method and what it measured, each criterion as code read it beside the
 * interpreter's reading, the decision code made, an interpreter's other decision (an override
 * request, never applied), and the critic's review. Each part is its own file (experiment-prereg,
 * -method, -criteria, -decision, -review); this one composes them into the run page's tab.
 */

/** The run page's Experiment tab. */
export function ExperimentSections({ view, records }: { view: RunView; records: ExperimentRecords | null }) {
  const gate = view.people.gate;
  const gateDraft = gate?.name === 'preregistration' ? (gate.subject.preregistration as Preregistration | undefined) ?? null : null;
  const prereg = records?.preregistration ?? null;
  const draft = prereg ? null : (records?.draft?.body ?? gateDraft);
  const method = view.experiment?.method ?? null;
  const outcome = records?.outcome ?? null;
  const metricNames = method?.metricNames ?? prereg?.method.metrics ?? [];
  const experimentId = records?.experiment_id ?? ((gate?.subject.experiment_id as string | undefined) || null);
  const interpretation = records?.interpretation?.body ?? null;
  return (
    <>
      {experimentId && (
        <p>
          <Link to={experimentPath(experimentId)} data-testid="experiment-link">
            Experiment <span className="mono">{experimentId}</span>
          </Link>
        </p>
      )}
      <Section title="Preregistration">
        {prereg ? (
          <PreregistrationView prereg={prereg} idPrefix="run-prereg" />
        ) : draft ? (
          <>
            <p className="warn" data-testid="draft-waiting">
              {gate?.name === 'preregistration' ? 'A draft, waiting at the preregistration gate: it is locked only when a person approves it.' : 'A draft, not locked.'}
              {records?.draft?.label ? ` (${records.draft.label})` : ''}
            </p>
            <PreregistrationView prereg={draft} idPrefix="run-draft" />
          </>
        ) : (
          <Empty>No preregistration yet{view.stage === 'DRAFT' ? ': the proposer is drafting one.' : '.'}</Empty>
        )}
      </Section>
      <MethodSection
        command={method?.command ?? null}
        metricNames={metricNames}
        metrics={method?.metrics ?? null}
        exitCode={method?.exitCode ?? null}
        error={method?.error ?? null}
        result={records?.result ?? null}
      />
      <Section title="Criteria">
        {outcome ? (
          <CriteriaTable criteria={outcome.criteria} />
        ) : (
          <Empty>{prereg ? 'Each criterion is read once the method has measured.' : 'No criteria yet.'}</Empty>
        )}
      </Section>
      <DecisionSection facts={decisionFactsOf(outcome, view.experiment?.decision ?? null, records?.decision ?? null)} />
      <ReviewSection summary={outcome?.summary ?? interpretation?.summary ?? null} caveats={interpretation?.caveats ?? []} review={outcome?.review ?? records?.review?.body ?? null} />
    </>
  );
}
