import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { RunEventEnvelope } from '@roundtable/contracts';
import { foldRunEvents } from './fold-run-event';

/**
 * The caps in force at each point of a run's log (issue 22): run_created's, raised by a resume or an
 * appeal. A follower draws each part of the run against the caps of that part, not the run's caps now.
 */

const log = (name: string): RunEventEnvelope[] => JSON.parse(readFileSync(path.resolve(__dirname, '../fixtures', `${name}.events.json`), 'utf8'));

/** The caps the API now writes on run_created (the recorded log predates them): the demo with max_calls 4. */
const SUBMITTED = { max_rounds: 3, max_fix_rounds: 1, max_calls: 4, max_tokens: 200_000, max_seconds: 900 };

function withCreatedCaps(events: RunEventEnvelope[], caps: Record<string, number>): RunEventEnvelope[] {
  return events.map((e) => (e.type === 'run_created' ? ({ ...e, payload: { ...e.payload, caps } } as RunEventEnvelope) : e));
}

const upTo = (events: RunEventEnvelope[], type: string, nth = 0): RunEventEnvelope[] => {
  const at = events.filter((e) => e.type === type)[nth];
  if (!at) throw new Error(`no ${type} #${nth + 1} in the log`);
  return events.filter((e) => e.sequence <= at.sequence);
};

describe('run-view: the caps in force and the calls at each point of a resumed run (issue 22)', () => {
  const events = withCreatedCaps(log('budget-halt-resumed'), SUBMITTED);

  it('before the resume the run stands against the caps it was submitted with; after it, against the raised ones', () => {
    const halted = foldRunEvents(upTo(events, 'run_completed'));
    expect(halted.status).toBe('halted');
    expect(halted.caps).toEqual(SUBMITTED);
    expect(halted.usage.calls).toBe(5);

    const resumed = foldRunEvents(upTo(events, 'run_resumed'));
    expect(resumed.caps).toEqual({ ...SUBMITTED, max_calls: 20 });
    // The count goes on from the halt: the resume takes nothing away.
    expect(resumed.usage.calls).toBe(5);

    const done = foldRunEvents(events);
    expect(done.status).toBe('done');
    expect(done.caps).toEqual({ ...SUBMITTED, max_calls: 20 });
    expect(done.usage.calls).toBe(9);
  });

  it('a log written before run_created carried caps knows none, through the resume too', () => {
    const old = log('budget-halt-resumed');
    expect(foldRunEvents(upTo(old, 'run_created')).caps).toBeNull();
    expect(foldRunEvents(old).caps).toBeNull();
  });

  it("an appeal that names caps raises them; one that names none leaves them (the recorded panel's appeal)", () => {
    const panel = withCreatedCaps(log('panel-demo-appeal'), { max_calls: 30 });
    expect(foldRunEvents(panel).caps).toEqual({ max_calls: 30 });
    const raised = panel.map((e) => (e.type === 'appeal_started' ? ({ ...e, payload: { ...e.payload, caps: { max_calls: 40 } } } as RunEventEnvelope) : e));
    expect(foldRunEvents(upTo(raised, 'run_completed')).caps).toEqual({ max_calls: 30 });
    expect(foldRunEvents(raised).caps).toEqual({ max_calls: 40 });
  });
});
