import type { JudgeRole, JudgeVerdict, Revote } from '@roundtable/contracts';
import {
  assessPanel,
  assessRevote,
  clampRevote,
  duplicateConcerns,
  DUPLICATE_CONCERN_JACCARD,
  GENERIC_EVIDENCE_RATE,
  genericEvidenceRate,
  HERDING_MIN_JUDGES,
  isGenericEvidence,
  isUniformPanel,
  jaccard,
  lensCollapse,
  LENS_COLLAPSE_JACCARD,
  pairwiseJaccard,
  REVOTE_CAP,
  tokenSet,
} from './panel-quality';

/** `n` distinct tokens starting at `from`: w1 w2 … (none of them a stop word). */
const toks = (from: number, n: number): string => Array.from({ length: n }, (_, i) => `w${from + i}`).join(' ');

/** Five judges with clearly different lenses, specific evidence, mixed stances and scores. */
function distinctPanel(): JudgeVerdict[] {
  const spec: [JudgeRole, number, JudgeVerdict['stance'], string[], string[]][] = [
    ['vc', 4, 'against', ['payback period on acquisition spend exceeds 18 months'], ['benchmarks put consumer app CAC near $40 while ARPU is $3']],
    ['engineer', 6, 'mixed', ['offline sync conflicts corrupt shared lists'], ['prototype lost 2 of 50 edits during the conflict test']],
    ['pm', 7, 'for', ['onboarding needs a second flatmate before any value appears'], ['pilot: 9 of 14 flats invited a second member within a day']],
    ['customer', 8, 'for', ['I forget milk every week and fight about it'], ['survey of 20 flats: 12 keep a paper list on the fridge']],
    ['competitor', 3, 'against', ['Google Keep already shares lists for free'], ['Keep has shared checklists since 2014 with 1B+ installs']],
  ];
  return spec.map(([judge, score, stance, top_concerns, evidence]) => ({
    judge,
    score,
    stance,
    top_concerns,
    evidence,
    what_would_change_my_mind: `something specific for ${judge}`,
    confidence: 0.6,
  }));
}

const withJudge = (panel: JudgeVerdict[], judge: JudgeRole, patch: Partial<JudgeVerdict>): JudgeVerdict[] =>
  panel.map((v) => (v.judge === judge ? { ...v, ...patch } : v));

describe('tokenSet / jaccard', () => {
  it('lower-cases, splits on punctuation and drops function words', () => {
    expect([...tokenSet('The CAC is $40, not 4%!')]).toEqual(['cac', '$40', 'not', '4%']);
    expect([...tokenSet(['Sync', 'sync conflicts'])]).toEqual(['sync', 'conflicts']);
  });

  it('is |A ∩ B| / |A ∪ B|, symmetric, 1 for the same words and 0 for none shared', () => {
    expect(jaccard('cac is high', 'high CAC')).toBe(1);
    expect(jaccard('w1 w2 w3', 'w2 w3 w4')).toBeCloseTo(2 / 4);
    expect(jaccard('w2 w3 w4', 'w1 w2 w3')).toBe(jaccard('w1 w2 w3', 'w2 w3 w4'));
    expect(jaccard('w1', 'w2')).toBe(0);
    expect(jaccard('', [])).toBe(0);
    expect(jaccard('the a of', 'w1')).toBe(0);
  });
});

describe('lensCollapse', () => {
  it(`flags a pair exactly at ${LENS_COLLAPSE_JACCARD} and not one just below`, () => {
    // 17 shared of 20 → 0.85; 17 shared of 21 → 0.81.
    const at = withJudge(withJudge(distinctPanel(), 'vc', { top_concerns: [toks(1, 17)], evidence: [toks(100, 1)] }), 'pm', {
      top_concerns: [toks(1, 17)],
      evidence: [toks(200, 2)],
    });
    expect(jaccard([toks(1, 17), toks(100, 1)], [toks(1, 17), toks(200, 2)])).toBe(0.85);
    expect(lensCollapse(at)).toEqual([{ a: 'vc', b: 'pm', jaccard: 0.85 }]);

    const below = withJudge(at, 'pm', { evidence: [toks(200, 3)] });
    expect(jaccard([toks(1, 17), toks(100, 1)], [toks(1, 17), toks(200, 3)])).toBeLessThan(LENS_COLLAPSE_JACCARD);
    expect(lensCollapse(below)).toEqual([]);
  });

  it('compares concerns and evidence together: the same concerns with different evidence is not a collapse', () => {
    const panel = withJudge(withJudge(distinctPanel(), 'vc', { top_concerns: ['w1 w2'], evidence: [toks(10, 5)] }), 'engineer', {
      top_concerns: ['w1 w2'],
      evidence: [toks(20, 5)],
    });
    expect(lensCollapse(panel)).toEqual([]);
  });

  it('reports every pair once, in speaker order, whatever order the verdicts came in', () => {
    const pairs = pairwiseJaccard([...distinctPanel()].reverse());
    expect(pairs).toHaveLength(10);
    expect(pairs[0]).toMatchObject({ a: 'vc', b: 'engineer' });
    expect(pairs[9]).toMatchObject({ a: 'customer', b: 'competitor' });
  });
});

