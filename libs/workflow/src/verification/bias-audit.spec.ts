import type { JudgeRole, Verdict } from '@roundtable/contracts';
import { JUDGES } from '@roundtable/contracts';
import { biasAudit, type BiasAuditFacts, type CritiqueFact, type JudgeScoreFact, type PanelRunFact, type RevoteFact, type TestRunFact } from './bias-audit';

const SCOPE = { project: null, runLimit: 2000, runs: 0, truncated: false };
const empty = (): BiasAuditFacts => ({ scope: SCOPE, critiques: [], testRuns: [], verdicts: [], revotes: [], panels: [] });

/**
 * One build run: the critic's verdicts on the proposals (seq 2, 4 …; the proposer on `author`),
 * then, after the last, one test run (passed or not) and the validator's review.
 */
function buildRun(
  facts: BiasAuditFacts,
  runId: string,
  critic: { provider: string; model: string },
  verdicts: Verdict[],
  after: { testsPass: boolean; review: Verdict; author?: string; engineer?: string; validator?: string },
): void {
  const critiques = facts.critiques as CritiqueFact[];
  let seq = 1;
  for (const verdict of verdicts) {
    seq += 1;
    critiques.push({ runId, seq, role: 'critic', provider: critic.provider, model: critic.model, targetKind: 'proposal', verdict, authorProvider: after.author ?? 'openai' });
    seq += 1;
  }
  seq += 1;
  (facts.testRuns as TestRunFact[]).push({ runId, seq, passed: after.testsPass });
  seq += 1;
  critiques.push({
    runId,
    seq,
    role: 'validator',
    provider: after.validator ?? 'gemini',
    model: 'gemini-2.5-pro',
    targetKind: 'implementation',
    verdict: after.review,
    authorProvider: after.engineer ?? 'openai',
  });
}

/** One panel: each judge's roast score, then its re-vote move (0: unchanged). */
function panelRun(facts: BiasAuditFacts, runId: string, scores: Record<JudgeRole, number>, moves: Partial<Record<JudgeRole, number>>, idea: Partial<PanelRunFact> = {}): void {
  (facts.panels as PanelRunFact[]).push({ runId, createdAt: idea.createdAt ?? '2026-01-01T00:00:00Z', ideaId: idea.ideaId ?? null, ideaVersion: idea.ideaVersion ?? null });
  JUDGES.forEach((judge, i) => {
    const base: JudgeScoreFact = { runId, seq: i + 1, judge, provider: i % 2 ? 'anthropic' : 'xai', model: i % 2 ? 'claude-sonnet-4-5' : 'grok-4', score: scores[judge] };
    (facts.verdicts as JudgeScoreFact[]).push(base);
    const move = moves[judge];
    if (move !== undefined) (facts.revotes as RevoteFact[]).push({ ...base, seq: 20 + i, previous: base.score, score: base.score + move });
  });
}

const scores = (...s: number[]) => Object.fromEntries(JUDGES.map((j, i) => [j, s[i]])) as Record<JudgeRole, number>;

