import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { RunEventEnvelope } from '@roundtable/contracts';
import { emptyRunView, foldRunEvent, type RunView } from '@roundtable/run-view';
import { endKey, recordsKey } from './refetch-keys';

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
