// An experiment's decision: code's, with an interpreter's override request (never applied) and an open question (issue 24).
import type { RunView } from '@roundtable/run-view';
import type { ExperimentInterpretation } from '../lib/api-types';
import { decisionClass } from '../lib/experiments';
import { Items } from './lists';
import { Empty, Section } from './section';

/** What the decision panel reads: an experiments row's interpretation, or the run's experiment_decided event. */
export interface DecisionFacts {
  decision: string | null;
  computed: string | null;
  overrideRequest: { decision: string; reason: string } | null;
  openQuestion: string | null;
  notes: readonly string[];
}

export function decisionFactsOf(outcome: ExperimentInterpretation | null, event: NonNullable<RunView['experiment']>['decision'] | null, decision: string | null): DecisionFacts | null {
  if (outcome) return { decision: decision ?? outcome.computed, computed: outcome.computed, overrideRequest: outcome.override_request, openQuestion: outcome.open_question, notes: outcome.notes };
  if (event) return { decision: event.decision, computed: event.computed, overrideRequest: event.override_request, openQuestion: event.open_question, notes: [] };
  if (decision) return { decision, computed: null, overrideRequest: null, openQuestion: null, notes: [] };
  return null;
}

/** The decision, big, said to be code's; an override request, said not to be applied; an open question. */
export function DecisionSection({ facts }: { facts: DecisionFacts | null }) {
  return (
    <Section title="Decision" className="decision-card">
      {!facts?.decision ? (
        <Empty>Not decided yet: code decides once the method has measured and the interpreter and critic have read it.</Empty>
      ) : (
        <>
          <p className="decision-line">
            <span className={`badge decision-big ${decisionClass(facts.decision)}`} data-testid="experiment-decision">
              {facts.decision}
            </span>{' '}
            <span className="muted" data-testid="decided-by">
              decided by code
              {facts.computed && facts.computed !== facts.decision ? ` (the criteria alone give ${facts.computed})` : ' from the preregistered criteria'}
            </span>
          </p>
          <Items title="Why" items={[...facts.notes]} />
          {facts.overrideRequest && (
            <div className="items override" data-testid="override-request">
              <h3 className="h4">
                Override request <span className="badge warn">not applied</span>
              </h3>
              <p>
                The interpreter would decide <strong>{facts.overrideRequest.decision}</strong>: {facts.overrideRequest.reason}
              </p>
            </div>
          )}
          {facts.openQuestion && (
            <div className="items" data-testid="open-question">
              <h3 className="h4">Open question</h3>
              <p className="prose">{facts.openQuestion}</p>
            </div>
          )}
        </>
      )}
    </Section>
  );
}