describe('biasAudit', () => {
  it('flags a planted always-ACCEPT critic: never_revises, and accepts_failures when most of its ACCEPTs meet failing tests', () => {
    const facts = empty();
    const yes = { provider: 'ollama', model: 'yes-man' };
    // Six runs, one ACCEPT each; four are followed by failing tests, two of those by a REVISE review too.
    buildRun(facts, 'r1', yes, ['ACCEPT'], { testsPass: false, review: 'REVISE' });
    buildRun(facts, 'r2', yes, ['ACCEPT'], { testsPass: false, review: 'REVISE' });
    buildRun(facts, 'r3', yes, ['ACCEPT'], { testsPass: false, review: 'ACCEPT' });
    buildRun(facts, 'r4', yes, ['ACCEPT'], { testsPass: false, review: 'ACCEPT' });
    buildRun(facts, 'r5', yes, ['ACCEPT'], { testsPass: true, review: 'ACCEPT' });
    buildRun(facts, 'r6', yes, ['ACCEPT'], { testsPass: true, review: 'ACCEPT' });
    const audit = biasAudit(facts);

    expect(audit.flags).toEqual([
      { subject: 'ollama/yes-man', kind: 'never_revises', detail: '6 verdicts over 6 runs, 6 ACCEPT, not one REVISE or REJECT' },
      { subject: 'ollama/yes-man', kind: 'accepts_failures', detail: '4 of its 6 ACCEPTs (67 %) were followed by failing tests in the same run' },
    ]);
    expect(audit.critics).toEqual([
      expect.objectContaining({
        subject: 'ollama/yes-man',
        verdicts: 6,
        counts: { ACCEPT: 6, REVISE: 0, REJECT: 0, NEEDS_EVIDENCE: 0, NEEDS_EXPERIMENT: 0 },
        accept: { count: 6, of: 6, rate: 1 },
        revise: { count: 0, of: 6, rate: 0 },
        accepts_then_failing_tests: { count: 4, of: 6, rate: 0.667 },
        accepts_then_failing_review: { count: 2, of: 6, rate: 0.333 },
        runs: 6,
      }),
    ]);
    expect(audit.scope).toMatchObject({ build_runs: 6, panel_runs: 0 });
  });

  it('flags nothing on a balanced set: critics with a mix of verdicts, judges with varied scores and their own moves', () => {
    const facts = empty();
    const a = { provider: 'anthropic', model: 'claude-sonnet-4-5' };
    const b = { provider: 'xai', model: 'grok-4' };
    buildRun(facts, 'r1', a, ['REVISE', 'ACCEPT'], { testsPass: true, review: 'ACCEPT' });
    buildRun(facts, 'r2', a, ['REJECT', 'REVISE', 'ACCEPT'], { testsPass: false, review: 'REVISE' });
    buildRun(facts, 'r3', a, ['ACCEPT'], { testsPass: true, review: 'ACCEPT' });
    buildRun(facts, 'r4', b, ['REVISE', 'ACCEPT'], { testsPass: true, review: 'ACCEPT' });
    buildRun(facts, 'r5', b, ['ACCEPT'], { testsPass: true, review: 'ACCEPT' });
    buildRun(facts, 'r6', b, ['REVISE', 'REVISE', 'ACCEPT'], { testsPass: true, review: 'ACCEPT' });
    panelRun(facts, 'p1', scores(3, 6, 8, 5, 2), { vc: 1, engineer: 0, pm: -1, customer: 2, competitor: 0 });
    panelRun(facts, 'p2', scores(7, 4, 6, 9, 3), { vc: -2, engineer: 1, pm: 0, customer: 0, competitor: 1 });
    panelRun(facts, 'p3', scores(5, 5, 2, 6, 8), { vc: 0, engineer: -1, pm: 2, customer: 1, competitor: 0 });
    const audit = biasAudit(facts);

    expect(audit.flags).toEqual([]);
    expect(audit.critics.map((c) => [c.subject, c.accept.count, c.revise.count, c.reject.count])).toEqual([
      ['anthropic/claude-sonnet-4-5', 3, 2, 1],
      ['xai/grok-4', 3, 3, 0],
    ]);
    expect(audit.judges).toHaveLength(5);
    const vc = audit.judges.find((j) => j.judge === 'vc')!;
    expect(vc).toMatchObject({ subject: 'xai/grok-4 (vc)', scores: { count: 3, mean: 5, min: 3, max: 7 }, herd_moves: { count: 0, of: 3, rate: 0 }, panels: 3 });
    expect(vc.scores.histogram).toHaveLength(10);
    expect(vc.scores.histogram.filter((h) => h.count > 0)).toEqual([
      { score: 3, count: 1 },
      { score: 5, count: 1 },
      { score: 7, count: 1 },
    ]);
  });

  it('leaves a short all-ACCEPT record unflagged: four verdicts are chance, not a habit', () => {
    const facts = empty();
    for (const r of ['r1', 'r2', 'r3', 'r4']) buildRun(facts, r, { provider: 'ollama', model: 'm' }, ['ACCEPT'], { testsPass: false, review: 'REVISE' });
    const audit = biasAudit(facts);
    // accepts_failures needs 3 failing out of ≥ 50 %: 4 of 4 is both.
    expect(audit.flags.map((f) => f.kind)).toEqual(['accepts_failures']);
  });

  it('counts only failures after the ACCEPT: a test run that failed before the critic accepted is no mark against it', () => {
    const facts = empty();
    (facts.testRuns as TestRunFact[]).push({ runId: 'r1', seq: 1, passed: false });
    buildRun(facts, 'r1', { provider: 'p', model: 'm' }, ['ACCEPT'], { testsPass: true, review: 'ACCEPT' });
    expect(biasAudit(facts).critics[0].accepts_then_failing_tests).toEqual({ count: 0, of: 1, rate: 0 });
  });

  it('flags a judge that moves with the herd in most of its re-votes, and not the one that moves alone', () => {
    const facts = empty();
    // vc, engineer, pm and customer all move +2 in each panel; competitor holds.
    for (const p of ['p1', 'p2', 'p3', 'p4', 'p5']) panelRun(facts, p, scores(4, 4, 4, 4, 4), { vc: 2, engineer: 2, pm: 2, customer: 2, competitor: 0 });
    const audit = biasAudit(facts);
    expect(audit.flags.map((f) => [f.subject, f.kind])).toEqual([
      ['anthropic/claude-sonnet-4-5 (customer)', 'herds'],
      ['anthropic/claude-sonnet-4-5 (engineer)', 'herds'],
      ['xai/grok-4 (pm)', 'herds'],
      ['xai/grok-4 (vc)', 'herds'],
    ]);
    expect(audit.judges.find((j) => j.judge === 'competitor')!.herd_moves).toEqual({ count: 0, of: 5, rate: 0 });
    expect(audit.flags[0].detail).toBe('5 of its 5 re-votes (100 %) made the same move as 3 or more other judges');
  });

  it("measures a judge's drift between consecutive panels of the same idea, from its final (re-voted) score, by version", () => {
    const facts = empty();
    panelRun(facts, 'p2', scores(6, 5, 5, 5, 5), {}, { ideaId: 'idea_1', ideaVersion: 2, createdAt: '2026-01-01T00:00:00Z' });
    panelRun(facts, 'p1', scores(2, 5, 5, 5, 5), { vc: 1 }, { ideaId: 'idea_1', ideaVersion: 1, createdAt: '2026-01-02T00:00:00Z' });
    panelRun(facts, 'p3', scores(9, 5, 5, 5, 5), {}, { ideaId: 'idea_1', ideaVersion: 3 });
    panelRun(facts, 'q1', scores(1, 1, 1, 1, 1), {}, { ideaId: 'idea_2', ideaVersion: 1 });
    const vc = biasAudit(facts).judges.find((j) => j.judge === 'vc')!;
    // v1 final 3 (2 re-voted +1) → v2 6 → v3 9: changes 3 and 3; idea_2 has one panel, no pair.
    expect(vc.drift).toEqual({ pairs: 2, mean_abs_change: 3 });
    expect(biasAudit(facts).judges.find((j) => j.judge === 'engineer')!.drift).toEqual({ pairs: 2, mean_abs_change: 0 });
  });

  it('flags self-preference when a role accepts its own provider\'s work far more often, with n on both sides', () => {
    const facts = empty();
    const critic = { provider: 'anthropic', model: 'claude' };
    // Same provider: 5 of 5 ACCEPT; other provider: 1 of 5.
    for (let i = 0; i < 5; i++) buildRun(facts, `s${i}`, critic, ['ACCEPT'], { testsPass: true, review: 'ACCEPT', author: 'anthropic' });
    for (let i = 0; i < 5; i++) buildRun(facts, `o${i}`, critic, [i === 0 ? 'ACCEPT' : 'REVISE'], { testsPass: true, review: 'ACCEPT', author: 'openai' });
    const audit = biasAudit(facts);
    const sp = audit.self_preference.find((s) => s.role === 'critic')!;
    expect(sp).toEqual({ role: 'critic', same_provider: { count: 5, of: 5, rate: 1 }, other_provider: { count: 1, of: 5, rate: 0.2 }, difference: 0.8 });
    expect(audit.flags).toEqual([{ subject: 'critic', kind: 'self_preference', detail: 'ACCEPT 100 % of 5 when the author is on its own provider, 20 % of 5 otherwise' }]);
    // The validator judged openai's engineers only (gemini): one side, nothing to compare.
    expect(audit.self_preference.find((s) => s.role === 'validator')).toMatchObject({ same_provider: { of: 0, rate: null }, difference: null });
  });

  it('reports an empty store as empty, with its thresholds', () => {
    const audit = biasAudit(empty());
    expect(audit).toMatchObject({ flags: [], critics: [], judges: [], self_preference: [], scope: { build_runs: 0, panel_runs: 0, run_limit: 2000 } });
    expect(audit.thresholds).toMatchObject({ never_revises_min_verdicts: 5, herd_min_other_judges: 3, self_preference_min_difference: 0.25 });
  });
});
