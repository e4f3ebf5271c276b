import { JUDGES } from '@roundtable/contracts';
import { assessPanel, assessRevote, LENS_COLLAPSE_JACCARD, REVOTE_CAP } from '../verification/panel-quality';
import { currentVerdicts } from './panel-context-packs';
import { appealGolden, driveGolden, GOLDEN_SET_SIZE, goldenSet, passRate, type GoldenEntry } from './panel-golden.fixture';
import { canAppeal } from './panel.workflow';

/**
 * Golden set, tier 1 (seed 003: "pass_rate = 1.0 on the golden set"): the panel's quality checks,
 * the same functions that gate a run (verification/panel-quality.ts), scored over the twelve
 * golden ideas with replayed judges. Each dimension's pass_rate is printed and must be 1.0: an
 * idea whose lenses, re-vote, herding or appeal come out otherwise than its fixture says fails
 * the set, with the idea and the reason named. Structure is tier 0 (panel-golden-tier0.spec.ts).
 */

type Check = (g: GoldenEntry) => string[] | null; // null: the dimension does not apply to this idea

const fail = (ok: boolean, why: string): string[] => (ok ? [] : [why]);

/** The outcome the fixture names: status, recommendation, quality gate, retries, low confidence. */
const outcome: Check = (g) => {
  const { d } = driveGolden(g);
  const e = g.idea.expect;
  const done = d.eventsOf('run_completed')[0];
  return [
    ...fail(d.state.status === e.status, `status ${d.state.status}, expected ${e.status}`),
    ...fail(d.state.quality?.status === e.quality, `quality ${d.state.quality?.status}, expected ${e.quality}`),
    ...fail(d.state.roastRetries === e.retries && d.eventsOf('panel_retry').length === e.retries, `${d.state.roastRetries} retries, expected ${e.retries}`),
    ...(e.status === 'done'
      ? [
          ...fail(done?.verdict === e.recommendation, `recommendation ${done?.verdict}, expected ${e.recommendation}`),
          ...fail(done?.panel?.low_confidence === e.low_confidence, `low_confidence ${done?.panel?.low_confidence}, expected ${e.low_confidence}`),
        ]
      : []),
  ];
};

/** Five lenses, not one said five times: below the collapse threshold, or failed with the pair measured. */
const lensDifferentiation: Check = (g) => {
  const { d } = driveGolden(g);
  const e = g.idea.expect;
  const q = assessPanel(currentVerdicts(d.state).map((v) => v.body));
  if (e.status === 'failed') {
    const [a, b] = e.collapsed_pair ?? [];
    const pair = q.figures.pairs.find((p) => p.a === a && p.b === b);
    return [
      ...fail(q.status === 'collapsed', `assessPanel says ${q.status}, expected collapsed`),
      ...fail((pair?.jaccard ?? 0) >= LENS_COLLAPSE_JACCARD, `${a}/${b} overlap ${pair?.jaccard}, below ${LENS_COLLAPSE_JACCARD}`),
      ...fail(d.eventsOf('run_failed')[0]?.reason.includes(`max Jaccard ${q.figures.max_jaccard}`) ?? false, 'run_failed does not quote the measured max Jaccard'),
    ];
  }
  return [
    ...fail(q.status === e.quality, `assessPanel says ${q.status}, expected ${e.quality}`),
    ...fail(q.figures.max_jaccard < LENS_COLLAPSE_JACCARD, `max Jaccard ${q.figures.max_jaccard} ≥ ${LENS_COLLAPSE_JACCARD}`),
  ];
};

/** Every move explained and within ±3; the capped judges as the fixture intends. */
const revoteQuality: Check = (g) => {
  const { d } = driveGolden(g);
  if (g.idea.expect.status === 'failed') return null;
  const revotes = d.state.revotes.filter((r) => r.phase === 'revote');
  if (!g.idea.config.revote) return fail(revotes.length === 0 && d.eventsOf('revote_started').length === 0, 're-vote is off but a re-vote ran');
  const a = assessRevote(d.state.revoteBaseline!, revotes.map((r) => r.body));
  return [
    ...fail(revotes.length === 5, `${revotes.length} re-votes, expected 5`),
    ...fail(a.unexplained.length === 0, `unexplained moves: ${a.unexplained.join(', ')}`),
    ...fail(JSON.stringify(a.capped) === JSON.stringify(g.idea.expect.capped), `capped ${JSON.stringify(a.capped)}, expected ${JSON.stringify(g.idea.expect.capped)}`),
    ...revotes.flatMap((r) => fail(Math.abs(r.score - r.previous) <= REVOTE_CAP, `${r.judge} moved ${r.score - r.previous}, beyond ±${REVOTE_CAP}`)),
  ];
};

