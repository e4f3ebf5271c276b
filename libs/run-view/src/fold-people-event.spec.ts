import type { RunEventType } from '@roundtable/contracts';
import { emptyRunView } from './empty-run-view';
import { envelope, SAMPLE_PAYLOADS } from './event-samples.fixture';
import { foldRunEvents } from './fold-run-event';

const fold = (...types: RunEventType[]) => foldRunEvents([envelope('run_started', 1), ...types.map((t, i) => envelope(t, i + 2))]);

describe('people in the loop, folded', () => {
  it('a requested approval opens the gate with its subject, and the run awaits approval', () => {
    const v = fold('approval_requested');
    expect(v.status).toBe('awaiting_approval');
    expect(v.people.gate).toEqual({ name: 'criteria', subject: SAMPLE_PAYLOADS.approval_requested.subject, sequence: 2 });
  });

  it('an approval closes the gate, records who approved with the edit, and the run goes on', () => {
    const v = fold('approval_requested', 'approval_given');
    expect(v.status).toBe('running');
    expect(v.people.gate).toBeNull();
    expect(v.people.decisions).toEqual([
      { gate: 'criteria', decision: 'approve', approver: 'alice', note: 'AC1 reworded', edits: SAMPLE_PAYLOADS.approval_given.edits, sequence: 3 },
    ]);
  });

  it('a refusal is a reject decision without edits', () => {
    const v = fold('approval_requested', 'approval_refused');
    expect(v.people.gate).toBeNull();
    expect(v.people.decisions).toEqual([{ gate: 'merge', decision: 'reject', approver: 'alice', note: 'not now', edits: null, sequence: 3 }]);
  });

  it('keeps every decision in order (two gates)', () => {
    const v = fold('approval_requested', 'approval_given', 'approval_requested', 'approval_refused');
    expect(v.people.decisions.map((d) => [d.decision, d.sequence])).toEqual([
      ['approve', 3],
      ['reject', 5],
    ]);
  });

  it('an answer is listed with who gave it', () => {
    const v = fold('question_answered', 'question_answered');
    expect(v.people.answers).toEqual([
      { questionId: 'Q1', answeredBy: 'alice', answer: 'use the absolute drawdown', sequence: 2 },
      { questionId: 'Q1', answeredBy: 'alice', answer: 'use the absolute drawdown', sequence: 3 },
    ]);
  });

  it('a merge is recorded with its commit; a refusal with its reason', () => {
    expect(fold('merge_completed').people.merge).toEqual({ merged: true, into: 'main', strategy: 'merge', commit: 'abc1234', reason: null, code: null, sequence: 2 });
    expect(fold('merge_refused').people.merge).toEqual({
      merged: false,
      into: null,
      strategy: null,
      commit: null,
      reason: 'the original has uncommitted changes: dd.py',
      code: 'dirty',
      sequence: 2,
    });
  });

  it('leaves the view it folds unchanged', () => {
    const before = fold('approval_requested');
    const frozen = JSON.stringify(before);
    foldRunEvents([envelope('approval_given', 3)], before);
    expect(JSON.stringify(before)).toBe(frozen);
    expect(emptyRunView().people).toEqual({ gate: null, decisions: [], answers: [], merge: null });
  });
});
