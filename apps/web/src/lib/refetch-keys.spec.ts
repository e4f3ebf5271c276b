import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { RunEventEnvelope } from '@roundtable/contracts';
import { emptyRunView, foldRunEvent, type RunView } from '@roundtable/run-view';
import { diffKey, endKey, recordsKey } from './refetch-keys';

const fixture = (name: string): RunEventEnvelope[] =>
  JSON.parse(readFileSync(path.join(__dirname, '../../../../libs/run-view/fixtures', name), 'utf8')) as RunEventEnvelope[];

/** Folds the log and lists the types of the events after which the records key changed. */
function keyChanges(log: RunEventEnvelope[], key: (v: RunView) => string | null): string[] {
  let view = emptyRunView();
  let last = key(view);
  const changed: string[] = [];
  for (const e of log) {
    view = foldRunEvent(view, e);
    const k = key(view);
    if (k !== last) changed.push(e.type);
    last = k;
  }
  return changed;
}

describe('recordsKey', () => {
  it('changes on each record a build announces, and on nothing else but status', () => {
    const changed = new Set(keyChanges(fixture('dd-demo.events.json'), recordsKey));
    for (const t of ['proposal_recorded', 'critique_recorded', 'criteria_locked', 'implementation_recorded', 'tests_completed', 'review_recorded', 'synthesis_recorded']) {
      expect(changed).toContain(t);
    }
    for (const t of ['agent_call_queued', 'agent_call_completed', 'tests_started']) expect(changed).not.toContain(t);
  });

  it('changes on the panel verdicts, published turns, re-votes, the moderator and the appeal', () => {
    const changed = new Set(keyChanges(fixture('panel-demo-appeal.events.json'), recordsKey));
    for (const t of ['judge_verdict_completed', 'debate_message_published', 'revote_judge_completed', 'moderator_completed', 'appeal_started', 'appeal_completed']) {
      expect(changed).toContain(t);
    }
  });

  it('does not change while a debate turn streams, and changes when it is published', () => {
    const log = fixture('panel-demo-appeal.events.json');
    const cut = log.findIndex((e) => e.type === 'debate_message_published');
    const before = log.slice(0, cut).reduce(foldRunEvent, emptyRunView());
    const at = (type: string, sequence: number, payload: Record<string, unknown>): RunEventEnvelope => ({ type, run_id: before.runId as string, sequence, payload, created_at: log[cut].created_at });
    const streaming = foldRunEvent(before, at('debate_token_delta', before.lastSequence + 1, { speaker: 'vc', round: 1, delta: 'V5 is' }));
    expect(streaming.panel?.debate.at(-1)?.streaming).toBe(true);
    expect(recordsKey(streaming)).toBe(recordsKey(before));
    const published = foldRunEvent(streaming, { ...log[cut], sequence: streaming.lastSequence + 1 });
    expect(recordsKey(published)).not.toBe(recordsKey(streaming));
  });

  it('is the same after a replay of what was folded (a reconnect asks for nothing)', () => {
    const log = fixture('dd-demo.events.json');
    const once = log.reduce(foldRunEvent, emptyRunView());
    const twice = log.reduce(foldRunEvent, once);
    expect(recordsKey(twice)).toBe(recordsKey(once));
  });
});

describe('endKey', () => {
  it('is null while the run runs, set at its end, and new when a resumed run ends again', () => {
    const log = fixture('budget-halt-resumed.events.json');
    const keys = new Set<string>();
    let view = emptyRunView();
    for (const e of log) {
      view = foldRunEvent(view, e);
      const k = endKey(view);
      if (k !== null) keys.add(k);
    }
    expect(endKey(foldRunEvent(emptyRunView(), log[0]))).toBeNull();
    expect(keys.size).toBeGreaterThanOrEqual(2);
  });
});

describe('diffKey', () => {
  it('is null for a run that ended before any implementation: there is no run branch to diff (GET /diff would 404)', () => {
    const cancelled = fixture('cancelled.events.json').reduce(foldRunEvent, emptyRunView());
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.build.implementations).toEqual([]);
    expect(endKey(cancelled)).not.toBeNull();
    expect(diffKey(cancelled)).toBeNull();
  });

  it('is null while the run runs, even after an implementation, and set once a run with one ends', () => {
    const log = fixture('dd-demo.events.json');
    const firstImpl = log.findIndex((e) => e.type === 'implementation_recorded');
    const running = log.slice(0, firstImpl + 1).reduce(foldRunEvent, emptyRunView());
    expect(running.build.implementations).toHaveLength(1);
    expect(diffKey(running)).toBeNull();
    const done = log.reduce(foldRunEvent, emptyRunView());
    expect(diffKey(done)).not.toBeNull();
  });

  it('is new when a resumed run with an implementation ends again (the diff is asked again)', () => {
    const log = fixture('dd-demo.events.json');
    const done = log.reduce(foldRunEvent, emptyRunView());
    const last = log[log.length - 1];
    const resumed = foldRunEvent(done, { ...last, type: 'run_resumed', sequence: done.lastSequence + 1, payload: { at: 'REVIEW', rerun: false, caps: {} } });
    expect(diffKey(resumed)).toBeNull();
    const again = foldRunEvent(resumed, { ...last, sequence: resumed.lastSequence + 1 });
    expect(diffKey(again)).not.toBeNull();
    expect(diffKey(again)).not.toBe(diffKey(done));
  });
});
