import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { GoldenIdea, goldenTranscript } from './panel-golden-idea';
import { averageScores, compareWithBaseline, GRADER_DIMENSIONS, GRADER_JSON_SCHEMA, graderMessages, GraderScores, type GraderAverages } from './panel-grader';

const GOLDEN = path.resolve(__dirname, '../../../../test/fixtures/panel-golden');
const golden = (name: string) => GoldenIdea.parse(parse(readFileSync(path.join(GOLDEN, `${name}.yaml`), 'utf8')));

const all = (x: number | null): GraderAverages => Object.fromEntries(GRADER_DIMENSIONS.map((d) => [d, x])) as GraderAverages;
const scores = (over: Partial<GraderScores> = {}): GraderScores => ({ ...all(8), notes: 'fine', ...over });

describe('the grader transcript, from a golden cassette alone', () => {
  it('a full panel: five verdicts, the turns in speaker order per round, the re-vote with its moves, the synthesis, the appeal', () => {
    const t = goldenTranscript(golden('kitchen-waste-scale'));
    expect(t.verdicts.map((v) => v.judge)).toEqual(['vc', 'engineer', 'pm', 'customer', 'competitor']);
    expect(t.turns.map((d) => `${d.round}${d.speaker}`)).toEqual(['1vc', '1engineer', '1pm', '1customer', '1competitor', '2vc', '2engineer', '2pm', '2customer', '2competitor']);
    expect(t.revotes.map((r) => [r.judge, r.previous, r.score])).toEqual([['vc', 5, 6], ['engineer', 7, 7], ['pm', 5, 5], ['customer', 7, 6], ['competitor', 4, 4]]);
    expect(t.moderator?.overall_recommendation).toBe('ITERATE');
    expect(t.appeal?.rescored.map((r) => [r.judge, r.previous, r.score])).toEqual([['pm', 5, 7], ['competitor', 4, 4]]);

    const [system, user] = graderMessages(t);
    expect(system.content).toContain('role: grader');
    for (const d of GRADER_DIMENSIONS) expect(system.content).toContain(d);
    expect(user.content).toContain('# Idea: BinScale');
    expect(user.content).toContain('- round 2, competitor: Winnow prices for hotel groups');
    expect(user.content).toContain('- vc: 5 -> 6 (D4 and D6');
    expect(user.content).toContain('Recommendation: ITERATE');
    expect(user.content).toContain('- pm: 5 -> 7 (E1: logging above 90 %');
    expect(user.content).toContain('- competitor: 4 -> 4 (unchanged)');
  });

  it("a weak judge's retry replaces its first verdict; a collapsed panel has verdicts and nothing after them", () => {
    const retried = goldenTranscript(golden('freelancer-tax-assistant'));
    const first = golden('freelancer-tax-assistant').replies.find((r) => r.role === 'customer')!.reply;
    expect(retried.verdicts.find((v) => v.judge === 'customer')).not.toEqual(first);
    const collapsed = goldenTranscript(golden('plant-moisture-sensor'));
    expect(collapsed.verdicts).toHaveLength(5);
    expect([collapsed.turns, collapsed.revotes, collapsed.moderator, collapsed.appeal]).toEqual([[], [], null, null]);
    expect(graderMessages(collapsed)[1].content).toContain('(none: the panel stopped after the verdicts)');
  });

  it('asks for every dimension as structured output, each 0-10 or null', () => {
    expect(Object.keys((GRADER_JSON_SCHEMA as { properties: object }).properties)).toEqual([...GRADER_DIMENSIONS, 'notes']);
    expect(GraderScores.safeParse(scores({ appeal_discrimination: null })).success).toBe(true);
    expect(GraderScores.safeParse(scores({ revote_quality: 11 })).success).toBe(false);
    expect(GraderScores.safeParse({ ...scores(), extra: 1 }).success).toBe(false);
  });
});

describe('averaging and flagging drops against the baseline', () => {
  it('averages each dimension over the panels that had it, leaving nulls out, to two decimals', () => {
    const avg = averageScores([scores({ lens_differentiation: 7, appeal_discrimination: null }), scores({ lens_differentiation: 8 }), scores({ lens_differentiation: 8, appeal_discrimination: null })]);
    expect(avg).toEqual({ lens_differentiation: 7.67, revote_quality: 8, debate_engagement: 8, synthesis_faithfulness: 8, appeal_discrimination: 8 });
    expect(averageScores([scores({ debate_engagement: null })]).debate_engagement).toBeNull();
  });

  it('flags a drop of 0.6, not one of 0.4; exactly 0.5 is flagged; a rise never is', () => {
    const base = all(8);
    const rows = compareWithBaseline({ ...all(8), lens_differentiation: 7.4, revote_quality: 7.6, debate_engagement: 7.5, synthesis_faithfulness: 9 }, base);
    expect(rows.map((r) => [r.dimension, r.delta, r.flagged])).toEqual([
      ['lens_differentiation', -0.6, true],
      ['revote_quality', -0.4, false],
      ['debate_engagement', -0.5, true],
      ['synthesis_faithfulness', 1, false],
      ['appeal_discrimination', 0, false],
    ]);
    // 0.5 in awkward binary fractions is still 0.5
    expect(compareWithBaseline({ ...all(6.8), revote_quality: 6.71 }, all(7.3)).map((r) => r.flagged)).toEqual([true, true, true, true, true]);
    expect(compareWithBaseline(all(6.81), all(7.3)).some((r) => r.flagged)).toBe(false);
  });

  it('no baseline, or a dimension missing on either side: no delta, no flag', () => {
    expect(compareWithBaseline(all(2), null).every((r) => r.delta === null && !r.flagged && r.baseline === null)).toBe(true);
    const rows = compareWithBaseline({ ...all(2), appeal_discrimination: null }, all(9));
    expect(rows.find((r) => r.dimension === 'appeal_discrimination')).toEqual({ dimension: 'appeal_discrimination', baseline: 9, now: null, delta: null, flagged: false });
    expect(rows.filter((r) => r.flagged)).toHaveLength(4);
  });
});