/** Herding (≥ 4 judges moving by the same amount) flagged exactly when the fixture plants it. */
const herding: Check = (g) => {
  if (g.idea.expect.status === 'failed' || !g.idea.config.revote) return null;
  const { d } = driveGolden(g);
  const a = assessRevote(d.state.revoteBaseline!, d.state.revotes.filter((r) => r.phase === 'revote').map((r) => r.body));
  const warned = d.eventsOf('panel_warning').some((w) => w.kind === 'herding');
  return [...fail(a.herding === g.idea.expect.herding, `herding ${a.herding}, expected ${g.idea.expect.herding}`), ...fail(warned === g.idea.expect.herding, `herding warning ${warned}, expected ${g.idea.expect.herding}`)];
};

/** Relevant evidence moves the appealed judge, irrelevant evidence does not; nobody else moves; once. */
const appealDiscrimination: Check = (g) => {
  const appeal = g.idea.appeal;
  if (!appeal) return null;
  const { d, used } = driveGolden(g);
  const { before, after, step } = appealGolden(g, d, used);
  const completed = d.eventsOf('appeal_completed');
  return [
    ...fail(JSON.stringify(step.commands.map((c) => c.role)) === JSON.stringify(JUDGES.filter((j) => appeal.judges.includes(j))), 'the appeal asked other judges than those appealed to'),
    ...fail(step.commands.every((c) => c.stage === 'APPEAL'), 'an appeal call outside APPEAL'),
    ...fail(completed.length === 1, `${completed.length} appeal_completed events`),
    ...JUDGES.flatMap((j) => {
      if (!appeal.judges.includes(j)) return fail(after[j] === before[j], `${j} was not appealed to but moved`);
      const moved = after[j] !== before[j];
      return [
        ...fail(moved === appeal.moves.includes(j), `${j} ${moved ? 'moved' : 'stayed'} (${before[j]} → ${after[j]}), expected it to ${appeal.moves.includes(j) ? 'move' : 'stay'}`),
        ...fail(Math.abs(after[j]! - before[j]!) <= REVOTE_CAP, `${j} moved beyond ±${REVOTE_CAP}`),
        ...fail(completed[0]?.scores[j] === after[j], `appeal_completed's ${j} score differs from the panel's`),
      ];
    }),
    ...fail(d.state.status === 'done' && !canAppeal(d.state).ok && d.appeal(appeal.evidence, appeal.judges).commands.length === 0, 'a second appeal was accepted'),
  ];
};

const DIMENSIONS: [string, Check][] = [
  ['outcome', outcome],
  ['lens differentiation', lensDifferentiation],
  ['re-vote quality', revoteQuality],
  ['herding detection', herding],
  ['appeal discrimination', appealDiscrimination],
];

function score(check: Check) {
  return goldenSet.flatMap((g) => {
    const failures = check(g);
    return failures === null ? [] : [{ name: g.name, failures }];
  });
}

describe('golden set, tier 1: pass_rate = 1.0 with replayed judges', () => {
  it.each(DIMENSIONS)('%s: pass_rate over the golden ideas it applies to is 1.0', (dimension, check) => {
    const results = score(check);
    const rate = passRate(results);
    console.log(`tier 1 ${dimension}: pass_rate = ${rate.toFixed(2)} (${results.filter((r) => !r.failures.length).length}/${results.length} ideas)`);
    expect(results.length).toBeGreaterThan(0);
    expect(results.filter((r) => r.failures.length)).toEqual([]);
    expect(rate).toBe(1);
  });

  it('overall: every golden idea passes every dimension that applies to it (pass_rate = 1.0 over all twelve)', () => {
    const perDimension = DIMENSIONS.map(([, check]) => score(check));
    const results = goldenSet.map((g) => ({ name: g.name, failures: perDimension.flatMap((rs) => rs.find((r) => r.name === g.name)?.failures ?? []) }));
    const rate = passRate(results);
    console.log(`tier 1 overall: pass_rate = ${rate.toFixed(2)} over ${results.length} golden ideas`);
    expect(results).toHaveLength(GOLDEN_SET_SIZE);
    expect(rate).toBe(1);
  });

  it('the checks can fail: a fixture expecting the opposite outcome, herding or appeal move scores below 1.0', () => {
    const flipped = (g: GoldenEntry): GoldenEntry => ({
      ...g,
      idea: {
        ...g.idea,
        expect: { ...g.idea.expect, herding: !g.idea.expect.herding, quality: g.idea.expect.quality === 'ok' ? 'uniform' : 'ok' },
        ...(g.idea.appeal ? { appeal: { ...g.idea.appeal, moves: JUDGES.filter((j) => g.idea.appeal!.judges.includes(j) && !g.idea.appeal!.moves.includes(j)) } } : {}),
      },
    });
    const wrong = goldenSet.map(flipped);
    expect(wrong.filter((g) => g.idea.expect.status === 'done').every((g) => lensDifferentiation(g)!.length > 0)).toBe(true);
    expect(wrong.filter((g) => herding(g) !== null).every((g) => herding(g)!.length > 0)).toBe(true);
    expect(wrong.filter((g) => g.idea.appeal).every((g) => appealDiscrimination(g)!.length > 0)).toBe(true);
    expect(passRate([{ name: 'a', failures: [] }, { name: 'b', failures: ['x'] }])).toBe(0.5);
  });
});
