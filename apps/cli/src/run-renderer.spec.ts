import { DEMO_CAPS, demoEvents, demoEventsEndingWith } from './demo-events.fixture';
import { formatCallLine, RunRenderer } from './run-renderer';
import { styleFor } from './terminal';

const plain = styleFor({ write: () => true, isTTY: false }, {});
const colour = styleFor({ write: () => true, isTTY: true }, {});

function renderAll(renderer: RunRenderer, events = demoEvents()): string[] {
  return events.flatMap((e) => renderer.render(e));
}

describe('RunRenderer', () => {
  it('renders the seed §9 session: one line per agent call with its gist, stages, tests, warnings and the closing line', () => {
    const renderer = new RunRenderer(plain, { caps: DEMO_CAPS, autonomy: 2 });
    expect(renderAll(renderer)).toEqual([
      '[run run_9f2c1a] project=dd-demo autonomy=2 budget: 12 calls / 200k tok / $5.00 / 900s',
      '[INIT] empty workspace (greenfield)',
      '-> PROPOSE: workspace ready at /ws (0 files)',
      '[PROPOSE] proposer anthropic/claude-sonnet-4-5 1.9s in=812 out=441 $0.01',
      '  P1: Track running peak; drawdown = (peak - x)/peak; return max',
      '-> CRITIQUE: P1 valid',
      '[CRITIQUE] critic xai/grok-4 4.1s in=1104 out=388 $0.01',
      '  C1 ACCEPT (0 problems)',
      '-> IMPLEMENT: C1 ACCEPTs P1',
      '[IMPLEMENT] engineer openai/gpt-5-codex 6.0s in=1633 out=1210 $0.02',
      '  I1 files: dd.py, test_dd.py',
      '-> TEST: I1 files written (path-checked)',
      '[TEST] T1 python -m pytest -q exit=1 passed=4 failed=1',
      '-> FIX: T1 failed (exit 1): fix round 1 of 1',
      '! budget: max_calls at 4 of 5 (80%)',
      '[FIX] engineer openai/gpt-5-codex 5.2s in=2410 out=980 $0.02',
      '  I1f1 files: dd.py',
      '-> TEST: I1f1 files written (path-checked)',
      '[TEST] T2 python -m pytest -q exit=0 passed=5 failed=0',
      '-> REVIEW: T2 passed (exit 0)',
      '[REVIEW] validator ollama/qwen3:30b-a3b 21.8s in=2044 out=610 cost=n/a',
      '  R1 ACCEPT (3/3 checks satisfied)',
      '-> SYNTHESIZE: R1 says ACCEPT on I1f1',
      '[SYNTHESIZE] synthesizer anthropic/claude-sonnet-4-5 3.4s in=3980 out=720 $0.02',
      '  S1 overall ACCEPT',
      '[DONE] 6 calls, 16,332 tokens, $0.08, 49s. verdict: ACCEPT (confidence 0.82)',
    ]);
    expect(renderer.status).toBe('done');
    expect(renderer.verdict).toBe('ACCEPT');
  });

  it('folds through libs/run-view: a replayed prefix (a reconnect, a resumed follow) prints nothing twice', () => {
    const events = demoEvents();
    const once = renderAll(new RunRenderer(plain, { caps: DEMO_CAPS, autonomy: 2 }), events);
    const renderer = new RunRenderer(plain, { caps: DEMO_CAPS, autonomy: 2 });
    const half = Math.floor(events.length / 2);
    const replayed = [...renderAll(renderer, events.slice(0, half)), ...renderAll(renderer, events)];
    expect(replayed).toEqual(once);
    expect(renderer.progress()).toContain('calls 6/12');
  });

  it('quotes the API usage in the closing line when it was fetched', () => {
    const renderer = new RunRenderer(plain);
    const events = demoEvents();
    events.slice(0, -1).forEach((e) => renderer.render(e));
    renderer.finalUsage = { calls: 8, tokens: 20461, cost_usd: 0.1, seconds: 49.4 };
    expect(renderer.render(events.at(-1)!)).toEqual(['[DONE] 8 calls, 20,461 tokens, $0.10, 49s. verdict: ACCEPT (confidence 0.82)']);
  });

  it('keeps a budget tally from the events for the progress line, with what is in flight', () => {
    const renderer = new RunRenderer(plain, { caps: DEMO_CAPS });
    const events = demoEvents();
    expect(renderer.progress()).toBe('  budget: calls 0/12, tokens 0/200,000, cost n/a (cap $5.00)');
    events.slice(0, 4).forEach((e) => renderer.render(e)); // … agent_call_queued P1
    expect(renderer.progress({ inFlight: true })).toBe(
      '  budget: calls 0/12, tokens 0/200,000, cost n/a (cap $5.00), time 0s/900s · waiting on proposer anthropic/claude-sonnet-4-5',
    );
    events.slice(4, 9).forEach((e) => renderer.render(e)); // … C1 completed at 6 s
    expect(renderer.progress({ inFlight: true })).toBe('  budget: calls 2/12, tokens 2,745/200,000, cost $0.02/$5.00, time 6s/900s');
  });

  it('without caps the progress line shows bare usage', () => {
    const renderer = new RunRenderer(plain);
    demoEvents()
      .slice(0, 5)
      .forEach((e) => renderer.render(e));
    expect(renderer.progress()).toBe('  budget: calls 1, tokens 1,253, cost $0.01, time 2s');
  });

  it('a halt prints its reason once (not the stage change to HALTED too) and the run ends halted with a partial verdict', () => {
    const renderer = new RunRenderer(plain);
    const lines = renderAll(
      renderer,
      demoEventsEndingWith([
        ['stage_changed', { from: 'CRITIQUE', to: 'HALTED', reason: 'budget: max_calls reached (2 of 2)' }],
        ['run_halted', { reason: 'budget: max_calls reached (2 of 2)' }],
        ['stage_changed', { from: 'HALTED', to: 'SYNTHESIZE', reason: 'partial synthesis after the halt' }],
        ['synthesis_recorded', { label: 'S1', verdict: null, partial: true }],
        ['run_completed', { status: 'halted', verdict: null, confidence: null }],
      ]),
    );
    expect(lines.slice(-4)).toEqual([
      '  C1 ACCEPT (0 problems)',
      '[HALTED] budget: max_calls reached (2 of 2)',
      '-> SYNTHESIZE: partial synthesis after the halt',
      '[HALTED] 2 calls, 2,745 tokens, $0.02, 10s. verdict: none (fact-only report)',
    ]);
    expect(renderer.status).toBe('halted');
  });

  it('after an over-budget halt a calls count past its cap says why: the closing call, allowed past the cap (issue 22)', () => {
    const renderer = new RunRenderer(plain, { caps: { ...DEMO_CAPS, max_calls: 1 } });
    const lines = renderAll(
      renderer,
      demoEventsEndingWith([
        ['stage_changed', { from: 'CRITIQUE', to: 'HALTED', reason: 'budget: max_calls reached (1 of 1)' }],
        ['run_halted', { reason: 'budget: max_calls reached (1 of 1)' }],
        ['run_completed', { status: 'halted', verdict: null, confidence: null }],
      ]),
    );
    expect(lines[lines.length - 1]).toMatch(/^\[HALTED\] 2 calls \(the closing call, allowed past the cap\), /);
    expect(renderer.progress()).toContain('calls 2/1 (the closing call, allowed past the cap)');
  });

  it('a calls count within its cap has no note', () => {
    const renderer = new RunRenderer(plain, { caps: DEMO_CAPS });
    renderAll(renderer);
    expect(renderer.progress()).not.toContain('past the cap');
  });

  it('failed and invalid calls, rejected files, open questions, cancel and failure each get a line', () => {
    const renderer = new RunRenderer(plain);
    const lines = renderAll(
      renderer,
      demoEventsEndingWith(
        [
          [
            'agent_call_completed',
            {
              call_id: 'x-c2',
              stage: 'CRITIQUE',
              role: 'critic',
              provider: 'xai',
              model: 'grok-4',
              attempt: 1,
              label: 'C1',
              valid: false,
              input_tokens: 10,
              output_tokens: 5,
              cost_usd: null,
              latency_ms: 300,
              gist: 'problems: expected array,\n received string',
            },
          ],
          [
            'agent_call_failed',
            { call_id: 'x-c3', stage: 'CRITIQUE', role: 'critic', provider: 'xai', model: 'grok-4', attempt: 2, label: 'C1', error: 'HTTP 529 overloaded', error_code: 'PROVIDER_ERROR' },
          ],
          ['files_rejected', { label: 'I1', error: 'path ../x escapes the workspace' }],
          ['files_requested', { role: 'critic', label: 'C1', call_id: 'x-c4', paths: ['calc.py', 'nope.py'], round: 1 }],
          [
            'files_read',
            {
              label: 'C1',
              files: [
                { path: 'calc.py', bytes: 120, truncated: false, error: null },
                { path: 'nope.py', bytes: null, truncated: false, error: 'no such file in the workspace' },
              ],
            },
          ],
          [
            'engineer_tools_ran',
            { label: 'I1', turn: 2, tools: [{ name: 'write_file', target: 'dd.py', is_error: false }, { name: 'read_file', target: '../x', is_error: true }, { name: 'run_tests', target: null, is_error: false }] },
          ],
          ['engineer_tools_ran', { label: 'I1', turn: 3, tools: [] }],
          ['open_question_raised', { role: 'critic', question: 'Is equity ever negative?' }],
          ['run_cancelled', { reason: 'cancelled by a user' }],
        ],
        7,
      ),
    );
    expect(lines.slice(-12)).toEqual([
      '-> CRITIQUE: P1 valid',
      '[CRITIQUE] critic xai/grok-4 0.3s in=10 out=5 cost=n/a INVALID',
      '  problems: expected array, received string',
      '[CRITIQUE] critic xai/grok-4 FAILED (PROVIDER_ERROR) attempt=2',
      '  HTTP 529 overloaded',
      '[CRITIQUE] I1 files rejected: path ../x escapes the workspace',
      '[CRITIQUE] C1 critic asks to read calc.py, nope.py (request 1)',
      '[CRITIQUE] C1 read 1 file(s), 1 not readable',
      '[CRITIQUE] I1 turn 2: write_file dd.py, read_file ../x (refused), run_tests',
      '[CRITIQUE] I1 turn 3: no tool called',
      '? open question from critic: Is equity ever negative?',
      '[CANCELLED] cancelled by a user. 3 calls, 1,268 tokens, $0.01, 10s.',
    ]);
    expect(renderer.status).toBe('cancelled');

    const failed = new RunRenderer(plain);
    const failLines = renderAll(failed, demoEventsEndingWith([['run_failed', { reason: 'workspace could not be prepared: ENOSPC' }]], 2));
    expect(failLines.slice(-2)).toEqual(['[FAILED] workspace could not be prepared: ENOSPC', '0 calls, 0 tokens, cost n/a, 10s.']);
    expect(failed.status).toBe('failed');
  });

  it('records that only repeat a gist, and unknown event types, print nothing', () => {
    const renderer = new RunRenderer(plain);
    const [created] = demoEvents();
    expect(renderer.render({ ...created, type: 'proposal_recorded', payload: { label: 'P1', claim: 'x', confidence: 1 } })).toEqual([]);
    expect(renderer.render({ ...created, type: 'debate_token_delta', payload: { text: 'hi' } })).toEqual([]);
  });

  it('paints on a terminal: the stage tag, the verdict, a failed test; plain text is unchanged underneath', () => {
    const renderer = new RunRenderer(colour, { caps: DEMO_CAPS });
    const lines = renderAll(renderer);
    expect(lines).toContain('\x1b[36m[TEST]\x1b[39m T1 python -m pytest -q \x1b[31mexit=1\x1b[39m passed=4 failed=1');
    expect(lines.at(-1)).toContain('\x1b[32mACCEPT\x1b[39m');
    const stripped = lines.map((l) => l.replace(/\x1b\[[0-9;]*m/g, ''));
    expect(stripped).toEqual(renderAll(new RunRenderer(plain, { caps: DEMO_CAPS })));
  });

  it('formatCallLine marks a repair attempt and leaves out an unknown latency', () => {
    const line = formatCallLine(
      {
        call_id: 'r-c9',
        stage: 'PROPOSE',
        role: 'proposer',
        provider: 'replay',
        model: 'm',
        attempt: 2,
        label: 'P1',
        valid: true,
        input_tokens: null,
        output_tokens: 7,
        cost_usd: 0.0004,
        latency_ms: null,
        gist: null,
      },
      plain,
    );
    expect(line).toBe('[PROPOSE] proposer replay/m in=? out=7 $0.0004 attempt=2');
  });
});

describe('RunRenderer while a debate turn streams', () => {
  const at = (type: string, sequence: number, payload: Record<string, unknown>) => ({ type, run_id: 'r1', sequence, payload, created_at: `2026-12-03T10:00:0${sequence}.000Z` });

  it('shows the turn growing on the progress line, then the budget again once the whole turn is published', () => {
    const renderer = new RunRenderer(plain, {});
    renderer.render(at('run_created', 1, { project: 'p', workflow: 'panel' }));
    expect(renderer.render(at('debate_token_delta', 1, { speaker: 'vc', round: 1, delta: 'The moat\nis' }))).toEqual([]);
    expect(renderer.progress({ inFlight: true })).toBe('  vc (round 1): …The moat is');
    renderer.render(at('debate_token_delta', 1, { speaker: 'vc', round: 1, delta: ' thin, and the buyer is not the user at all: the trust is.' }));
    expect(renderer.progress({ inFlight: true })).toBe('  vc (round 1): …' + 'The moat is thin, and the buyer is not the user at all: the trust is.'.slice(-60));
    renderer.render(at('debate_message_published', 2, { speaker: 'vc', round: 1, message: 'The moat is thin.', label: 'D1' }));
    expect(renderer.progress({ inFlight: true })).toMatch(/^ {2}budget: /);
  });
});
