import type { RunEventEnvelope } from '@roundtable/contracts';
import { panelLines } from './panel-lines';
import { RunRenderer } from './run-renderer';
import { styleFor } from './terminal';

const plain = styleFor({ isTTY: false } as never, {});
let seq = 0;
const ev = (type: string, payload: Record<string, unknown>): RunEventEnvelope => ({ type, run_id: 'run_p', sequence: ++seq, payload, created_at: '2025-01-01T00:00:00.000Z' });

describe('panel lines of run --follow', () => {
  it('shows who was dispatched, score moves with their reasons, warnings and the appeal', () => {
    expect(panelLines(ev('judges_dispatched', { judges: ['vc', 'engineer', 'pm', 'customer', 'competitor'] }), plain)).toEqual([
      '[ROAST] judges dispatched in parallel: vc, engineer, pm, customer, competitor',
    ]);
    expect(panelLines(ev('revote_judge_completed', { judge: 'vc', score: 7, previous: 4, delta: 3, change_reason: 'D6\nmoved me', capped: true }), plain)).toEqual([
      '  vc 4 → 7 (+3) capped: D6 moved me',
    ]);
    expect(panelLines(ev('revote_judge_completed', { judge: 'pm', score: 6, previous: 6, delta: 0, change_reason: null }), plain)).toEqual(['  pm unchanged']);
    expect(panelLines(ev('panel_warning', { kind: 'herding', detail: '4 judges moved by +2 together' }), plain)).toEqual(['! panel herding: 4 judges moved by +2 together']);
    expect(
      panelLines(ev('appeal_completed', { judges: ['engineer', 'pm'], scores: { engineer: 8, pm: 7 }, previous: { engineer: 6, pm: 7 }, change_reasons: { engineer: 'E1 answers it' } }), plain),
    ).toEqual(['[APPEAL] done: engineer 6 → 8 (E1 answers it); pm 7 → 7']);
  });

  it('is null for events that are not the panel’s, and the renderer skips the build workspace line for a panel', () => {
    expect(panelLines(ev('proposal_recorded', { label: 'P1', claim: 'c', confidence: 0.5 }), plain)).toBeNull();
    const r = new RunRenderer(plain);
    r.render(ev('run_created', { project: 'panel-demo', workflow: 'panel' }));
    expect(r.render(ev('run_started', { workspace: null }))).toEqual([]);
    expect(r.render(ev('moderator_completed', {
      synthesis: { overall_recommendation: 'GO', confidence: 0.7, top_strengths: [], top_risks: [], top_problems: [], biggest_disagreement: 'vc vs pm', recommended_experiment: 'a pilot' },
    }))).toEqual(['[MODERATE] GO (confidence 0.70)', '  disagreement: vc vs pm', '  experiment: a pilot']);
  });
});
