import { JudgeRole, RUN_EVENT_PAYLOADS, type RunEventType } from '@roundtable/contracts';
import { emptyRunView } from './empty-run-view';
import { envelope, SAMPLE_PAYLOADS, SAMPLE_VERDICT } from './event-samples.fixture';
import { foldRunEvent, foldRunEvents } from './fold-run-event';
import { JUDGE_ORDER } from './judge-order';
import type { RunView } from './run-view';

/** Folds `types` (each with its sample payload) at sequences 1, 2, … */
const fold = (...types: RunEventType[]): RunView => foldRunEvents(types.map((t, i) => envelope(t, i + 1)));
const panelRun = (...types: RunEventType[]): RunView =>
  foldRunEvents([envelope('run_created', 1, { project: 'swapboard', workflow: 'panel' }), ...types.map((t, i) => envelope(t, i + 2))]);
const judge = (v: RunView, name: string) => v.panel!.judges.find((j) => j.judge === name)!;

/** What each event type does to the view: one case per type of the catalogue (the type forces it). */
const CASES: { [T in RunEventType]: () => void } = {
  run_created: () => {
    const v = fold('run_created');
    expect(v).toMatchObject({ runId: 'run-1', project: 'dd-demo', workflow: 'build', status: 'queued', panel: null, lastSequence: 1 });
    expect(panelRun().panel!.judges.map((j) => j.state)).toEqual(['waiting', 'waiting', 'waiting', 'waiting', 'waiting']);
  },
  provider_unserved: () => expect(fold('provider_unserved').notices).toEqual([{ kind: 'provider_unserved', sequence: 1, payload: SAMPLE_PAYLOADS.provider_unserved }]),
  run_started: () => expect(fold('run_created', 'run_started')).toMatchObject({ status: 'running', stage: 'INIT', workspace: '/ws/run-1', startedAt: envelope('run_started', 2).created_at }),
  stage_changed: () => {
    const v = fold('run_started', 'stage_changed');
    expect(v.stage).toBe('PROPOSE');
    expect(v.stages).toEqual([{ stage: 'PROPOSE', from: 'INIT', reason: 'workspace ready', at: envelope('stage_changed', 2).created_at, sequence: 2 }]);
  },
  agent_call_queued: () => {
    const v = fold('agent_call_queued');
    expect(v.calls).toEqual([expect.objectContaining({ callId: 'c1', role: 'proposer', state: 'queued', label: 'P1', finishedAt: null })]);
    expect(v.usage.calls).toBe(0);
  },
  agent_call_completed: () => {
    const v = fold('agent_call_queued', 'agent_call_completed');
    expect(v.calls).toEqual([expect.objectContaining({ callId: 'c1', state: 'completed', valid: true, inputTokens: 100, outputTokens: 50, costUsd: 0.01, latencyMs: 1200, gist: 'P1: track the peak' })]);
    expect(v.usage).toEqual({ calls: 1, failedCalls: 0, tokens: 150, costUsd: 0.01, unpricedCalls: 0 });
  },
  agent_call_failed: () => {
    const v = fold('agent_call_failed');
    expect(v.calls).toEqual([expect.objectContaining({ callId: 'c2', state: 'failed', error: 'timeout', errorCode: 'TIMEOUT' })]);
    expect(v.usage).toEqual({ calls: 1, failedCalls: 1, tokens: 0, costUsd: null, unpricedCalls: 0 });
  },
  proposal_recorded: () => expect(fold('proposal_recorded').build.proposals).toEqual([SAMPLE_PAYLOADS.proposal_recorded]),
  critique_recorded: () => expect(fold('critique_recorded').build.critiques).toEqual([SAMPLE_PAYLOADS.critique_recorded]),
  criteria_locked: () => expect(fold('criteria_locked').build.criteria).toEqual([{ id: 'AC1', text: 'empty list gives 0' }]),
  implementation_recorded: () => expect(fold('implementation_recorded').build.implementations).toEqual([SAMPLE_PAYLOADS.implementation_recorded]),
  files_rejected: () => expect(fold('files_rejected').notices.map((n) => n.kind)).toEqual(['files_rejected']),
  files_requested: () => expect(fold('files_requested').build.fileRequests).toEqual([SAMPLE_PAYLOADS.files_requested]),
  files_read: () => expect(fold('files_read').build.fileReads).toEqual([SAMPLE_PAYLOADS.files_read]),
  engineer_tools_ran: () => expect(fold('engineer_tools_ran').build.toolTurns).toEqual([SAMPLE_PAYLOADS.engineer_tools_ran]),
  tests_started: () => expect(fold('tests_started').build.tests).toEqual([{ implementation: 'I1', command: 'pytest -q', result: null }]),
  tests_completed: () => {
    expect(fold('tests_started', 'tests_completed').build.tests).toEqual([{ implementation: 'I1', command: 'pytest -q', result: SAMPLE_PAYLOADS.tests_completed }]);
    // A view folded from after tests_started still shows the result.
    expect(fold('tests_completed').build.tests).toEqual([{ implementation: 'T1', command: '', result: SAMPLE_PAYLOADS.tests_completed }]);
  },
  review_recorded: () => expect(fold('review_recorded').build.reviews).toEqual([SAMPLE_PAYLOADS.review_recorded]),
  synthesis_recorded: () => expect(fold('synthesis_recorded').build.synthesis).toEqual(SAMPLE_PAYLOADS.synthesis_recorded),
  open_question_raised: () => expect(fold('open_question_raised').openQuestions).toEqual([SAMPLE_PAYLOADS.open_question_raised]),
  budget_warning: () => expect(fold('budget_warning').notices).toEqual([{ kind: 'budget_warning', sequence: 1, payload: SAMPLE_PAYLOADS.budget_warning }]),
  run_halted: () => {
    const v = fold('run_started', 'run_halted');
    expect(v).toMatchObject({ status: 'halted', endReason: 'max_calls reached' });
    expect(v.halts).toEqual([{ reason: 'max_calls reached', at: envelope('run_halted', 2).created_at, sequence: 2 }]);
  },
  run_completed: () => {
    expect(fold('run_started', 'run_completed')).toMatchObject({ status: 'done', verdict: 'ACCEPT', confidence: 0.9 });
    const completion = { recommendation: 'GO' as const, synthesis: null, partial: false, quality: null, low_confidence: false, scores: { vc: 6 }, warnings: [] };
    const v = foldRunEvents([envelope('run_created', 1, { project: 'p', workflow: 'panel' }), envelope('run_completed', 2, { status: 'done', verdict: 'GO', confidence: 0.7, panel: completion })]);
    expect(v.panel!.completion).toEqual(completion);
  },
  run_failed: () => expect(fold('run_started', 'run_failed')).toMatchObject({ status: 'failed', endReason: 'orchestrator gave up' }),
  run_cancelled: () => expect(fold('run_started', 'run_cancelled')).toMatchObject({ status: 'cancelled', endReason: 'asked by alice' }),
  run_resumed: () => {
    const v = fold('run_started', 'run_halted', 'run_resumed');
    expect(v).toMatchObject({ status: 'running', endReason: null, verdict: null });
    expect(v.resumes).toEqual([{ at: 'CRITIQUE', rerun: false, caps: { max_calls: 30 }, sequence: 3 }]);
    expect(v.halts).toHaveLength(1);
  },
  approval_requested: () => expect(fold('approval_requested')).toMatchObject({ status: 'awaiting_approval', people: { gate: { name: 'criteria' } } }),
  approval_given: () => expect(fold('approval_given').people.decisions).toHaveLength(1),
  approval_refused: () => expect(fold('approval_refused').people.decisions[0].decision).toBe('reject'),
  question_answered: () => expect(fold('question_answered').people.answers).toHaveLength(1),
  merge_completed: () => expect(fold('merge_completed').people.merge?.merged).toBe(true),
  merge_refused: () => expect(fold('merge_refused').people.merge?.code).toBe('dirty'),
  provider_fallback: () => expect(fold('provider_fallback').notices).toEqual([{ kind: 'provider_fallback', sequence: 1, payload: SAMPLE_PAYLOADS.provider_fallback }]),
  judges_dispatched: () => expect(panelRun('judges_dispatched').panel!.judges.map((j) => j.state)).toEqual(['dispatched', 'dispatched', 'dispatched', 'dispatched', 'dispatched']),
  judge_verdict_completed: () => {
    const v = panelRun('judges_dispatched', 'judge_verdict_completed');
    expect(judge(v, 'vc')).toMatchObject({ state: 'completed', score: 4, verdict: SAMPLE_VERDICT('vc', 4) });
    expect(judge(v, 'pm').state).toBe('dispatched');
  },
  roast_panel_completed: () => {
    const v = panelRun('roast_panel_completed');
    expect(v.panel!.roast!.scores).toEqual({ vc: 4, engineer: 6 });
    expect(judge(v, 'vc')).toMatchObject({ score: 4, weak: true, genericRate: 0.5 });
    expect(judge(v, 'engineer')).toMatchObject({ score: 6, weak: false, genericRate: null });
  },
  panel_retry: () => expect(panelRun('panel_retry').panel!.retries).toEqual([SAMPLE_PAYLOADS.panel_retry]),
  debate_message_published: () => {
    const streamed = panelRun('debate_token_delta', 'debate_message_published');
    expect(streamed.panel!.debate).toEqual([{ speaker: 'vc', round: 1, message: 'The moat is thin.', label: 'D1', respondsTo: [], sequence: 2, streaming: false }]);
    const whole = panelRun('debate_message_published');
    expect(whole.panel!.debate).toEqual([{ speaker: 'vc', round: 1, message: 'The moat is thin.', label: 'D1', respondsTo: [], sequence: 2, streaming: false }]);
  },
  debate_token_delta: () => {
    const v = foldRunEvents([envelope('debate_token_delta', 1), envelope('debate_token_delta', 2, { speaker: 'vc', round: 1, delta: ' is thin' })]);
    expect(v.panel!.debate).toEqual([{ speaker: 'vc', round: 1, message: 'The moat is thin', label: null, respondsTo: [], sequence: 1, streaming: true }]);
    // The next speaker's tokens open a turn of their own.
    const next = foldRunEvent(v, envelope('debate_token_delta', 3, { speaker: 'engineer', round: 1, delta: 'I disagree' }));
    expect(next.panel!.debate.map((t) => [t.speaker, t.message])).toEqual([['vc', 'The moat is thin'], ['engineer', 'I disagree']]);
  },
  revote_started: () => expect(panelRun('revote_started').panel!.revoteBaseline).toEqual({ vc: 4, engineer: 6 }),
  revote_judge_completed: () => {
    const v = panelRun('revote_started', 'revote_judge_completed');
    expect(judge(v, 'vc')).toMatchObject({ score: 5, revote: { previous: 4, score: 5, delta: 1, reason: 'the pilot data', capped: false } });
    // The delta is against the re-vote's baseline, whatever the event restates.
    const odd = foldRunEvents([envelope('revote_started', 1, { baseline: { vc: 3 } }), envelope('revote_judge_completed', 2)]);
    expect(judge(odd, 'vc').revote).toMatchObject({ previous: 3, score: 5, delta: 2 });
  },
  moderator_completed: () => expect(panelRun('moderator_completed').panel!.moderator).toEqual(SAMPLE_PAYLOADS.moderator_completed.synthesis),
  run_metrics: () => expect(panelRun('run_metrics').panel!.metrics).toEqual(SAMPLE_PAYLOADS.run_metrics),
  appeal_started: () => expect(panelRun('appeal_started').panel!.appeals).toEqual([{ judges: ['vc'], before: { vc: 5 }, caps: { max_calls: 4 }, after: null, changeReasons: {}, sequence: 2 }]),
  appeal_completed: () => {
    const v = panelRun('appeal_started', 'appeal_completed');
    expect(v.panel!.appeals).toEqual([{ judges: ['vc'], before: { vc: 5 }, caps: { max_calls: 4 }, after: { vc: 7 }, changeReasons: { vc: 'the partner letter' }, sequence: 2 }]);
    expect(judge(v, 'vc').score).toBe(7);
  },
  panel_warning: () => expect(panelRun('panel_warning').notices).toEqual([{ kind: 'panel_warning', sequence: 2, payload: SAMPLE_PAYLOADS.panel_warning }]),
  method_started: () =>
    expect(fold('method_started').experiment).toEqual({
      method: { opId: 'run-1-M1', command: 'python3 backtest.py prices.csv', metricNames: ['sharpe_oos', 'n_trades'], metrics: null, exitCode: null, error: null, sequence: 1 },
      decision: null,
    }),
  method_finished: () =>
    expect(fold('method_started', 'method_finished').experiment!.method).toEqual({
      opId: 'run-1-M1',
      command: 'python3 backtest.py prices.csv',
      metricNames: ['sharpe_oos', 'n_trades'],
      metrics: { sharpe_oos: -0.16, n_trades: 11 },
      exitCode: 0,
      error: null,
      sequence: 2,
    }),
  experiment_decided: () => expect(fold('experiment_decided').experiment!.decision).toEqual({ ...SAMPLE_PAYLOADS.experiment_decided, sequence: 1 }),
};

