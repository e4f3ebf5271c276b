import type { BiasAudit } from '@roundtable/contracts';
import { runCli } from '../cli';
import { captureIo, FakeApi, sendJson, startFakeApi } from '../fake-api.fixture';

const histogram = (counts: Record<number, number>) => Array.from({ length: 10 }, (_, i) => ({ score: i + 1, count: counts[i + 1] ?? 0 }));

const AUDIT: BiasAudit = {
  flags: [{ subject: 'ollama/yes-man', kind: 'never_revises', detail: '6 verdicts over 6 runs, 6 ACCEPT, not one REVISE or REJECT' }],
  scope: { project: 'dd-demo', run_limit: 2000, runs: 9, truncated: false, build_runs: 6, panel_runs: 3 },
  critics: [
    {
      subject: 'ollama/yes-man',
      provider: 'ollama',
      model: 'yes-man',
      verdicts: 6,
      counts: { ACCEPT: 6, REVISE: 0, REJECT: 0, NEEDS_EVIDENCE: 0, NEEDS_EXPERIMENT: 0 },
      accept: { count: 6, of: 6, rate: 1 },
      revise: { count: 0, of: 6, rate: 0 },
      reject: { count: 0, of: 6, rate: 0 },
      accepts_then_failing_tests: { count: 4, of: 6, rate: 0.667 },
      accepts_then_failing_review: { count: 2, of: 6, rate: 0.333 },
      runs: 6,
    },
  ],
  judges: [
    {
      subject: 'xai/grok-4 (vc)',
      provider: 'xai',
      model: 'grok-4',
      judge: 'vc',
      scores: { count: 3, mean: 5, min: 3, max: 7, histogram: histogram({ 3: 1, 5: 1, 7: 1 }) },
      herd_moves: { count: 0, of: 3, rate: 0 },
      drift: { pairs: 1, mean_abs_change: 1 },
      panels: 3,
    },
  ],
  self_preference: [{ role: 'critic', same_provider: { count: 0, of: 0, rate: null }, other_provider: { count: 6, of: 6, rate: 1 }, difference: null }],
  thresholds: {
    never_revises_min_verdicts: 5,
    accepts_failures_min_count: 3,
    accepts_failures_min_rate: 0.5,
    herds_min_revotes: 5,
    herds_min_rate: 0.6,
    herd_min_other_judges: 3,
    self_preference_min_n: 5,
    self_preference_min_difference: 0.25,
  },
};

describe('roundtable audit bias', () => {
  let api: FakeApi | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });

  it('prints the flags first, then the critics and the judges, and what it read', async () => {
    api = await startFakeApi((_req, res) => sendJson(res, 200, AUDIT));
    const out = captureIo();
    expect(await runCli(['audit', 'bias', '--project', 'dd-demo', '--api', api.url], out.io)).toBe(0);
    expect(api.requests[0].url).toBe('/v1/audit/bias?project=dd-demo');
    const text = out.stdout();
    expect(text.indexOf('flags (1):')).toBe(0);
    expect(text).toMatch(/never_revises\s+ollama\/yes-man\s+6 verdicts over 6 runs/);
    expect(text.indexOf('critics')).toBeGreaterThan(text.indexOf('never_revises'));
    expect(text.indexOf('judges')).toBeGreaterThan(text.indexOf('critics'));
    expect(text).toMatch(/ollama\/yes-man\s+6\s+100 %\s+0 %\s+0 %\s+4\/6 \(67 %\)\s+2\/6 \(33 %\)\s+6/);
    expect(text).toMatch(/vc\s+xai\/grok-4\s+3\s+5\.0\s+3–7\s+··1·1·1···\s+0\/3 \(0 %\)\s+1\.0 \(1\)/);
    expect(text).toContain('read 9 runs of project dd-demo (the newest, at most 2000): 6 with critiques, 3 with panel scores');
  });

  it('--json prints the reply as it came; an empty audit says so; an unknown audit is a usage error', async () => {
    api = await startFakeApi((req, res) => sendJson(res, 200, req.url?.includes('project=none') ? { ...AUDIT, flags: [], critics: [], judges: [], self_preference: [] } : AUDIT));
    const json = captureIo();
    expect(await runCli(['audit', 'bias', '--json', '--api', api.url], json.io)).toBe(0);
    expect(api.requests[0].url).toBe('/v1/audit/bias');
    expect(JSON.parse(json.stdout())).toEqual(AUDIT);
    const empty = captureIo();
    expect(await runCli(['audit', 'bias', '--project', 'none', '--api', api.url], empty.io)).toBe(0);
    expect(empty.stdout()).toContain('flags: none');
    expect(empty.stdout()).toContain('no critiques in these runs');
    expect(empty.stdout()).toContain('no panel scores in these runs');
    const bad = captureIo();
    expect(await runCli(['audit', 'fairness', '--api', api.url], bad.io)).toBe(1);
    expect(bad.stderr()).toContain('unknown audit fairness; one of: bias');
  });
});
