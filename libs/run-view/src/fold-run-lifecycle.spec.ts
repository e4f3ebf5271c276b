import type { RunEventEnvelope } from '@roundtable/contracts';
import { emptyRunView } from './empty-run-view';
import { envelope, SAMPLE_PAYLOADS } from './event-samples.fixture';
import { foldRunEvent, foldRunEvents } from './fold-run-event';

const delta = (sequence: number, text: string): RunEventEnvelope => envelope('debate_token_delta', sequence, { speaker: 'vc', round: 1, delta: text }, 40);

describe("the run's own events", () => {
  it('run_started without a workspace, a stage change without a reason', () => {
    const v = foldRunEvents([envelope('run_started', 1, {}), envelope('stage_changed', 2, { from: 'INIT', to: 'PROPOSE', reason: '' })]);
    expect(v.workspace).toBeNull();
    expect(v.stages).toEqual([{ stage: 'PROPOSE', from: 'INIT', reason: null, at: envelope('stage_changed', 2).created_at, sequence: 2 }]);
  });

  it('each stage entered is kept in order', () => {
    const v = foldRunEvents([envelope('stage_changed', 1), envelope('stage_changed', 2, { from: 'PROPOSE', to: 'CRITIQUE', reason: 'two proposals' })]);
    expect(v.stages.map((s) => [s.from, s.stage])).toEqual([
      ['INIT', 'PROPOSE'],
      ['PROPOSE', 'CRITIQUE'],
    ]);
    expect(v.stage).toBe('CRITIQUE');
  });

  it('a cancel without a reason; a halt, then another after a resume', () => {
    expect(foldRunEvents([envelope('run_cancelled', 1, {})])).toMatchObject({ status: 'cancelled', endReason: null });
    const v = foldRunEvents([envelope('run_halted', 1), envelope('run_resumed', 2), envelope('run_halted', 3, { reason: 'max_cost reached' })]);
    expect(v.halts.map((h) => [h.reason, h.sequence])).toEqual([
      ['max_calls reached', 1],
      ['max_cost reached', 3],
    ]);
    expect(v).toMatchObject({ status: 'halted', endReason: 'max_cost reached' });
  });

  it('a build run that ends without a verdict has no verdict and no panel; a resume forgets the last verdict', () => {
    const v = foldRunEvents([envelope('run_created', 1), envelope('run_completed', 2, { status: 'needs_input' })]);
    expect(v).toMatchObject({ status: 'needs_input', verdict: null, confidence: null, panel: null });
    const resumed = foldRunEvents([envelope('run_completed', 1), envelope('run_resumed', 2)]);
    expect(resumed).toMatchObject({ status: 'running', verdict: null, confidence: null, endReason: null });
  });

  it('keeps the notices in order, each with its kind, sequence and payload', () => {
    const v = foldRunEvents([envelope('budget_warning', 1), envelope('files_rejected', 2), envelope('provider_fallback', 3)]);
    expect(v.notices).toEqual([
      { kind: 'budget_warning', sequence: 1, payload: SAMPLE_PAYLOADS.budget_warning },
      { kind: 'files_rejected', sequence: 2, payload: SAMPLE_PAYLOADS.files_rejected },
      { kind: 'provider_fallback', sequence: 3, payload: SAMPLE_PAYLOADS.provider_fallback },
    ]);
  });

  it("keeps the open questions, and the clock of the first and the latest event", () => {
    const v = foldRunEvents([envelope('open_question_raised', 1), envelope('open_question_raised', 2, { role: 'engineer', question: 'which python?' })]);
    expect(v.openQuestions).toEqual([SAMPLE_PAYLOADS.open_question_raised, { role: 'engineer', question: 'which python?' }]);
    expect(v.startedAt).toBe(envelope('open_question_raised', 1).created_at);
    expect(v.lastEventAt).toBe(envelope('open_question_raised', 2).created_at);
  });
});