describe('foldRunEvent', () => {
  it('has a case for every event type of the catalogue, and every sample is a valid payload', () => {
    expect(Object.keys(CASES).sort()).toEqual(Object.keys(RUN_EVENT_PAYLOADS).sort());
    for (const [type, schema] of Object.entries(RUN_EVENT_PAYLOADS)) {
      expect({ type, ok: schema.safeParse(SAMPLE_PAYLOADS[type as RunEventType]).success }).toEqual({ type, ok: true });
    }
  });

  it.each(Object.keys(CASES) as RunEventType[])('folds %s', (type) => CASES[type]());

  it('gates on the sequence first: a duplicate or an out-of-order envelope changes nothing', () => {
    const v = fold('run_created', 'run_started', 'agent_call_queued', 'agent_call_completed');
    expect(foldRunEvent(v, envelope('agent_call_completed', 4))).toBe(v);
    expect(foldRunEvent(v, envelope('proposal_recorded', 2))).toBe(v);
    expect(foldRunEvent(v, envelope('run_failed', 3))).toBe(v);
    expect(v.usage.calls).toBe(1);
  });

  it('ignores an envelope of another run', () => {
    const v = fold('run_created');
    expect(foldRunEvent(v, { ...envelope('run_failed', 2), run_id: 'run-2' })).toBe(v);
  });

  it('counts a call once even if its end is reported twice under new sequences (a redelivered result)', () => {
    const v = fold('agent_call_queued', 'agent_call_completed', 'agent_call_completed');
    expect(v.usage).toMatchObject({ calls: 1, tokens: 150 });
  });

  it('advances the sequence over an event type it does not know, and changes nothing else', () => {
    const v = fold('run_created');
    const next = foldRunEvent(v, { type: 'plan_task_added', run_id: 'run-1', sequence: 2, payload: {}, created_at: v.lastEventAt! });
    expect(next).toEqual({ ...v, lastSequence: 2 });
  });

  it('marks the judges still waiting or thinking failed when the run fails, stopped when it halts or is cancelled', () => {
    const failed = panelRun('judges_dispatched', 'judge_verdict_completed', 'run_failed');
    expect(failed.panel!.judges.map((j) => j.state)).toEqual(['completed', 'failed', 'failed', 'failed', 'failed']);
    const halted = panelRun('judges_dispatched', 'run_halted');
    expect(halted.panel!.judges.map((j) => j.state)).toEqual(['stopped', 'stopped', 'stopped', 'stopped', 'stopped']);
    // Judges never dispatched (idle) are pending too: nothing spins after the run failed.
    const early = panelRun('run_failed');
    expect(early.panel!.judges.map((j) => j.state)).toEqual(['failed', 'failed', 'failed', 'failed', 'failed']);
  });

  it('leaves what did not change the same object (so a component can compare by reference)', () => {
    const v = fold('run_created', 'run_started', 'proposal_recorded');
    const next = foldRunEvent(v, envelope('agent_call_queued', 4));
    expect(next.build).toBe(v.build);
    expect(next.calls).not.toBe(v.calls);
  });

  it('does not mutate the view it is given', () => {
    const v = fold('run_created', 'run_started', 'agent_call_queued');
    const copy = JSON.parse(JSON.stringify(v));
    foldRunEvent(v, envelope('agent_call_completed', 4));
    expect(v).toEqual(copy);
  });

  it('starts from an empty view', () => {
    expect(emptyRunView()).toMatchObject({ lastSequence: 0, status: 'unknown', calls: [], panel: null });
  });
});

describe('JUDGE_ORDER', () => {
  it('is the contracts’ judge order (the debate speaker order)', () => {
    expect(JUDGE_ORDER).toEqual(JudgeRole.options);
  });
});
