import type { JudgeRole, RunEventEnvelope, RunEventPayload, RunEventType } from '@roundtable/contracts';
import { envelope, SAMPLE_PAYLOADS } from './event-samples.fixture';
import { foldRunEvent, foldRunEvents } from './fold-run-event';
import type { RunView } from './run-view';

type P<T extends RunEventType> = RunEventPayload<T>;

/** A panel run: run_created at 1, then `events` at 2, 3, … (each [type, payload?]). */
function panelRun(...events: [RunEventType, Record<string, unknown>?][]): RunView {
  return foldRunEvents([
    envelope('run_created', 1, { project: 'swapboard', workflow: 'panel' }),
    ...events.map(([type, payload], i) => envelope(type, i + 2, (payload ?? SAMPLE_PAYLOADS[type]) as P<typeof type>)),
  ]);
}
const scores = (v: RunView) => Object.fromEntries(v.panel!.judges.map((j) => [j.judge, j.score]));
const states = (v: RunView) => v.panel!.judges.map((j) => j.state);
const card = (v: RunView, judge: JudgeRole) => v.panel!.judges.find((j) => j.judge === judge)!;
const delta = (sequence: number, speaker: JudgeRole, round: number, text: string): RunEventEnvelope => envelope('debate_token_delta', sequence, { speaker, round, delta: text });
const published = (sequence: number, speaker: JudgeRole, round: number, message: string, extra: Partial<P<'debate_message_published'>> = {}): RunEventEnvelope =>
  envelope('debate_message_published', sequence, { speaker, round, message, ...extra });
const turns = (v: RunView) => v.panel!.debate.map((t) => [t.speaker, t.round, t.message, t.streaming]);