describe("the build workflow's records", () => {
  it('a test result belongs to the latest run waiting for one; a result with none waiting is a run of its own', () => {
    const v = foldRunEvents([
      envelope('tests_started', 1),
      envelope('tests_completed', 2),
      envelope('tests_started', 3, { implementation: 'I2', command: 'pytest -x' }),
      envelope('tests_completed', 4, { ...SAMPLE_PAYLOADS.tests_completed, label: 'T2', failed: 1 }),
      envelope('tests_completed', 5, { ...SAMPLE_PAYLOADS.tests_completed, label: 'T3' }),
    ]);
    expect(v.build.tests.map((t) => [t.implementation, t.command, t.result?.label])).toEqual([
      ['I1', 'pytest -q', 'T1'],
      ['I2', 'pytest -x', 'T2'],
      ['T3', '', 'T3'],
    ]);
  });

  it('keeps every record in order', () => {
    const v = foldRunEvents([
      envelope('proposal_recorded', 1),
      envelope('proposal_recorded', 2, { label: 'P2', claim: 'a window', confidence: 0.5, revision_of: 'P1' }),
      envelope('critique_recorded', 3),
      envelope('critique_recorded', 4, { label: 'C2', target: 'P2', verdict: 'ACCEPT', problems: 0 }),
      envelope('implementation_recorded', 5),
      envelope('implementation_recorded', 6, { label: 'I2', files: ['dd.py'], fix_round: 1 }),
      envelope('files_requested', 7),
      envelope('files_requested', 8, { ...SAMPLE_PAYLOADS.files_requested, round: 2 }),
      envelope('files_read', 9),
      envelope('files_read', 10, { label: 'I2', files: [] }),
      envelope('review_recorded', 11),
      envelope('review_recorded', 12, { label: 'R2', verdict: 'REVISE' }),
    ]);
    expect(v.build.proposals.map((p) => p.label)).toEqual(['P1', 'P2']);
    expect(v.build.critiques.map((p) => p.label)).toEqual(['C1', 'C2']);
    expect(v.build.implementations.map((p) => p.label)).toEqual(['I1', 'I2']);
    expect(v.build.fileRequests.map((p) => p.round)).toEqual([1, 2]);
    expect(v.build.fileReads.map((p) => p.label)).toEqual(['I1', 'I2']);
    expect(v.build.reviews.map((p) => p.label)).toEqual(['R1', 'R2']);
  });

  it('does not change the view it is given when a test result arrives', () => {
    const v = foldRunEvents([envelope('tests_started', 1)]);
    const copy = JSON.parse(JSON.stringify(v));
    foldRunEvent(v, envelope('tests_completed', 2));
    expect(v).toEqual(copy);
  });
});

describe('live-only envelopes and the clock', () => {
  it("a delta moves the view's latest time, starts its clock if nothing else did, and is of the view's run", () => {
    const v = foldRunEvent(emptyRunView(), delta(0, 'The moat'));
    expect(v).toMatchObject({ runId: 'run-1', lastSequence: 0, startedAt: envelope('debate_token_delta', 0, undefined, 40).created_at, lastEventAt: envelope('debate_token_delta', 0, undefined, 40).created_at });
    const started = foldRunEvents([envelope('run_created', 1, { project: 'p', workflow: 'panel' })]);
    const grown = foldRunEvent(started, delta(1, 'The moat'));
    expect(grown.startedAt).toBe(started.startedAt);
    expect(grown.lastEventAt).toBe(envelope('debate_token_delta', 1, undefined, 40).created_at);
    expect(foldRunEvent(emptyRunView('run-2'), delta(0, 'x'))).toEqual(emptyRunView('run-2'));
  });

  it('a stored event keeps the start of the clock the first one set', () => {
    const v = foldRunEvents([envelope('proposal_recorded', 4, undefined, 2), envelope('critique_recorded', 5, undefined, 9)]);
    expect(v.startedAt).toBe(envelope('proposal_recorded', 4, undefined, 2).created_at);
  });
});

describe('a view that folded live tokens before the replay reached run_created', () => {
  it('keeps the streaming turn and the clock of the first envelope it folded, and is queued', () => {
    const live = foldRunEvent(emptyRunView(), delta(12, 'The moat'));
    const v = foldRunEvent(live, envelope('run_created', 1, { project: 'swapboard', workflow: 'panel' }));
    expect(v).toMatchObject({ status: 'queued', workflow: 'panel', lastSequence: 1, startedAt: live.startedAt });
    expect(v.startedAt).not.toBe(envelope('run_created', 1).created_at);
    expect(v.panel!.debate).toEqual([expect.objectContaining({ speaker: 'vc', message: 'The moat', streaming: true })]);
    expect(v.panel!.judges).toHaveLength(5);
  });
});

describe('a follow from ?after= that sees only the end of a panel run', () => {
  it('opens the panel part with the five judges and the completion', () => {
    const completion = { recommendation: 'ITERATE' as const, synthesis: null, partial: false, quality: null, low_confidence: true, scores: { vc: 5 }, warnings: [] };
    const v = foldRunEvents([envelope('run_completed', 30, { status: 'done', verdict: 'ITERATE', confidence: 0.4, panel: completion })]);
    expect(v.panel!.completion).toEqual(completion);
    expect(v.panel!.judges.map((j) => j.judge)).toEqual(['vc', 'engineer', 'pm', 'customer', 'competitor']);
  });
});
