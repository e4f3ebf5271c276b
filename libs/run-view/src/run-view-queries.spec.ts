import { emptyRunView } from './empty-run-view';
import { envelope } from './event-samples.fixture';
import { foldRunEvents } from './fold-run-event';
import type { CallView, RunView } from './run-view';
import { callDurationMs, callsPastCapNote, elapsedSeconds, hasEnded, pendingCalls, testRunState } from './run-view-queries';

const facts = (callId: string) => ({ call_id: callId, stage: 'CRITIQUE', role: 'critic', provider: 'openai', model: 'gpt', attempt: 1 });
const at = (seconds: number) => new Date(Date.UTC(2026, 11, 1, 12, 0, seconds)).toISOString();
const call = (c: Partial<CallView>): CallView => ({ ...foldRunEvents([envelope('agent_call_queued', 1)]).calls[0], ...c });

describe('what the progress line and the run header ask of a view', () => {
  it('pendingCalls: the calls still queued, in order', () => {
    const v = foldRunEvents([
      envelope('agent_call_queued', 1, facts('a')),
      envelope('agent_call_queued', 2, facts('b')),
      envelope('agent_call_queued', 3, facts('c')),
      envelope('agent_call_completed', 4, { ...facts('b'), valid: true }),
      envelope('agent_call_failed', 5, { ...facts('c'), error: 'x' }),
    ]);
    expect(pendingCalls(v).map((c) => c.callId)).toEqual(['a']);
    expect(pendingCalls(emptyRunView())).toEqual([]);
  });

  it("elapsedSeconds: from the run's start to its latest event, by the events' clock", () => {
    const v = foldRunEvents([envelope('run_created', 1, undefined, 1), envelope('run_started', 2, undefined, 3), envelope('stage_changed', 3, undefined, 13)]);
    expect(elapsedSeconds(v)).toBe(10);
    // A follow from ?after= starts at the first envelope it saw.
    const resumed = foldRunEvents([envelope('stage_changed', 7, undefined, 20), envelope('proposal_recorded', 8, undefined, 25)]);
    expect(resumed.startedAt).toBe(at(20));
    expect(elapsedSeconds(resumed)).toBe(5);
  });

  it('elapsedSeconds: unknown before any event, when a time is missing or unreadable; never negative', () => {
    const base: RunView = { ...emptyRunView(), startedAt: at(10), lastEventAt: at(12) };
    expect(elapsedSeconds(base)).toBe(2);
    expect(elapsedSeconds(emptyRunView())).toBeNull();
    expect(elapsedSeconds({ ...base, startedAt: null })).toBeNull();
    expect(elapsedSeconds({ ...base, lastEventAt: null })).toBeNull();
    expect(elapsedSeconds({ ...base, lastEventAt: 'not a time' })).toBeNull();
    expect(elapsedSeconds({ ...base, lastEventAt: at(5) })).toBe(0);
  });

  it('hasEnded: once the run stopped (done, halted, needs_input, cancelled, failed), not while it runs', () => {
    const status = (s: RunView['status']) => hasEnded({ ...emptyRunView(), status: s });
    expect((['unknown', 'queued', 'running'] as const).map(status)).toEqual([false, false, false]);
    expect((['done', 'halted', 'needs_input', 'cancelled', 'failed'] as const).map(status)).toEqual([true, true, true, true, true]);
    expect(hasEnded(foldRunEvents([envelope('run_started', 1), envelope('run_failed', 2)]))).toBe(true);
  });

  it("callDurationMs: the provider's latency when measured, else queued to finished, else unknown", () => {
    expect(callDurationMs(call({ latencyMs: 1200, finishedAt: at(30) }))).toBe(1200);
    expect(callDurationMs(call({ latencyMs: 0, finishedAt: at(30) }))).toBe(0);
    expect(callDurationMs(call({ queuedAt: at(1), finishedAt: at(4) }))).toBe(3000);
    expect(callDurationMs(call({ queuedAt: at(1), finishedAt: null }))).toBeNull();
    expect(callDurationMs(call({ queuedAt: 'never', finishedAt: at(4) }))).toBeNull();
    const folded = foldRunEvents([envelope('agent_call_queued', 1, undefined, 2), envelope('agent_call_failed', 2, { ...facts('c1'), error: 'x' }, 9)]);
    expect(callDurationMs(folded.calls[0])).toBe(7000);
  });
});

describe('testRunState (issue 22: a test run cancelled mid-run showed running… forever)', () => {
  const started = [envelope('run_created', 1), envelope('run_started', 2), envelope('tests_started', 3)];

  it('is unfinished, not running, once the run ended before the test run completed', () => {
    const v = foldRunEvents([...started, envelope('run_cancelled', 4)]);
    expect(v.build?.tests).toHaveLength(1);
    expect(testRunState(v, v.build!.tests[0])).toBe('unfinished');
  });

  it('is running while the run runs, and finished once tests_completed came', () => {
    const running = foldRunEvents(started);
    expect(testRunState(running, running.build!.tests[0])).toBe('running');
    const done = foldRunEvents([...started, envelope('tests_completed', 4), envelope('run_cancelled', 5)]);
    expect(testRunState(done, done.build!.tests[0])).toBe('finished');
  });
});

describe('callsPastCapNote (issue 22: "4 of 3" with no word on why)', () => {
  it('says the closing call is allowed past the cap only when the count is above it', () => {
    expect(callsPastCapNote(4, 3)).toBe('the closing call, allowed past the cap');
    expect(callsPastCapNote(3, 3)).toBeNull();
    expect(callsPastCapNote(4, null)).toBeNull();
    expect(callsPastCapNote(undefined, 3)).toBeNull();
  });
});