describe('genericEvidenceRate', () => {
  const specific = (n: number) => Array.from({ length: n }, (_, i) => `interview ${i + 1}: paid $12 for the pilot`);

  it('recognises stock phrases as whole words, whatever the case and punctuation', () => {
    expect(isGenericEvidence('The market is HUGE.')).toBe(true);
    expect(isGenericEvidence('Users love it, obviously')).toBe(true);
    expect(isGenericEvidence('a first-mover advantage')).toBe(true);
    expect(isGenericEvidence('12 of 20 flats keep a paper list')).toBe(false);
    expect(isGenericEvidence('the hugely specific market')).toBe(false);
  });

  it(`is the share of generic items: exactly ${GENERIC_EVIDENCE_RATE} is not weak, above it is`, () => {
    const two = { evidence: [...specific(3), 'huge market', 'studies show demand'] };
    const three = { evidence: [...specific(2), 'huge market', 'studies show demand', 'no competition'] };
    expect(genericEvidenceRate(two)).toBe(0.4);
    expect(genericEvidenceRate(three)).toBe(0.6);
    const panel = (evidence: string[]) => assessPanel(withJudge(distinctPanel(), 'pm', { evidence }));
    expect(panel(two.evidence)).toMatchObject({ status: 'ok', weak_judges: [] });
    expect(panel(three.evidence)).toMatchObject({ status: 'weak', weak_judges: ['pm'] });
  });

  it('counts no evidence at all as fully generic', () => {
    expect(genericEvidenceRate({ evidence: [] })).toBe(1);
    expect(assessPanel(withJudge(distinctPanel(), 'vc', { evidence: [] })).reasons).toContain('vc: no evidence at all');
  });
});

describe('duplicateConcerns', () => {
  it('finds the same concern said twice and leaves distinct ones alone', () => {
    expect(duplicateConcerns({ top_concerns: ['CAC is too high', 'the CAC too high', 'churn after month two'] })).toEqual([
      ['CAC is too high', 'the CAC too high'],
    ]);
    expect(duplicateConcerns({ top_concerns: ['CAC is too high', 'churn after month two'] })).toEqual([]);
  });

  it(`flags exactly at ${DUPLICATE_CONCERN_JACCARD} and not just below`, () => {
    const at = { top_concerns: [`${toks(1, 17)} ${toks(100, 1)}`, `${toks(1, 17)} ${toks(200, 2)}`] };
    const below = { top_concerns: [`${toks(1, 17)} ${toks(100, 1)}`, `${toks(1, 17)} ${toks(200, 3)}`] };
    expect(duplicateConcerns(at)).toHaveLength(1);
    expect(duplicateConcerns(below)).toEqual([]);
  });

  it('makes its judge weak', () => {
    const q = assessPanel(withJudge(distinctPanel(), 'engineer', { top_concerns: ['sync conflicts', 'Sync conflicts!'] }));
    expect(q.status).toBe('weak');
    expect(q.weak_judges).toEqual(['engineer']);
    expect(q.figures.duplicates.engineer).toEqual([['sync conflicts', 'Sync conflicts!']]);
  });
});

describe('isUniformPanel', () => {
  const scored = (scores: number[], stance: JudgeVerdict['stance'] = 'for') =>
    distinctPanel().map((v, i) => ({ ...v, score: scores[i], stance }));

  it('one stance with a spread of 1 is uniform; a spread of 2 is not', () => {
    expect(isUniformPanel(scored([7, 7, 8, 8, 7]))).toBe(true);
    expect(isUniformPanel(scored([7, 7, 9, 8, 7]))).toBe(false);
  });

  it('the same scores with two stances are not uniform', () => {
    const mixed = scored([7, 7, 8, 8, 7]).map((v, i) => (i === 0 ? { ...v, stance: 'mixed' as const } : v));
    expect(isUniformPanel(mixed)).toBe(false);
  });

  it('a lone verdict is not a panel', () => {
    expect(isUniformPanel(scored([7]).slice(0, 1))).toBe(false);
  });

  it('assessPanel says uniform only when nothing worse is wrong', () => {
    expect(assessPanel(scored([7, 7, 8, 8, 7])).status).toBe('uniform');
    expect(assessPanel(withJudge(scored([7, 7, 8, 8, 7]), 'vc', { evidence: ['huge market'] })).status).toBe('weak');
  });
});

