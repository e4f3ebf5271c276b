import { RUN_EVENT_PAYLOADS, RunEventEnvelope, RunEventPayload, RunEventType, TERMINAL_EVENT_TYPES } from './run-event.schema';

const call = { call_id: 'c1', stage: 'PROPOSE', role: 'proposer', provider: 'replay', model: 'm', attempt: 1 };
const judgeVerdict = {
  judge: 'vc' as const,
  score: 4,
  stance: 'against' as const,
  top_concerns: ['CAC above LTV'],
  evidence: ['3 of 40 interviewees would pay'],
  what_would_change_my_mind: 'a paid pilot',
  confidence: 0.6,
};
const moderatorSynthesis = {
  overall_recommendation: 'ITERATE' as const,
  confidence: 0.6,
  top_strengths: ['clear pain'],
  top_risks: ['distribution'],
  top_problems: ['pricing'],
  biggest_disagreement: 'vc vs customer on willingness to pay',
  recommended_experiment: 'a $49 pre-order page',
};
const quality = { status: 'ok' as const, figures: { max_jaccard: 0.2, pairs: [], generic_rates: {}, duplicates: {} }, weak_judges: [], reasons: [] };

/** One minimal valid payload per type; the mapped type makes a new event without an entry a compile error. */
const valid: { [T in RunEventType]: RunEventPayload<T> } = {
  run_created: { project: 'dd-demo', workflow: 'build' },
  provider_unserved: { provider: 'anthropic', api_key_env: 'ANTHROPIC_API_KEY', reason: 'no live provider-worker serves provider "anthropic"', start: 'start worker-anthropic' },
  run_started: {},
  stage_changed: { from: 'INIT', to: 'PROPOSE', reason: 'run started' },
  agent_call_queued: call,
  agent_call_completed: { ...call, valid: true },
  agent_call_failed: { ...call, error: 'timeout' },
  proposal_recorded: { label: 'P1', claim: 'c', confidence: 0.6 },
  critique_recorded: { label: 'C1', target: 'P1', verdict: 'REVISE', problems: 2 },
  criteria_locked: { criteria: [] },
  implementation_recorded: { label: 'I1', files: ['dd.py'], fix_round: 0 },
  files_rejected: { label: 'I1', error: '"../x" contains ..' },
  files_requested: { role: 'critic', label: 'C1', call_id: 'r-c2', paths: ['src/app.py'], round: 1 },
  files_read: { label: 'C1', files: [{ path: 'src/app.py', bytes: 120, truncated: false, error: null }] },
  engineer_tools_ran: { label: 'I1', turn: 1, tools: [{ name: 'read_file', target: 'calc.py', is_error: false }] },
  tests_started: { implementation: 'I1', command: 'python -m pytest -q' },
  tests_completed: { label: 'T1', exit_code: 0, passed: 5, failed: 0, errors: 0, timed_out: false },
  review_recorded: { label: 'R1', verdict: 'ACCEPT' },
  synthesis_recorded: { label: 'S1', partial: false },
  open_question_raised: { role: 'engineer', question: 'which python?' },
  budget_warning: { cap: 'max_calls', used: 13, limit: 16 },
  run_halted: { reason: 'budget exhausted' },
  run_completed: { status: 'done' },
  run_failed: { reason: 'provider down' },
  run_cancelled: {},
  run_resumed: { at: 'CRITIQUE', rerun: false, caps: { max_calls: 20 } },
  provider_fallback: { role: 'critic', from: 'xai', to: 'anthropic', reason: 'USAGE_LIMIT: xai: HTTP 429 insufficient_quota' },
  approval_requested: { gate: 'criteria', subject: { criteria: [{ id: 'AC1', text: 'empty series returns 0.0' }] } },
  approval_given: { gate: 'criteria', approver: 'alice', note: null, edits: { added: [], dropped: [], reworded: [{ id: 'AC1', from: 'a', to: 'b' }] } },
  approval_refused: { gate: 'merge', approver: 'alice', note: 'not now' },
  question_answered: { question_id: 'Q1', answered_by: 'alice', answer: 'use the absolute drawdown' },
  merge_completed: { into: 'main', strategy: 'merge', commit: 'abc123', previous: 'def456' },
  merge_refused: { reason: 'the original has uncommitted changes: dd.py', code: 'dirty' },
  judges_dispatched: { judges: ['vc', 'engineer', 'pm', 'customer', 'competitor'] },
  judge_verdict_completed: { judge: 'vc', verdict: judgeVerdict, completed: 1, total: 5 },
  roast_panel_completed: { scores: { vc: 4, pm: 7 } },
  panel_retry: { attempt: 1, reasons: ['pm: 60 % generic evidence'] },
  debate_message_published: { speaker: 'pm', round: 1, message: 'the onboarding is the risk' },
  debate_token_delta: { speaker: 'pm', round: 1, delta: 'the onb' },
  revote_started: { baseline: { vc: 4 } },
  revote_judge_completed: { judge: 'vc', score: 6, previous: 4, delta: 2, change_reason: 'the pilot data' },
  moderator_completed: { synthesis: moderatorSynthesis },
  run_metrics: { phase_seconds: { roast: 3.2 }, tokens: 1200, cost_usd: null, calls: [] },
  appeal_started: { judges: ['vc'], scores: { vc: 4 } },
  appeal_completed: { judges: ['vc'], scores: { vc: 6 } },
  panel_warning: { kind: 'herding', detail: 'four judges moved by +2' },
  method_started: { op_id: 'run-1-M1', command: 'python3 backtest.py', metrics: ['sharpe_oos'] },
  method_finished: { op_id: 'run-1-M1', metrics: { sharpe_oos: 1.2 }, exit_code: 0, error: null },
  experiment_decided: { decision: 'PASS', computed: 'PASS', override_request: null, review_agrees: true, open_question: null },
};

