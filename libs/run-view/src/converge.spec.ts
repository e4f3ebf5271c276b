import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { RunEventEnvelope } from '@roundtable/contracts';
import { foldRunEvents } from './fold-run-event';

const FIXTURES = path.resolve(__dirname, '../fixtures');
/** The recorded logs this spec must see (fixtures/README.md says how they are recorded). */
const REQUIRED = ['dd-demo', 'panel-demo-appeal', 'budget-halt-resumed', 'cancelled'];

const logs = readdirSync(FIXTURES)
  .filter((f) => f.endsWith('.events.json'))
  .map((f) => ({ name: f.replace(/\.events\.json$/, ''), events: JSON.parse(readFileSync(path.join(FIXTURES, f), 'utf8')) as RunEventEnvelope[] }));

/**
 * Live and replay converge: for the recorded event log of each demo run, folding the whole log
 * equals folding it split at every point with the prefix replayed twice (what a reload, a
 * reconnect with Last-Event-ID and a second tab do) — and so does a log with every envelope
 * delivered twice, or with earlier envelopes arriving late.
 */
describe('live and replay converge on the recorded demo logs', () => {
  it('has every required log, each a gap-free sequence of one run', () => {
    expect(logs.map((l) => l.name).sort()).toEqual(expect.arrayContaining(REQUIRED));
    for (const { name, events } of logs) {
      expect({ name, sequences: events.map((e) => e.sequence) }).toEqual({ name, sequences: events.map((_, i) => i + 1) });
      expect(new Set(events.map((e) => e.run_id)).size).toBe(1);
    }
  });

  describe.each(logs.map((l) => [l.name, l.events] as const))('%s', (_name, events) => {
    const whole = foldRunEvents(events);

    it('folds to a view that has ended, with the log’s last sequence', () => {
      expect(whole.lastSequence).toBe(events.length);
      expect(['done', 'halted', 'cancelled', 'failed', 'needs_input']).toContain(whole.status);
    });

    it('equals the whole fold when split at every point with the prefix replayed twice', () => {
      for (let k = 0; k <= events.length; k++) {
        const prefix = events.slice(0, k);
        const live = foldRunEvents(prefix);
        const afterReload = foldRunEvents([...prefix, ...events], live);
        expect({ k, view: afterReload }).toEqual({ k, view: whole });
      }
    });

    it('ignores every envelope delivered twice and any that arrives after a later one', () => {
      const doubled = events.flatMap((e) => [e, e]);
      expect(foldRunEvents(doubled)).toEqual(whole);
      const withLateOnes = events.flatMap((e, i) => (i >= 3 ? [e, events[i - 3]] : [e]));
      expect(foldRunEvents(withLateOnes)).toEqual(whole);
    });

    it('is plain JSON: a view survives a round trip through JSON (what a tab or a test may store)', () => {
      expect(JSON.parse(JSON.stringify(whole))).toEqual(whole);
    });
  });
});

/** What the folded demo logs show: the figures a person checks on the run page and in the terminal. */
describe('the folded demo logs', () => {
  const fold = (name: string) => foldRunEvents(logs.find((l) => l.name === name)!.events);

  it('dd-demo: done with ACCEPT, eight calls, two proposals and critiques, locked criteria, two test runs', () => {
    const v = fold('dd-demo');
    expect(v).toMatchObject({ workflow: 'build', status: 'done', verdict: 'ACCEPT', panel: null });
    expect(v.calls).toHaveLength(8);
    expect(v.calls.every((c) => c.state === 'completed')).toBe(true);
    expect(v.usage.calls).toBe(8);
    expect(v.build.proposals).toHaveLength(2);
    expect(v.build.critiques).toHaveLength(2);
    expect(v.build.criteria?.length).toBeGreaterThan(0);
    expect(v.build.tests.map((t) => t.result !== null)).toEqual([true, true]);
    expect(v.build.synthesis).not.toBeNull();
  });

  it('panel demo with its appeal: five judges in speaker order, fifteen debate turns, five re-vote deltas, the moderator, the appeal', () => {
    const v = fold('panel-demo-appeal');
    expect(v).toMatchObject({ workflow: 'panel', status: 'done' });
    const p = v.panel!;
    expect(p.judges.map((j) => [j.judge, j.state])).toEqual([
      ['vc', 'completed'],
      ['engineer', 'completed'],
      ['pm', 'completed'],
      ['customer', 'completed'],
      ['competitor', 'completed'],
    ]);
    expect(p.debate).toHaveLength(15);
    expect(p.debate.every((t) => !t.streaming)).toBe(true);
    expect(p.judges.every((j) => j.revote !== null && j.revote.delta === j.revote.score - j.revote.previous)).toBe(true);
    expect(p.moderator).not.toBeNull();
    expect(p.completion).not.toBeNull();
    expect(p.appeals).toHaveLength(1);
    expect(p.appeals[0].after).not.toBeNull();
  });

  it('a budget halt resumed: one halt, one resume, then done', () => {
    const v = fold('budget-halt-resumed');
    expect(v.halts).toHaveLength(1);
    expect(v.resumes).toHaveLength(1);
    expect(v.status).toBe('done');
  });

  it('a cancel mid-call: cancelled, with the call still in flight left queued', () => {
    const v = fold('cancelled');
    expect(v.status).toBe('cancelled');
    expect(v.calls.filter((c) => c.state === 'queued')).toHaveLength(1);
  });
});
