import type { RunEventEnvelope, RunEventPayload, RunEventType } from '@roundtable/contracts';

/**
 * One payload for every event type of the catalogue: typed by it, so a new event type does
 * not compile here until it has a sample (and the reducer spec a case for it).
 */
const judgeVerdict = (judge: 'vc' | 'engineer' | 'pm' | 'customer' | 'competitor', score: number) => ({
  judge,
  score,
  stance: 'mixed' as const,
  top_concerns: [`${judge} concern`],
  evidence: [`${judge} evidence`],
  what_would_change_my_mind: 'a pilot',
  confidence: 0.6,
});

const synthesis = {
  overall_recommendation: 'ITERATE' as const,
  confidence: 0.55,
  top_strengths: ['real pain'],
  top_risks: ['integration cost'],
  top_problems: ['no moat'],
  biggest_disagreement: 'vc vs engineer on the moat',
  recommended_experiment: 'a two-week pilot',
};

export const SAMPLE_PAYLOADS: { [T in RunEventType]: RunEventPayload<T> } = {
  run_created: { project: 'dd-demo', workflow: 'build' },
  provider_unserved: { provider: 'openai', api_key_env: 'OPENAI_API_KEY', reason: 'no live worker', start: 'worker-openai' },
  run_started: { workspace: '/ws/run-1' },
  stage_changed: { from: 'INIT', to: 'PROPOSE', reason: 'workspace ready' },
  agent_call_queued: { call_id: 'c1', stage: 'PROPOSE', role: 'proposer', provider: 'replay', model: 'demo', attempt: 1, label: 'P1' },
  agent_call_completed: {
    call_id: 'c1', stage: 'PROPOSE', role: 'proposer', provider: 'replay', model: 'demo', attempt: 1, label: 'P1',
    valid: true, input_tokens: 100, output_tokens: 50, cost_usd: 0.01, latency_ms: 1200, gist: 'P1: track the peak',
  },
  agent_call_failed: { call_id: 'c2', stage: 'CRITIQUE', role: 'critic', provider: 'replay', model: 'demo', attempt: 1, label: 'C1', error: 'timeout', error_code: 'TIMEOUT' },
  proposal_recorded: { label: 'P1', claim: 'track the peak', confidence: 0.8, revision_of: null },
  critique_recorded: { label: 'C1', target: 'P1', verdict: 'REVISE', problems: 2 },
  criteria_locked: { criteria: [{ id: 'AC1', text: 'empty list gives 0' }] },
  implementation_recorded: { label: 'I1', files: ['dd.py', 'test_dd.py'], fix_round: 0 },
  files_rejected: { label: 'I1', error: 'path escapes the workspace' },
  files_requested: { role: 'engineer', label: 'I1', call_id: 'c5', paths: ['dd.py'], round: 1 },
  files_read: { label: 'I1', files: [{ path: 'dd.py', bytes: 120, truncated: false, error: null }] },
  engineer_tools_ran: { label: 'I1', turn: 2, tools: [{ name: 'write_file', target: 'dd.py', is_error: false }, { name: 'run_tests', target: null, is_error: false }] },
  tests_started: { implementation: 'I1', command: 'pytest -q' },
  tests_completed: { label: 'T1', exit_code: 0, passed: 4, failed: 0, errors: 0, timed_out: false },
  review_recorded: { label: 'R1', verdict: 'ACCEPT' },
  synthesis_recorded: { label: 'S1', verdict: 'ACCEPT', partial: false },
  open_question_raised: { role: 'critic', question: 'negative prices?' },
  budget_warning: { cap: 'max_calls', used: 13, limit: 16 },
  run_halted: { reason: 'max_calls reached' },
  run_completed: { status: 'done', verdict: 'ACCEPT', confidence: 0.9 },
  run_failed: { reason: 'orchestrator gave up' },
  run_cancelled: { reason: 'asked by alice' },
  run_resumed: { at: 'CRITIQUE', rerun: false, caps: { max_calls: 30 } },
  provider_fallback: { role: 'critic', from: 'openai', to: 'anthropic', reason: 'AUTH' },
  approval_requested: { gate: 'criteria', subject: { criteria: [{ id: 'AC1', text: 'empty series returns 0.0' }] } },
  approval_given: { gate: 'criteria', approver: 'alice', note: 'AC1 reworded', edits: { added: [], dropped: [], reworded: [{ id: 'AC1', from: 'empty series returns 0.0', to: 'an empty series returns 0.0' }] } },
  approval_refused: { gate: 'merge', approver: 'alice', note: 'not now' },
  question_answered: { question_id: 'Q1', answered_by: 'alice', answer: 'use the absolute drawdown' },
  merge_completed: { into: 'main', strategy: 'merge', commit: 'abc1234', previous: 'def4567' },
  merge_refused: { reason: 'the original has uncommitted changes: dd.py', code: 'dirty' },
  judges_dispatched: { judges: ['vc', 'engineer', 'pm', 'customer', 'competitor'], round: 0 },
  judge_verdict_completed: { judge: 'vc', verdict: judgeVerdict('vc', 4), completed: 1, total: 5 },
  roast_panel_completed: {
    scores: { vc: 4, engineer: 6 },
    quality: {
      status: 'ok',
      figures: { max_jaccard: 0.1, pairs: [{ a: 'vc', b: 'engineer', jaccard: 0.1 }], generic_rates: { vc: 0.5 }, duplicates: {} },
      weak_judges: ['vc'],
      reasons: [],
    },
  },
  panel_retry: { attempt: 1, reasons: ['vc evidence is generic'], judges: ['vc'] },
  debate_message_published: { speaker: 'vc', round: 1, message: 'The moat is thin.', label: 'D1', responds_to: [] },
  debate_token_delta: { speaker: 'vc', round: 1, delta: 'The moat' },
  revote_started: { baseline: { vc: 4, engineer: 6 } },
  revote_judge_completed: { judge: 'vc', score: 5, previous: 4, delta: 1, change_reason: 'the pilot data', capped: false },
  moderator_completed: { synthesis },
  run_metrics: {
    phase_seconds: { roast: 2, debate: 5 },
    tokens: 900,
    cost_usd: null,
    calls: [{ call_id: 'c1', role: 'vc', stage: 'ROAST', provider: 'replay', model: 'demo', attempt: 1, status: 'completed', input_tokens: 10, output_tokens: 5, cost_usd: null, latency_ms: 3 }],
  },
  appeal_started: { judges: ['vc'], scores: { vc: 5 }, caps: { max_calls: 4 } },
  appeal_completed: { judges: ['vc'], scores: { vc: 7 }, previous: { vc: 5 }, change_reasons: { vc: 'the partner letter' } },
  panel_warning: { kind: 'herding', detail: 'three judges moved together', judges: ['vc', 'pm', 'customer'] },
  method_started: { op_id: 'run-1-M1', command: 'python3 backtest.py prices.csv', metrics: ['sharpe_oos', 'n_trades'] },
  method_finished: { op_id: 'run-1-M1', metrics: { sharpe_oos: -0.16, n_trades: 11 }, exit_code: 0, error: null },
  experiment_decided: { decision: 'KILL', computed: 'KILL', override_request: null, review_agrees: true, open_question: null },
};

export const SAMPLE_VERDICT = judgeVerdict;

/** An envelope of run `run-1` at `sequence`, `seconds` into the run. */
export function envelope<T extends RunEventType>(type: T, sequence: number, payload: RunEventPayload<T> = SAMPLE_PAYLOADS[type], seconds = sequence): RunEventEnvelope {
  return { type, run_id: 'run-1', sequence, payload: payload as Record<string, unknown>, created_at: new Date(Date.UTC(2026, 11, 1, 12, 0, seconds)).toISOString() };
}
