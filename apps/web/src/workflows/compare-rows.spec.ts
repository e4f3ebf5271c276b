import type { BuildRecords, PanelRecords, RunDetail } from '../lib/api-types';
import { buildCompareRows } from './build-compare';
import { panelCompareRows } from './panel-compare';

const rowsOf = (rows: { label: string; value: string }[]) => Object.fromEntries(rows.map((r) => [r.label, r.value]));

const buildRecords = {
  workflow: 'build',
  acceptance_criteria: [{ id: 'AC1' }, { id: 'AC2' }],
  proposals: [
    { label: 'P1', status: 'superseded' },
    { label: 'P2', status: 'accepted' },
  ],
  critiques: [
    { label: 'C1', verdict: 'REVISE', confidence: 0.6 },
    { label: 'C2', verdict: 'ACCEPT', confidence: 0.85 },
  ],
  implementations: [
    { label: 'I1', commit: { diffstat: [{ path: 'a.ts', added: 3, deleted: 1 }] } },
    { label: 'I1f1', commit: { diffstat: [{ path: 'a.ts', added: 5, deleted: 1 }, { path: 'b.png', added: null, deleted: null }, { path: 'c.ts', added: 2, deleted: 4 }] } },
    { label: 'I1f2', commit: null },
  ],
  test_runs: [
    { label: 'T1', passed: 1, failed: 2, errors: 0, timed_out: false },
    { label: 'T2', passed: 3, failed: 0, errors: 1, timed_out: true },
  ],
  reviews: [{ label: 'R1', verdict: 'ACCEPT', confidence: 0.9 }],
  synthesis: { label: 'S1', overall_verdict: 'ACCEPT', confidence: 0.8, partial: false },
  disagreements: [],
  open_questions: [],
} as unknown as BuildRecords;

describe("a build's compare rows", () => {
  it('say its rounds, proposals, the last critique, tests and review, the synthesis and the files it changed', () => {
    expect(rowsOf(buildCompareRows({ round: 2, fix_round: 1 }, buildRecords))).toEqual({
      Rounds: '2',
      'Fix rounds': '1',
      Proposals: '2 (P2 accepted)',
      'Acceptance criteria': '2',
      'Last critique': 'ACCEPT (0.85)',
      'Last tests': '3 passed, 0 failed, 1 errors, timed out',
      'Last review': 'ACCEPT (0.90)',
      Synthesis: 'ACCEPT (0.80)',
      // The last implementation with a commit; a binary file counts as a file, not as lines.
      'Files changed': '3 (+7 −5)',
    });
  });

  it('say only the rounds without records, and — for what has not happened yet', () => {
    expect(buildCompareRows({ round: 0, fix_round: 0 }, null)).toEqual([
      { label: 'Rounds', value: '0' },
      { label: 'Fix rounds', value: '0' },
    ]);
    const early = { ...buildRecords, acceptance_criteria: null, critiques: [], test_runs: [], reviews: [], synthesis: null, implementations: [] } as BuildRecords;
    const rows = rowsOf(buildCompareRows({ round: 1, fix_round: 0 }, early));
    expect(rows).toMatchObject({ 'Acceptance criteria': '—', 'Last critique': '—', 'Last tests': '—', 'Last review': '—', Synthesis: '—' });
    expect(rows['Files changed']).toBeUndefined();
  });

  it('call a synthesis without a model fact-only, and say when it was partial', () => {
    const factOnly = { ...buildRecords, synthesis: { label: 'S1', overall_verdict: null, confidence: null, partial: true } } as BuildRecords;
    expect(rowsOf(buildCompareRows({ round: 1, fix_round: 0 }, factOnly)).Synthesis).toBe('fact-only, partial');
  });
});

const panelRun = {
  panel: {
    recommendation: 'ITERATE',
    scores: { vc: 7, engineer: 4, pm: 6, customer: 8, competitor: 5 },
    revote_baseline: { vc: 5, engineer: 4, pm: 6, customer: 8, competitor: 3 },
    debate_messages: 10,
    max_debate_rounds: 2,
    quality: 'ok',
    low_confidence: false,
    appeal: null,
  },
} as unknown as Pick<RunDetail, 'panel'>;

const panelRecords = {
  workflow: 'panel',
  judges: ['vc', 'engineer', 'pm', 'customer', 'competitor'].map((judge) => ({ judge })),
  revote: {
    baseline: {},
    rescores: [
      { judge: 'vc', changed: true, capped: false },
      { judge: 'engineer', changed: false, capped: false },
      { judge: 'competitor', changed: true, capped: true },
    ],
  },
} as unknown as PanelRecords;

describe("a panel's compare rows", () => {
  it("say the recommendation, each judge's score and where the re-vote moved it, the mean, the re-vote, the debate and the quality", () => {
    const rows = panelCompareRows(panelRun, panelRecords);
    expect(rows.map((r) => r.label)).toEqual([
      'Recommendation',
      'Score: vc',
      'Score: engineer',
      'Score: pm',
      'Score: customer',
      'Score: competitor',
      'Mean score',
      'Re-vote',
      'Debate messages',
      'Quality',
    ]);
    expect(rowsOf(rows)).toMatchObject({
      Recommendation: 'ITERATE',
      'Score: vc': '5 → 7',
      'Score: engineer': '4',
      'Score: competitor': '3 → 5',
      'Mean score': '6.0',
      'Re-vote': '2 of 3 changed, 1 capped at ±3',
      'Debate messages': '10 (at most 2 rounds)',
      Quality: 'ok',
    });
  });

  it('without records: the judges the summary has, no re-vote row; an appeal and low confidence are said', () => {
    const run = { panel: { ...panelRun.panel!, scores: { pm: 9 }, revote_baseline: null, quality: 'weak', low_confidence: true, appeal: { status: 'completed', judges: ['pm'] } } } as Pick<RunDetail, 'panel'>;
    expect(rowsOf(panelCompareRows(run, null))).toEqual({
      Recommendation: 'ITERATE',
      'Score: pm': '9',
      'Mean score': '9.0',
      'Debate messages': '10 (at most 2 rounds)',
      Quality: 'weak, low confidence',
      Appeal: 'completed (pm)',
    });
  });

  it('are none for a run without a panel summary', () => {
    expect(panelCompareRows({ panel: undefined }, null)).toEqual([]);
  });
});