describe('the panel part of the view', () => {
  describe('dispatch and verdicts', () => {
    it('a retry round dispatches only the judges it names, and each dispatch is kept in order', () => {
      const v = panelRun(['judges_dispatched'], ['judge_verdict_completed'], ['judges_dispatched', { judges: ['pm'], round: 1 }]);
      expect(states(v)).toEqual(['completed', 'dispatched', 'dispatched', 'dispatched', 'dispatched']);
      const first = panelRun(['judges_dispatched', { judges: ['vc', 'pm'], round: 0 }]);
      expect(states(first)).toEqual(['dispatched', 'waiting', 'dispatched', 'waiting', 'waiting']);
      expect(v.panel!.dispatches).toEqual([SAMPLE_PAYLOADS.judges_dispatched, { judges: ['pm'], round: 1 }]);
    });
  });

  describe('the roast', () => {
    it('scores only the judges the roast scored; without a quality check nobody is weak', () => {
      const v = panelRun(['roast_panel_completed', { scores: { vc: 4, engineer: 6 } }]);
      expect(scores(v)).toEqual({ vc: 4, engineer: 6, pm: null, customer: null, competitor: null });
      expect(v.panel!.roast).toEqual({ scores: { vc: 4, engineer: 6 }, quality: null });
      expect(v.panel!.judges.map((j) => [j.weak, j.genericRate])).toEqual(Array(5).fill([false, null]));
    });

    it('keeps the quality check, and a judge the roast did not score keeps the score it had', () => {
      const v = panelRun(['judge_verdict_completed'], ['roast_panel_completed', { ...SAMPLE_PAYLOADS.roast_panel_completed, scores: { engineer: 6 } }]);
      expect(v.panel!.roast!.quality).toEqual(SAMPLE_PAYLOADS.roast_panel_completed.quality);
      expect(card(v, 'vc')).toMatchObject({ score: 4, weak: true, genericRate: 0.5 });
      expect(card(v, 'pm')).toMatchObject({ score: null, weak: false, genericRate: null });
    });
  });

  describe('the re-vote', () => {
    const roasted: [RunEventType, Record<string, unknown>?][] = [['roast_panel_completed', { scores: { vc: 4, engineer: 6, pm: 5 } }]];

    it("one judge's re-vote changes that judge's card only", () => {
      const v = panelRun(...roasted, ['revote_started', { baseline: { vc: 4, engineer: 6, pm: 5 } }], ['revote_judge_completed']);
      expect(scores(v)).toEqual({ vc: 5, engineer: 6, pm: 5, customer: null, competitor: null });
      expect(v.panel!.judges.map((j) => j.revote !== null)).toEqual([true, false, false, false, false]);
    });

    it('without revote_started (a follow from ?after=) the delta is against the previous score the event restates; reason and cap default', () => {
      const v = panelRun(...roasted, ['revote_judge_completed', { judge: 'engineer', score: 3, previous: 6, delta: -3 }]);
      expect(card(v, 'engineer').revote).toEqual({ previous: 6, score: 3, delta: -3, reason: null, capped: false });
      expect(card(v, 'engineer').score).toBe(3);
    });

    it('a judge missing from the baseline is measured against the restated previous score; a capped move says so', () => {
      const v = panelRun(['revote_started', { baseline: { engineer: 6 } }], ['revote_judge_completed', { judge: 'vc', score: 7, previous: 4, delta: 3, capped: true }]);
      expect(card(v, 'vc').revote).toEqual({ previous: 4, score: 7, delta: 3, reason: null, capped: true });
    });
  });

  describe('appeals', () => {
    const roasted: [RunEventType, Record<string, unknown>?][] = [['roast_panel_completed', { scores: { vc: 4, engineer: 6 } }]];

    it("an appeal changes the scores of the judges appealed only", () => {
      const v = panelRun(...roasted, ['appeal_started'], ['appeal_completed']);
      expect(scores(v)).toEqual({ vc: 7, engineer: 6, pm: null, customer: null, competitor: null });
    });

    it('a second appeal is an entry of its own, and the first keeps its result', () => {
      const second = { judges: ['engineer'], scores: { engineer: 8 }, previous: { engineer: 6 }, change_reasons: { engineer: 'a new benchmark' } };
      const v = panelRun(...roasted, ['appeal_started'], ['appeal_completed'], ['appeal_completed', second]);
      expect(v.panel!.appeals).toEqual([
        { judges: ['vc'], before: { vc: 5 }, caps: { max_calls: 4 }, after: { vc: 7 }, changeReasons: { vc: 'the partner letter' }, sequence: 3 },
        { judges: ['engineer'], before: { engineer: 6 }, caps: null, after: { engineer: 8 }, changeReasons: { engineer: 'a new benchmark' }, sequence: 5 },
      ]);
      expect(scores(v)).toMatchObject({ vc: 7, engineer: 8 });
    });

    it('an appeal_completed never started in this view (a follow from ?after=) is an appeal of its own, with what it restates', () => {
      const v = panelRun(['appeal_completed', { judges: ['vc'], scores: { vc: 7 } }]);
      expect(v.panel!.appeals).toEqual([{ judges: ['vc'], before: {}, caps: null, after: { vc: 7 }, changeReasons: {}, sequence: 2 }]);
    });

    it('an appeal without caps or change reasons', () => {
      const v = panelRun(['appeal_started', { judges: ['vc'], scores: { vc: 5 } }], ['appeal_completed', { judges: ['vc'], scores: { vc: 6 } }]);
      expect(v.panel!.appeals).toEqual([{ judges: ['vc'], before: { vc: 5 }, caps: null, after: { vc: 6 }, changeReasons: {}, sequence: 2 }]);
    });
  });

  describe('the debate transcript', () => {
    it('a published message without label or replies', () => {
      const v = foldRunEvents([published(1, 'pm', 2, 'Onboarding is the risk.')]);
      expect(v.panel!.debate).toEqual([{ speaker: 'pm', round: 2, message: 'Onboarding is the risk.', label: null, respondsTo: [], sequence: 1, streaming: false }]);
      const replying = foldRunEvents([published(1, 'pm', 2, 'No.', { label: 'D7', responds_to: ['D3', 'D4'] })]);
      expect(replying.panel!.debate[0]).toMatchObject({ label: 'D7', respondsTo: ['D3', 'D4'] });
    });

    it("a speaker's tokens grow that speaker's turn of that round only", () => {
      const v = foldRunEvents([delta(1, 'vc', 1, 'Round one'), delta(2, 'vc', 2, 'Round two'), delta(3, 'vc', 1, ' goes on')]);
      expect(turns(v)).toEqual([
        ['vc', 1, 'Round one goes on', true],
        ['vc', 2, 'Round two', true],
      ]);
    });

    it('tokens never change a published turn: the same speaker and round streams a new one', () => {
      const v = foldRunEvents([published(1, 'vc', 1, 'Frozen.'), delta(2, 'vc', 1, 'More')]);
      expect(turns(v)).toEqual([
        ['vc', 1, 'Frozen.', false],
        ['vc', 1, 'More', true],
      ]);
    });

    it("the published message replaces its own speaker's streaming turn of its round, nobody else's", () => {
      const streaming = foldRunEvents([delta(1, 'vc', 1, 'The moat'), delta(2, 'vc', 2, 'Still')]);
      const v = foldRunEvents([published(3, 'engineer', 1, 'I disagree.'), published(4, 'vc', 2, 'Still thin.')], streaming);
      expect(turns(v)).toEqual([
        ['vc', 1, 'The moat', true],
        ['vc', 2, 'Still thin.', false],
        ['engineer', 1, 'I disagree.', false],
      ]);
      expect(v.panel!.debate[1].sequence).toBe(2);
    });

    it('a second message of a turn already published is a turn of its own', () => {
      const v = foldRunEvents([published(1, 'vc', 1, 'First.'), published(2, 'vc', 1, 'Second.')]);
      expect(turns(v)).toEqual([
        ['vc', 1, 'First.', false],
        ['vc', 1, 'Second.', false],
      ]);
    });
  });

  describe('a debate try that leaves no turn', () => {
    const facts = { call_id: 'c1', stage: 'DEBATE', role: 'vc', provider: 'p', model: 'm', attempt: 1 };
    const invalid = (sequence: number, extra: Record<string, unknown> = {}) => envelope('agent_call_completed', sequence, { ...facts, valid: false, ...extra } as P<'agent_call_completed'>);

    it("drops the speaker's streaming text only: published turns and other speakers' streams stay", () => {
      const v = foldRunEvents([published(1, 'vc', 1, 'Published.'), delta(2, 'vc', 2, '{broken'), delta(3, 'engineer', 2, 'Mine'), invalid(4)]);
      expect(turns(v)).toEqual([
        ['vc', 1, 'Published.', false],
        ['engineer', 2, 'Mine', true],
      ]);
    });

    it('leaves the transcript as it was (the same object) when the speaker streamed nothing', () => {
      const v = foldRunEvents([published(1, 'vc', 1, 'Published.'), delta(2, 'engineer', 2, 'Mine')]);
      const after = foldRunEvent(v, invalid(3));
      expect(after.panel!.debate).toBe(v.panel!.debate);
      const noPanel = foldRunEvents([envelope('run_created', 1), invalid(2)]);
      expect(noPanel.panel).toBeNull();
    });

    it('keeps the stream on a call of another stage, and on a debate call being queued', () => {
      const streamed = foldRunEvents([delta(1, 'vc', 1, 'The moat')]);
      const roast = foldRunEvent(streamed, invalid(2, { stage: 'ROAST' }));
      expect(turns(roast)).toEqual([['vc', 1, 'The moat', true]]);
      const queued = foldRunEvent(streamed, envelope('agent_call_queued', 2, facts));
      expect(turns(queued)).toEqual([['vc', 1, 'The moat', true]]);
    });
  });

  describe('the end of a panel run', () => {
    it('a halted run_completed (the fact-only close) stops the judges still pending and keeps the halt reason', () => {
      const v = panelRun(['judges_dispatched'], ['judge_verdict_completed'], ['run_halted'], ['run_completed', { status: 'halted' }]);
      expect(v).toMatchObject({ status: 'halted', endReason: 'max_calls reached', verdict: null, confidence: null });
      expect(states(v)).toEqual(['completed', 'stopped', 'stopped', 'stopped', 'stopped']);
      const direct = panelRun(['judges_dispatched'], ['run_completed', { status: 'needs_input' }]);
      expect(direct.status).toBe('needs_input');
      expect(states(direct)).toEqual(['stopped', 'stopped', 'stopped', 'stopped', 'stopped']);
    });

    it("a done run_completed keeps the judges' cards and adds the completion; it has no end reason", () => {
      const completion = { recommendation: 'GO' as const, synthesis: null, partial: true, quality: null, low_confidence: false, scores: { vc: 4 }, warnings: [] };
      const v = panelRun(['judges_dispatched'], ['judge_verdict_completed'], ['run_halted'], ['run_completed', { status: 'done', verdict: 'GO', confidence: 0.7, panel: completion }]);
      expect(v).toMatchObject({ status: 'done', endReason: null, verdict: 'GO', confidence: 0.7 });
      expect(states(v)).toEqual(['completed', 'stopped', 'stopped', 'stopped', 'stopped']);
      expect(card(v, 'vc').score).toBe(4);
      expect(v.panel!.completion).toEqual(completion);
    });

    it('a run that ends with every judge answered leaves the panel as it was', () => {
      const answered = panelRun(['judges_dispatched', { judges: ['vc'] }], ['judge_verdict_completed']);
      const all = foldRunEvents([envelope('judges_dispatched', 1), ...(['vc', 'engineer', 'pm', 'customer', 'competitor'] as const).map((j, i) => envelope('judge_verdict_completed', i + 2, { ...SAMPLE_PAYLOADS.judge_verdict_completed, judge: j }))]);
      for (const end of ['run_failed', 'run_halted', 'run_cancelled'] as const) expect(foldRunEvent(all, envelope(end, 7)).panel).toBe(all.panel);
      expect(states(foldRunEvent(answered, envelope('run_failed', 4)))).toEqual(['completed', 'failed', 'failed', 'failed', 'failed']);
    });
  });

  describe('the view it is given', () => {
    it('is never changed by a panel event (each fold copies what it changes)', () => {
      const v = foldRunEvents([
        envelope('run_created', 1, { project: 'swapboard', workflow: 'panel' }),
        envelope('judges_dispatched', 2),
        envelope('judge_verdict_completed', 3),
        delta(4, 'vc', 1, 'The moat'),
        envelope('debate_message_published', 5),
        delta(5, 'engineer', 1, 'I'),
        envelope('appeal_started', 6),
      ]);
      const copy = JSON.parse(JSON.stringify(v));
      const next: RunEventEnvelope[] = [
        delta(6, 'engineer', 1, ' agree'),
        delta(6, 'pm', 1, 'Hm'),
        published(7, 'engineer', 1, 'I agree.'),
        published(7, 'customer', 1, 'Yes.'),
        envelope('appeal_completed', 7),
        envelope('appeal_completed', 8),
        envelope('roast_panel_completed', 7),
        envelope('revote_judge_completed', 7),
        envelope('judges_dispatched', 7),
        envelope('panel_retry', 7),
        envelope('run_failed', 7),
        envelope('agent_call_failed', 7, { call_id: 'd1', stage: 'DEBATE', role: 'engineer', provider: 'p', model: 'm', attempt: 1, error: 'timeout' }),
      ];
      for (const ev of next) foldRunEvent(v, ev);
      expect(v).toEqual(copy);
    });
  });
});
