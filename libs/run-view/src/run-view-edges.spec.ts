import { emptyPanelView } from './empty-run-view';
import { envelope } from './event-samples.fixture';
import { foldRunEvents } from './fold-run-event';
import { callsPastCapNote, CLOSING_CALL_PAST_CAP } from './run-view-queries';
import { mayTrailStreamEnd } from './stream-end';

/** Edges the mutation run (issue 29) showed no spec pinned. */

/** A panel run whose judges were never answered (all still waiting), then `last`. */
const panelEndingWith = (last: ReturnType<typeof envelope>) => foldRunEvents([envelope('run_created', 1, { project: 'swapboard', workflow: 'panel' }), { ...last, sequence: 2 }]);

describe('judges still waiting when a panel run ends', () => {
  it('stay as they were when the run is done, and are marked stopped when it halts or is cancelled', () => {
    const done = panelEndingWith(envelope('run_completed', 2, { status: 'done', verdict: 'GO', confidence: 0.8 }));
    expect(done.panel!.judges.map((j) => j.state)).toEqual(Array(5).fill('waiting'));
    const halted = panelEndingWith(envelope('run_completed', 2, { status: 'halted', verdict: null, confidence: null }));
    expect(halted.panel!.judges.map((j) => j.state)).toEqual(Array(5).fill('stopped'));
    const cancelled = panelEndingWith(envelope('run_cancelled', 2, { reason: 'a person cancelled it' }));
    expect(cancelled.panel!.judges.map((j) => j.state)).toEqual(Array(5).fill('stopped'));
  });

  it('start not weak, with no scores', () => {
    expect(emptyPanelView().judges.map((j) => [j.weak, j.score])).toEqual(Array(5).fill([false, null]));
  });
});

describe('callsPastCapNote', () => {
  it('speaks only for a count above its cap', () => {
    expect(callsPastCapNote(4, 3)).toBe(CLOSING_CALL_PAST_CAP);
    expect(callsPastCapNote(3, 3)).toBeNull();
    expect(callsPastCapNote(2, 3)).toBeNull();
    expect(callsPastCapNote(4, null)).toBeNull();
    expect(callsPastCapNote(null, 3)).toBeNull();
    expect(callsPastCapNote(undefined, undefined)).toBeNull();
  });
});

describe('mayTrailStreamEnd', () => {
  it('holds for the trailing warnings only', () => {
    expect(['panel_warning', 'budget_warning'].map(mayTrailStreamEnd)).toEqual([true, true]);
    expect(['run_completed', 'stage_changed', '', null, undefined].map(mayTrailStreamEnd)).toEqual([false, false, false, false, false]);
  });
});
