import type { RunEventEnvelope, RunEventPayload, RunEventType } from '@roundtable/contracts';
import type { PeopleView, RunView } from './run-view';

type P<T extends RunEventType> = RunEventPayload<T>;

const withPeople = (view: RunView, people: Partial<PeopleView>): RunView => ({ ...view, people: { ...view.people, ...people } });

/**
 * People in the loop (any workflow's): the gate the run waits at, the decisions taken there,
 * the answers given to open questions, and the merge. null: not one of these events.
 */
export function foldPeopleEvent(view: RunView, ev: RunEventEnvelope): RunView | null {
  const people = view.people;
  switch (ev.type) {
    case 'approval_requested': {
      const p = ev.payload as P<'approval_requested'>;
      return { ...withPeople(view, { gate: { name: p.gate, subject: p.subject, sequence: ev.sequence } }), status: 'awaiting_approval' };
    }
    case 'approval_given':
    case 'approval_refused': {
      const p = ev.payload as P<'approval_given'>;
      const decision = {
        gate: p.gate,
        decision: ev.type === 'approval_given' ? ('approve' as const) : ('reject' as const),
        approver: p.approver,
        note: p.note ?? null,
        edits: p.edits ?? null,
        sequence: ev.sequence,
      };
      // The run goes on (or closes) after a decision: the step that follows says which.
      return { ...withPeople(view, { gate: null, decisions: [...people.decisions, decision] }), status: 'running' };
    }
    case 'question_answered': {
      const p = ev.payload as P<'question_answered'>;
      return withPeople(view, { answers: [...people.answers, { questionId: p.question_id, answeredBy: p.answered_by, answer: p.answer, sequence: ev.sequence }] });
    }
    case 'merge_completed': {
      const p = ev.payload as P<'merge_completed'>;
      return withPeople(view, { merge: { merged: true, into: p.into, strategy: p.strategy, commit: p.commit, reason: null, code: null, sequence: ev.sequence } });
    }
    case 'merge_refused': {
      const p = ev.payload as P<'merge_refused'>;
      return withPeople(view, { merge: { merged: false, into: null, strategy: null, commit: null, reason: p.reason, code: p.code, sequence: ev.sequence } });
    }
    default:
      return null;
  }
}
