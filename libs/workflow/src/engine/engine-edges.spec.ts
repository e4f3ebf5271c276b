import { retryDelay } from './retries';
import { unversioned, versioned } from './state-snapshot';
import { StepAccumulator } from './step-accumulator';

/** Engine edges the mutation run (issue 29) showed no spec pinned. */

class TestStep extends StepAccumulator<{ runId: string; stage: string; counters: Record<string, number>; config: unknown }, string, unknown, unknown> {
  constructor() {
    super({ runId: 'run1', stage: 'PROPOSE', counters: {}, config: {} });
  }

  protected outcome() {
    return { verdict: null, confidence: null };
  }
}

describe('a step is touched by anything it wrote', () => {
  it('untouched when empty; touched by a record, a command, a decision or an event alone', () => {
    expect(new TestStep().touched).toBe(false);
    const record = new TestStep();
    record.records.push({});
    const command = new TestStep();
    command.commands.push({});
    const decision = new TestStep();
    decision.go('CRITIQUE', 'why');
    const event = new TestStep();
    event.emit('run_started', {});
    expect([record, command, decision, event].map((s) => s.touched)).toEqual([true, true, true, true]);
  });
});

describe('the state snapshot against its row', () => {
  it('is taken at or below the row\'s event_seq, or with no version at all, and refused above it', () => {
    expect(unversioned('run1', versioned({ a: 1 }, 5), 5)).toEqual({ a: 1 });
    expect(unversioned('run1', versioned({ a: 1 }, 4), 5)).toEqual({ a: 1 });
    expect(unversioned('run1', { a: 1 }, 0)).toEqual({ a: 1 });
    expect(() => unversioned('run1', versioned({ a: 1 }, 6), 5)).toThrow(/reflects event 6 but the row's event_seq is 5/);
  });
});

describe('retryDelay and the provider\'s Retry-After', () => {
  const failed = (retryAfterMs: number | null) => ({ status: 'failed' as const, retryable: true, retry: 0, retryAfterMs });

  it('waits what the provider asked when it is a finite number of ms, else the engine\'s own delay', () => {
    expect(retryDelay(failed(1500), [3000])).toBe(1500);
    expect(retryDelay(failed(Number.POSITIVE_INFINITY), [3000])).toBe(3000);
    expect(retryDelay(failed(Number.NaN), [3000])).toBe(3000);
    expect(retryDelay(failed(null), [3000])).toBe(3000);
  });
});
