import type { UsageReport } from '@roundtable/contracts';
import { runCli } from '../cli';
import { captureIo, FakeApi, sendJson, startFakeApi } from '../fake-api.fixture';
import { capsText } from './usage.command';

const REPORT: UsageReport = {
  since: '2026-12-05T00:00:00.000Z',
  rows: [
    {
      team: 'payments',
      project: 'dd-demo',
      runs: 2,
      calls: 7,
      input_tokens: 1200,
      output_tokens: 300,
      cost_usd: 0.42,
      unpriced_calls: 1,
      in_flight: { calls: 2, tokens: 2200, cost_usd: 0.03 },
      team_caps: { max_calls_per_day: 50, max_usd_total: 100 },
      project_caps: null,
    },
  ],
};

describe('roundtable usage', () => {
  let api: FakeApi | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });

  it('asks for the team, project and time given, and prints a row per team and project with the caps beside', async () => {
    api = await startFakeApi((_req, res) => sendJson(res, 200, REPORT));
    const out = captureIo();
    expect(await runCli(['usage', '--team', 'payments', '--project', 'dd-demo', '--since', '2026-12-01', '--api', api.url], out.io)).toBe(0);
    expect(api.requests[0].url).toBe('/v1/usage?team=payments&project=dd-demo&since=2026-12-01');
    const text = out.stdout();
    expect(text).toContain('since 2026-12-05T00:00:00.000Z');
    expect(text).toMatch(/payments\s+dd-demo\s+2\s+7\s+1500\s+\$0\.42 \+ 1 unpriced\s+2 \(\$0\.03\)\s+50 calls\/day, \$100\.00 total\s+-/);
  });

  it('--json prints the reply as it came; no rows says so; an empty option is a usage error', async () => {
    api = await startFakeApi((req, res) => sendJson(res, 200, req.url?.includes('team=none') ? { ...REPORT, rows: [] } : REPORT));
    const json = captureIo();
    expect(await runCli(['usage', '--json', '--api', api.url], json.io)).toBe(0);
    expect(api.requests[0].url).toBe('/v1/usage');
    expect(JSON.parse(json.stdout())).toEqual(REPORT);
    const none = captureIo();
    expect(await runCli(['usage', '--team', 'none', '--api', api.url], none.io)).toBe(0);
    expect(none.stdout()).toContain('no calls in this time');
    const bad = captureIo();
    expect(await runCli(['usage', '--team', ' ', '--api', api.url], bad.io)).toBe(1);
    expect(bad.stderr()).toContain('--team needs a value');
  });

  it('writes each cap it has, and - for none', () => {
    expect(capsText(null)).toBe('-');
    expect(capsText({})).toBe('-');
    expect(capsText({ max_usd_per_day: 5 })).toBe('$5.00/day');
  });
});
