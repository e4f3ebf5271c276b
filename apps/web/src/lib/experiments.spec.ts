import type { ExperimentDetail } from './api-types';
import { criteriaOfPrereg, decisionClass, fmtMetric, isPreregistration, liveRunOf, metricRows, runBlockedReason, shortHash, sourceOf } from './experiments';

const PREREG = {
  title: 'Crossover on a random walk',
  hypothesis: 'h',
  expected_result: 'e',
  method: { description: 'd', command: 'python3 backtest.py', metrics: ['sharpe_oos', 'n_trades'] },
  success_criteria: [{ expr: 'sharpe_oos >= 0.5' }, { id: 'S7', expr: 'n_trades >= 5', note: 'enough trades' }],
  failure_criteria: [{ expr: 'sharpe_oos < 0' }],
  data: 'prices.csv',
  assumptions: [],
  domain: 'trading' as const,
};

const detail = (over: Partial<ExperimentDetail> = {}): ExperimentDetail => ({
  id: 'exp_0123456789',
  project: 'backtest',
  title: PREREG.title,
  status: 'locked',
  hypothesis_id: null,
  repo: '/repos/backtest',
  commit: 'a'.repeat(40),
  preregistration: PREREG,
  prereg_hash: 'f'.repeat(64),
  locked_at: '2026-01-01T00:00:00.000Z',
  source: null,
  run_id: null,
  runs: [],
  result: null,
  decision: null,
  interpretation: null,
  interpreted_at: null,
  created_by: 'alice',
  created_at: '2026-01-01T00:00:00.000Z',
  ...over,
});

const result = { prereg_hash: 'f'.repeat(64), commit: 'a'.repeat(40), metrics: { sharpe_oos: -0.16 }, exit_code: 0, duration_s: 1, output_artifact_id: 'art', output_tail: '', run_id: 'run_1' };

describe('runBlockedReason', () => {
  it('offers Run on a locked experiment with no result and no live run', () => {
    expect(runBlockedReason(detail())).toBeNull();
    expect(runBlockedReason(detail({ runs: [{ id: 'run_1', status: 'failed', stage: 'RUN', created_at: '2026-01-01T00:00:01.000Z' }] }))).toBeNull();
  });

  it('says why not: a result, a draft, a rejected draft, a live run', () => {
    expect(runBlockedReason(detail({ result, decision: 'KILL', status: 'decided' }))).toMatch(/already has a result \(decided KILL\)/);
    expect(runBlockedReason(detail({ status: 'draft', preregistration: null }))).toMatch(/is a draft/);
    expect(runBlockedReason(detail({ status: 'rejected' }))).toMatch(/rejected/);
    const runs = [
      { id: 'run_old', status: 'failed', stage: 'RUN', created_at: '2026-01-01T00:00:01.000Z' },
      { id: 'run_new', status: 'halted', stage: 'INTERPRET', created_at: '2026-01-01T00:00:02.000Z' },
    ];
    // halted has ended: a resume is the run page's act, and the api's 409 (a run still live) is shown if it disagrees.
    expect(runBlockedReason(detail({ runs }))).toBeNull();
    expect(runBlockedReason(detail({ runs: [...runs, { id: 'run_live', status: 'running', stage: 'RUN', created_at: '2026-01-01T00:00:03.000Z' }] }))).toBe('A run of it is live (run_live, running): wait for it to end, or cancel it.');
  });
});

describe('liveRunOf', () => {
  it('is the newest run that has not ended', () => {
    expect(liveRunOf({ runs: [] })).toBeNull();
    expect(liveRunOf({ runs: [{ id: 'a', status: 'awaiting_approval', stage: 'LOCK', created_at: '2026-01-01T00:00:01.000Z' }] })?.id).toBe('a');
  });
});

describe('sourceOf', () => {
  it('names a build question or an idea', () => {
    expect(sourceOf(null)).toBeNull();
    expect(sourceOf({ build_run_id: 'run_b', question_id: 'Q1' })).toEqual({ kind: 'build', runId: 'run_b', questionId: 'Q1' });
    expect(sourceOf({ idea_id: 'idea_1', panel_run_id: null })).toEqual({ kind: 'idea', ideaId: 'idea_1', panelRunId: null });
  });
});

describe('formatting', () => {
  it('shortens a hash to 12 and paints decisions', () => {
    expect(shortHash('0123456789abcdef')).toBe('0123456789ab');
    expect([decisionClass('PASS'), decisionClass('KILL'), decisionClass('INCONCLUSIVE'), decisionClass(null)]).toEqual(['good', 'bad', 'warn', '']);
  });

  it('shows metrics to 4 decimals at most', () => {
    expect(fmtMetric(7)).toBe('7');
    expect(fmtMetric(-0.160812)).toBe('-0.1608');
    expect(fmtMetric(null)).toBe('—');
    expect(fmtMetric(Number.NaN)).toBe('NaN');
  });

  it('lists the declared metrics in order, a missing one as null, then extras', () => {
    expect(metricRows(['b', 'a'], { a: 1, z: 2 })).toEqual([
      { name: 'b', value: null, declared: true },
      { name: 'a', value: 1, declared: true },
      { name: 'z', value: 2, declared: false },
    ]);
    expect(metricRows(['a'], null)).toEqual([{ name: 'a', value: null, declared: true }]);
  });
});

describe('preregistrations', () => {
  it('recognises one in an untyped gate subject', () => {
    expect(isPreregistration(PREREG)).toBe(true);
    expect(isPreregistration({ title: 't', hypothesis: 'h' })).toBe(false);
    expect(isPreregistration(null)).toBe(false);
    expect(isPreregistration(['x'])).toBe(false);
  });

  it('numbers the criteria as contracts criteriaOf does', () => {
    expect(criteriaOfPrereg(PREREG)).toEqual([
      { id: 'S1', kind: 'success', expr: 'sharpe_oos >= 0.5', note: null },
      { id: 'S7', kind: 'success', expr: 'n_trades >= 5', note: 'enough trades' },
      { id: 'F1', kind: 'failure', expr: 'sharpe_oos < 0', note: null },
    ]);
  });
});
