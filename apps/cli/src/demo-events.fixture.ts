import type { RunEventEnvelope } from '@roundtable/contracts';

/**
 * The seed §9 session as the event log would hold it (shortened: one critique round, one
 * fix), with the seed's timings and token counts, for the renderer and follow specs.
 */
export const DEMO_RUN = 'run_9f2c1a';

type Ev = [type: string, payload: Record<string, unknown>, secondsIntoRun: number];

const call = (n: number, stage: string, role: string, provider: string, model: string, label: string) => ({
  call_id: `${DEMO_RUN}-c${n}`,
  stage,
  role,
  provider,
  model,
  attempt: 1,
  label,
});

const DEMO: Ev[] = [
  ['run_created', { project: 'dd-demo', workflow: 'build' }, 0],
  ['run_started', { workspace: null }, 0],
  ['stage_changed', { from: 'INIT', to: 'PROPOSE', reason: 'workspace ready at /ws (0 files)' }, 0],
  ['agent_call_queued', call(1, 'PROPOSE', 'proposer', 'anthropic', 'claude-sonnet-4-5', 'P1'), 0],
  [
    'agent_call_completed',
    {
      ...call(1, 'PROPOSE', 'proposer', 'anthropic', 'claude-sonnet-4-5', 'P1'),
      valid: true,
      input_tokens: 812,
      output_tokens: 441,
      cost_usd: 0.01,
      latency_ms: 1900,
      gist: 'P1: Track running peak; drawdown = (peak - x)/peak; return max',
    },
    2,
  ],
  ['proposal_recorded', { label: 'P1', claim: 'Track running peak', confidence: 0.86, revision_of: null }, 2],
  ['stage_changed', { from: 'PROPOSE', to: 'CRITIQUE', reason: 'P1 valid' }, 2],
  ['agent_call_queued', call(2, 'CRITIQUE', 'critic', 'xai', 'grok-4', 'C1'), 2],
  [
    'agent_call_completed',
    {
      ...call(2, 'CRITIQUE', 'critic', 'xai', 'grok-4', 'C1'),
      valid: true,
      input_tokens: 1104,
      output_tokens: 388,
      cost_usd: 0.01,
      latency_ms: 4100,
      gist: 'C1 ACCEPT (0 problems)',
    },
    6,
  ],
  ['stage_changed', { from: 'CRITIQUE', to: 'IMPLEMENT', reason: 'C1 ACCEPTs P1' }, 6],
  [
    'agent_call_completed',
    {
      ...call(3, 'IMPLEMENT', 'engineer', 'openai', 'gpt-5-codex', 'I1'),
      valid: true,
      input_tokens: 1633,
      output_tokens: 1210,
      cost_usd: 0.02,
      latency_ms: 6000,
      gist: 'I1 files: dd.py, test_dd.py',
    },
    12,
  ],
  ['stage_changed', { from: 'IMPLEMENT', to: 'TEST', reason: 'I1 files written (path-checked)' }, 12],
  ['tests_started', { implementation: 'I1', command: 'python -m pytest -q' }, 12],
  ['tests_completed', { label: 'T1', exit_code: 1, passed: 4, failed: 1, errors: 0, timed_out: false }, 13],
  ['stage_changed', { from: 'TEST', to: 'FIX', reason: 'T1 failed (exit 1): fix round 1 of 1' }, 13],
  ['budget_warning', { cap: 'max_calls', used: 4, limit: 5 }, 13],
  [
    'agent_call_completed',
    {
      ...call(4, 'FIX', 'engineer', 'openai', 'gpt-5-codex', 'I1f1'),
      valid: true,
      input_tokens: 2410,
      output_tokens: 980,
      cost_usd: 0.02,
      latency_ms: 5200,
      gist: 'I1f1 files: dd.py',
    },
    18,
  ],
  ['stage_changed', { from: 'FIX', to: 'TEST', reason: 'I1f1 files written (path-checked)' }, 18],
  ['tests_started', { implementation: 'I1f1', command: 'python -m pytest -q' }, 18],
  ['tests_completed', { label: 'T2', exit_code: 0, passed: 5, failed: 0, errors: 0, timed_out: false }, 19],
  ['stage_changed', { from: 'TEST', to: 'REVIEW', reason: 'T2 passed (exit 0)' }, 19],
  [
    'agent_call_completed',
    {
      ...call(5, 'REVIEW', 'validator', 'ollama', 'qwen3:30b-a3b', 'R1'),
      valid: true,
      input_tokens: 2044,
      output_tokens: 610,
      cost_usd: null,
      latency_ms: 21800,
      gist: 'R1 ACCEPT (3/3 checks satisfied)',
    },
    41,
  ],
  ['stage_changed', { from: 'REVIEW', to: 'SYNTHESIZE', reason: 'R1 says ACCEPT on I1f1' }, 41],
  [
    'agent_call_completed',
    {
      ...call(6, 'SYNTHESIZE', 'synthesizer', 'anthropic', 'claude-sonnet-4-5', 'S1'),
      valid: true,
      input_tokens: 3980,
      output_tokens: 720,
      cost_usd: 0.02,
      latency_ms: 3400,
      gist: 'S1 overall ACCEPT',
    },
    45,
  ],
  ['synthesis_recorded', { label: 'S1', verdict: 'ACCEPT', partial: false }, 45],
  ['stage_changed', { from: 'SYNTHESIZE', to: 'DONE', reason: 'S1 valid' }, 45],
  ['run_completed', { status: 'done', verdict: 'ACCEPT', confidence: 0.82 }, 49],
];

const T0 = Date.parse('2026-01-01T10:00:00.000Z');

function envelopes(list: Ev[]): RunEventEnvelope[] {
  return list.map(([type, payload, s], i) => ({
    type,
    run_id: DEMO_RUN,
    sequence: i + 1,
    payload,
    created_at: new Date(T0 + s * 1000).toISOString(),
  }));
}

export function demoEvents(): RunEventEnvelope[] {
  return envelopes(DEMO);
}

/** The same run, but ending another way: its first `upTo` events, then `ending`. */
export function demoEventsEndingWith(ending: [string, Record<string, unknown>][], upTo = 9): RunEventEnvelope[] {
  return envelopes([...DEMO.slice(0, upTo), ...ending.map(([t, p]): Ev => [t, p, 10])]);
}

/** The caps of the seed's header: 12 calls / 200k tok / $5.00 / 900s. */
export const DEMO_CAPS = { max_calls: 12, max_tokens: 200000, max_cost_usd: 5, max_seconds: 900, max_rounds: 3, max_fix_rounds: 1 };