describe('assessPanel', () => {
  it('a distinct, specific, split panel is ok, with every figure measured', () => {
    const q = assessPanel(distinctPanel());
    expect(q.status).toBe('ok');
    expect(q.reasons).toEqual([]);
    expect(q.figures.pairs).toHaveLength(10);
    expect(q.figures.max_jaccard).toBeLessThan(0.2);
    expect(Object.keys(q.figures.generic_rates)).toEqual(['vc', 'engineer', 'pm', 'customer', 'competitor']);
    expect(Object.values(q.figures.generic_rates).every((r) => r === 0)).toBe(true);
  });

  it('collapse beats weak: the status says collapsed and the reasons keep both', () => {
    const same = { top_concerns: ['the market is huge and growing'], evidence: ['huge market', 'users love it'] };
    const q = assessPanel(withJudge(withJudge(distinctPanel(), 'vc', same), 'customer', same));
    expect(q.status).toBe('collapsed');
    expect(q.figures.max_jaccard).toBe(1);
    expect(q.reasons[0]).toBe('lens collapse: vc and customer overlap 1 (Jaccard ≥ 0.85) on concerns + evidence');
    expect(q.weak_judges).toEqual(['vc', 'customer']);
  });
});

describe('clampRevote', () => {
  it(`keeps a move of ${REVOTE_CAP} and caps a move of ${REVOTE_CAP + 1}`, () => {
    expect(clampRevote(5, 8)).toBe(8);
    expect(clampRevote(5, 9)).toBe(8);
    expect(clampRevote(5, 2)).toBe(2);
    expect(clampRevote(5, 1)).toBe(2);
    expect(clampRevote(5, 5)).toBe(5);
  });

  it('stays inside 1..10', () => {
    expect(clampRevote(9, 14)).toBe(10);
    expect(clampRevote(2, -4)).toBe(1);
  });
});

describe('assessRevote', () => {
  const baseline: Partial<Record<JudgeRole, number>> = { vc: 4, engineer: 6, pm: 7, customer: 8, competitor: 3 };
  const rv = (judge: JudgeRole, score: number, reason: string | null = 'D4 changed it'): Revote => ({
    judge,
    score,
    changed: reason !== null && score !== baseline[judge],
    change_reason: reason,
    confidence: 0.6,
  });

  it(`herding at ${HERDING_MIN_JUDGES} judges moving by the same delta, not at ${HERDING_MIN_JUDGES - 1}`, () => {
    const four = [rv('vc', 6), rv('engineer', 8), rv('pm', 9), rv('customer', 10), rv('competitor', 3)];
    const a = assessRevote(baseline, four);
    expect(a.herding).toBe(true);
    expect(a.herd).toEqual({ delta: 2, judges: ['vc', 'engineer', 'pm', 'customer'] });

    const three = [rv('vc', 6), rv('engineer', 8), rv('pm', 9), rv('customer', 9), rv('competitor', 3)];
    expect(assessRevote(baseline, three)).toMatchObject({ herding: false, herd: null });
  });

  it('five judges who all stay put are not a herd', () => {
    const still = (Object.keys(baseline) as JudgeRole[]).map((j) => rv(j, baseline[j]!, null));
    expect(assessRevote(baseline, still)).toMatchObject({ herding: false, unexplained: [], capped: [] });
  });

  it('herding is measured on capped deltas: four asking for +5 all move +3', () => {
    const big = [rv('vc', 9), rv('engineer', 10), rv('pm', 10), rv('competitor', 8)];
    const a = assessRevote({ vc: 4, engineer: 5, pm: 5, competitor: 3 }, big);
    expect(a.deltas).toEqual({ vc: 3, engineer: 3, pm: 3, competitor: 3 });
    expect(a.herding).toBe(true);
    expect(a.capped).toEqual(['vc', 'engineer', 'pm', 'competitor']);
  });

  it('a moved score without changed + change_reason is unexplained; a kept one never is', () => {
    const a = assessRevote(baseline, [
      rv('vc', 6, null),
      { ...rv('engineer', 7), changed: false },
      rv('pm', 8),
      rv('customer', 8, null),
    ]);
    expect(a.unexplained).toEqual(['vc', 'engineer']);
  });

  it(`capped lists a move of ${REVOTE_CAP + 1} and not one of ${REVOTE_CAP}`, () => {
    expect(assessRevote(baseline, [rv('vc', 7), rv('pm', 10), rv('customer', 4)]).capped).toEqual(['customer']);
  });

  it('ignores a revote for a judge with no baseline', () => {
    expect(assessRevote({ vc: 4 }, [rv('pm', 1, null)])).toMatchObject({ deltas: {}, unexplained: [], capped: [] });
  });
});