/** An obviously wrong payload per type: a required field missing or of the wrong kind. */
const invalid: Record<RunEventType, Record<string, unknown>> = {
  run_created: { project: 'dd-demo' },
  provider_unserved: { provider: 'anthropic', reason: 'no worker', start: 'x' },
  run_started: { workspace: 42 },
  stage_changed: { from: 'INIT', to: 'LUNCH', reason: 'x' },
  agent_call_queued: { ...call, attempt: 1.5 },
  agent_call_completed: call,
  agent_call_failed: call,
  proposal_recorded: { label: 'P1', claim: 'c', confidence: 'high' },
  critique_recorded: { label: 'C1', target: 'P1', verdict: 'REVISE', problems: 1.5 },
  criteria_locked: { criteria: ['not an object'] },
  implementation_recorded: { label: 'I1', files: 'dd.py', fix_round: 0 },
  files_rejected: { label: 'I1' },
  files_requested: { role: 'critic', label: 'C1', call_id: 'r-c2', paths: 'src/app.py', round: 1 },
  files_read: { label: 'C1', files: [{ path: 'src/app.py' }] },
  engineer_tools_ran: { label: 'I1', turn: 0, tools: [] },
  tests_started: { command: 'pytest' },
  tests_completed: { label: 'T1', exit_code: 0, passed: 5, failed: 0, errors: 0 },
  review_recorded: { verdict: 'ACCEPT' },
  synthesis_recorded: { label: 'S1', partial: 'no' },
  open_question_raised: { role: 'engineer' },
  budget_warning: { cap: 'max_calls', used: '13', limit: 16 },
  run_halted: {},
  run_completed: { status: 'finished' },
  run_failed: {},
  run_cancelled: { reason: 7 },
  run_resumed: { at: 'NOWHERE', rerun: 'no', caps: {} },
  provider_fallback: { role: 'critic', from: 'xai' },
  approval_requested: { gate: 'criteria' },
  approval_given: { gate: 'criteria', note: null },
  approval_refused: { approver: 'alice' },
  question_answered: { question_id: 'Q1', answer: 'x' },
  merge_completed: { into: 'main', strategy: 'merge' },
  merge_refused: { reason: 'dirty' },
  judges_dispatched: { judges: ['vc', 'investor'] },
  judge_verdict_completed: { judge: 'vc', verdict: { ...judgeVerdict, score: 11 }, completed: 1, total: 5 },
  roast_panel_completed: { scores: { vc: 0 } },
  panel_retry: { reasons: [] },
  debate_message_published: { speaker: 'moderator', round: 1, message: 'x' },
  debate_token_delta: { speaker: 'pm', round: 0, delta: 'x' },
  revote_started: { baseline: { vc: 4.5 } },
  revote_judge_completed: { judge: 'vc', score: 6, previous: 4 },
  moderator_completed: { synthesis: { ...moderatorSynthesis, overall_recommendation: 'MAYBE' } },
  run_metrics: { phase_seconds: { roast: -1 }, tokens: 1200, cost_usd: null, calls: [] },
  appeal_started: { judges: [], scores: {} },
  appeal_completed: { judges: ['vc'] },
  panel_warning: { kind: 'vibes', detail: 'x' },
  method_started: { op_id: 'run-1-M1', command: 'x' },
  method_finished: { op_id: 'run-1-M1', metrics: { sharpe_oos: 'high' }, exit_code: 0, error: null },
  experiment_decided: { decision: 'MAYBE', computed: 'PASS', override_request: null, review_agrees: true, open_question: null },
};

