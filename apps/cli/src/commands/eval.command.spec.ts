import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startFakeLlmServer, type FakeLlmServer } from '@roundtable/testing';
import { GRADER_DIMENSIONS } from '@roundtable/workflow';
import { runCli } from '../cli';
import { captureIo } from '../fake-api.fixture';

const KEY = 'sk-ant-grader-0123456789';
const GOLDEN = path.resolve(__dirname, '../../../../test/fixtures/panel-golden');
const IDEAS = 12;

/** One grader reply: every dimension 8, but for the planted ones. */
const grade = (over: Record<string, number> = {}) => ({ ...Object.fromEntries(GRADER_DIMENSIONS.map((d) => [d, 8])), ...over, notes: 'the weakest dimension is named here' });

describe('roundtable eval panel --grader: tier 2 against the fake wire server (the real Anthropic SDK, by base URL)', () => {
  let dir: string;
  let server: FakeLlmServer | undefined;
  let baseline: string;

  const withGrader = async (reply: Record<string, unknown>) => {
    server = await startFakeLlmServer({ script: { replies: [{ role: '*', reply, times: IDEAS }] }, apiKey: KEY });
    const file = path.join(dir, 'grader.yaml');
    writeFileSync(file, `project: grader\nproviders:\n  anthropic: { type: anthropic, api_key_env: GRADER_KEY, base_url: "${server.baseUrls.anthropic}" }\nagents:\n  proposer: { provider: anthropic, model: claude-haiku-4-5 }\n`);
    return file;
  };
  const evalPanel = async (config: string, ...extra: string[]) => {
    const out = captureIo({ cwd: dir, env: { GRADER_KEY: KEY } });
    const code = await runCli(['eval', 'panel', '--grader', 'anthropic', '--config', config, '--golden', GOLDEN, '--baseline', baseline, ...extra], out.io);
    return { code, stdout: out.stdout(), stderr: out.stderr() };
  };
  const row = (stdout: string, dimension: string) => stdout.split('\n').find((l) => l.startsWith(dimension)) ?? '';

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'rt-cli-eval-'));
    baseline = path.join(dir, 'grader-baseline.json');
    const scores = Object.fromEntries(GRADER_DIMENSIONS.map((d) => [d, 8]));
    writeFileSync(baseline, JSON.stringify({ grader: 'anthropic', model: 'claude-haiku-4-5', recorded_at: '2026-11-01T00:00:00.000Z', ideas: IDEAS, scores }));
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('a planted drop of 0.6 in one dimension is flagged, exit 1; every golden panel was sent, as structured output', async () => {
    const config = await withGrader(grade({ lens_differentiation: 7.4 }));
    const r = await evalPanel(config);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 1, stderr: '' });
    expect(r.stdout).toContain(`eval panel: ${IDEAS} golden ideas graded by anthropic/claude-haiku-4-5; baseline`);
    expect(row(r.stdout, 'lens_differentiation')).toMatch(/^lens_differentiation\s+8\.00\s+7\.40\s+-0\.60\s+FLAG$/);
    for (const d of GRADER_DIMENSIONS.filter((x) => x !== 'lens_differentiation')) expect(row(r.stdout, d)).toMatch(new RegExp(`^${d}\\s+8\\.00\\s+8\\.00\\s+0\\.00$`));
    expect(r.stdout).toContain('FLAG: lens_differentiation dropped by 0.5 or more against the baseline');

    expect(server!.requests).toHaveLength(IDEAS);
    const bodies = server!.requests.map((q) => q.body as { output_config: { format: { type: string; schema: { properties: object } } }; messages: unknown; system?: unknown });
    expect(Object.keys(bodies[0].output_config.format.schema.properties)).toEqual([...GRADER_DIMENSIONS, 'notes']);
    const prompts = bodies.map((b) => JSON.stringify([b.system, b.messages]));
    expect(prompts.some((p) => p.includes('# Idea: BinScale') && p.includes('round 2, competitor'))).toBe(true);
    expect(prompts.some((p) => p.includes('# Idea: Thirsty') && p.includes('(none: the panel stopped after the verdicts)'))).toBe(true);
  });

  it('a drop of 0.4 is not flagged, exit 0', async () => {
    const config = await withGrader(grade({ lens_differentiation: 7.6 }));
    const r = await evalPanel(config);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(row(r.stdout, 'lens_differentiation')).toMatch(/^lens_differentiation\s+8\.00\s+7\.60\s+-0\.40$/);
    expect(r.stdout).not.toContain('FLAG');
    expect(r.stdout).toContain('no dimension dropped by 0.5 or more');
  });

  it('--json names the flagged dimensions; --write-baseline stores the averages it graded', async () => {
    const config = await withGrader(grade({ synthesis_faithfulness: 7.5, debate_engagement: 9 }));
    const r = await evalPanel(config, '--json', '--write-baseline');
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout);
    expect(doc.flagged).toEqual(['synthesis_faithfulness']);
    expect(doc.ideas).toHaveLength(IDEAS);
    expect(doc.rows.find((x: { dimension: string }) => x.dimension === 'debate_engagement')).toEqual({ dimension: 'debate_engagement', baseline: 8, now: 9, delta: 1, flagged: false });
    const stored = JSON.parse(readFileSync(baseline, 'utf8'));
    expect(stored).toMatchObject({ grader: 'anthropic', model: 'claude-haiku-4-5', ideas: IDEAS, scores: { synthesis_faithfulness: 7.5, debate_engagement: 9, lens_differentiation: 8 } });
  });

  it('with no baseline it prints the scores and says how to store them, exit 0', async () => {
    rmSync(baseline);
    const config = await withGrader(grade({ lens_differentiation: 3 }));
    const r = await evalPanel(config);
    expect(r.code).toBe(0);
    expect(row(r.stdout, 'lens_differentiation')).toMatch(/^lens_differentiation\s+—\s+3\.00\s+—$/);
    expect(r.stdout).toContain('--write-baseline stores these averages as the baseline');
    expect(existsSync(baseline)).toBe(false);
  });

  it("a grade that does not match the grader's schema stops the eval, exit 1", async () => {
    const config = await withGrader(grade({ revote_quality: 14 }));
    const r = await evalPanel(config);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^anthropic's grade of astrology-dating-app does not match the grader schema: revote_quality: /);
  });

  it('without the key it skips with the reason, exit 0, nothing sent; an unknown suite is a usage error', async () => {
    const config = await withGrader(grade());
    const out = captureIo({ cwd: dir, env: {} });
    expect(await runCli(['eval', 'panel', '--grader', 'anthropic', '--config', config, '--golden', GOLDEN, '--baseline', baseline], out.io)).toBe(0);
    expect(out.stdout()).toBe('skipped: anthropic needs the environment variable GRADER_KEY, which is not set; nothing was called\n');
    expect(server!.requests).toEqual([]);

    const bad = captureIo({ cwd: dir, env: { GRADER_KEY: KEY } });
    expect(await runCli(['eval', 'build', '--grader', 'anthropic'], bad.io)).toBe(1);
    expect(bad.stderr()).toContain('--grader grades the panel golden set: eval panel --grader <provider> (got "build")');
    const noGrader = captureIo({ cwd: dir, env: {} });
    expect(await runCli(['eval', 'panel', '--grader', ''], noGrader.io)).toBe(1);
    expect(noGrader.stderr()).toContain('eval panel needs --grader <provider>');
  });
});