const types = Object.keys(RUN_EVENT_PAYLOADS) as RunEventType[];

describe('RUN_EVENT_PAYLOADS', () => {
  it('has snake_case type names', () => {
    for (const t of types) expect(t).toMatch(/^[a-z]+(_[a-z]+)*$/);
  });

  it.each(types)('%s parses its minimal payload', (type) => {
    expect(RUN_EVENT_PAYLOADS[type].safeParse(valid[type]).success).toBe(true);
  });

  it.each(types)('%s rejects an obviously wrong payload', (type) => {
    expect(RUN_EVENT_PAYLOADS[type].safeParse(invalid[type]).success).toBe(false);
  });

  it.each(types)('%s rejects a non-object payload', (type) => {
    expect(RUN_EVENT_PAYLOADS[type].safeParse('payload').success).toBe(false);
  });

  it('stage_changed takes a panel stage as well as a build stage', () => {
    expect(RUN_EVENT_PAYLOADS.stage_changed.safeParse({ from: 'ROAST', to: 'DEBATE', reason: 'panel ok' }).success).toBe(true);
    expect(RUN_EVENT_PAYLOADS.stage_changed.safeParse({ from: 'PROPOSE', to: 'CRITIQUE', reason: 'P1 valid' }).success).toBe(true);
  });

  it('run_completed carries an optional panel outcome, checked when present', () => {
    const panel = { recommendation: 'ITERATE', synthesis: moderatorSynthesis, partial: false, quality, low_confidence: false, scores: { vc: 5 }, warnings: [] };
    expect(RUN_EVENT_PAYLOADS.run_completed.safeParse({ status: 'done', verdict: 'ITERATE', confidence: 0.6, panel }).success).toBe(true);
    expect(RUN_EVENT_PAYLOADS.run_completed.safeParse({ status: 'done', panel: { ...panel, scores: { vc: 12 } } }).success).toBe(false);
  });

  it('has an invalid example for every type', () => {
    expect(Object.keys(invalid).sort()).toEqual([...types].sort());
  });
});

describe('TERMINAL_EVENT_TYPES', () => {
  it('are in the catalogue', () => {
    expect(TERMINAL_EVENT_TYPES.length).toBeGreaterThan(0);
    for (const t of TERMINAL_EVENT_TYPES) expect(types).toContain(t);
  });

  it('are exactly the run_completed/failed/cancelled events', () => {
    expect([...TERMINAL_EVENT_TYPES].sort()).toEqual(['run_cancelled', 'run_completed', 'run_failed']);
  });
});

describe('RunEventEnvelope', () => {
  const env = { type: 'run_started', run_id: 'r1', sequence: 1, payload: {}, created_at: '2025-01-01T00:00:00Z' };

  it('accepts a frame with a positive integer sequence', () => {
    expect(RunEventEnvelope.parse(env)).toEqual(env);
  });

  it.each([0, -1, 1.5])('rejects sequence %p', (sequence) => {
    expect(RunEventEnvelope.safeParse({ ...env, sequence }).success).toBe(false);
  });

  it('rejects a non-object payload', () => {
    expect(RunEventEnvelope.safeParse({ ...env, payload: [] }).success).toBe(false);
  });
});
